import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * Redis for the shared-budget tests (issue 19). They run when TEST_REDIS_URL is set (.ci/run sets it and starts
 * redis-server when it is down) and say so when it is not, or when that Redis does not answer. Each suite writes
 * under its own random key prefix and deletes its keys at the end, never assuming an empty server.
 */
export const REDIS_URL = process.env.TEST_REDIS_URL || null;

/** Whether the Redis at `url` answers PING within a second. */
export async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** A unique key prefix and a client to look at (and finally delete) what was written under it. */
export function redisScope(url: string): { prefix: string; keys(): Promise<string[]>; cleanup(): Promise<void> } {
  const prefix = `toolcat-test:${randomBytes(6).toString('hex')}:`;
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  const keys = async (): Promise<string[]> => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...batch);
    } while (cursor !== '0');
    return found;
  };
  return {
    prefix,
    keys,
    async cleanup() {
      const all = await keys();
      if (all.length) await client.del(...all);
      client.disconnect();
    },
  };
}
