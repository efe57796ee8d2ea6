import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Logger } from '../shared/logger';
import { type RateLimiter, type RateLimiterOptions, createRateLimiter } from './rate-limit';

/**
 * Rate-limit budgets shared by every replica through Redis (issue 19, `REDIS_URL`), with rate-limiter-flexible.
 *
 * Why the check happens before the facades ask: the REST facade, /catalog/events and the MCP face ask the limiter
 * synchronously (`admitOrRefuse`, in files other work owns), and a Redis answer is asynchronous. So the identity step
 * the request listener gives those surfaces (`contextFor`) takes the token from Redis once the principal is known and
 * remembers the answer for that request's context; the limiter the facades hold then answers `take(key)` with it.
 * The request listener's key function says which context the next `take` is for (it is called right before, in the
 * same synchronous step). A take with no remembered answer (none is expected) is decided by the replica's own bucket.
 *
 * Redis unreachable, erroring or slower than `timeoutMs`: the replica's own in-process budget decides (the same
 * budget as without REDIS_URL), a warning is logged (at most once a minute) and `onFallback` counts it
 * (toolcat_rate_limit_fallbacks_total). Chosen over failing closed because a Redis outage must not take the catalog
 * down with it, and per-replica budgets still bound every caller. Never a 500, never a wait past `timeoutMs`.
 *
 * Semantics: Redis holds a fixed window per key of `capacity` requests per `capacity / refillPerSecond` seconds (the
 * same sustained rate as the in-process token bucket, with bursts of up to `capacity` at a window's start).
 */
export interface SharedBudgetOptions extends Pick<RateLimiterOptions, 'capacity' | 'refillPerSecond' | 'maxKeys'> {
  readonly url: string;
  readonly prefix: string;
  readonly timeoutMs: number;
  readonly log: Logger;
  readonly onFallback: () => void;
}

interface Decision {
  readonly allowed: boolean;
  readonly retryAfterSeconds: number;
  readonly remaining: number;
}

const WARN_EVERY_MS = 60_000;

export class SharedBudgets {
  private readonly redis: Redis;
  private readonly store: RateLimiterRedis;
  /** The replica's own budget: decides while Redis cannot. */
  private readonly local: RateLimiter;
  private readonly decided = new WeakMap<object, { key: string; decision: Decision }>();
  private next: object | null = null;
  private lastWarning = -Infinity;
  /** What the facades hold: answers with the decision taken in `admit` for the context named by `forContext`. */
  readonly limiter: RateLimiter;

  constructor(private readonly opts: SharedBudgetOptions) {
    this.redis = new Redis(opts.url, {
      // Fail fast instead of queueing while disconnected, and bound every command: a Redis that stops answering
      // must not hold requests (the caller falls back to the local budget).
      enableOfflineQueue: false,
      commandTimeout: opts.timeoutMs,
      connectTimeout: Math.max(opts.timeoutMs, 1000),
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 200, 5000),
      lazyConnect: false,
    });
    // ioredis emits connection errors as events; unhandled they would crash the process. They are reported by admit.
    this.redis.on('error', () => undefined);
    this.store = new RateLimiterRedis({
      storeClient: this.redis,
      keyPrefix: opts.prefix,
      points: opts.capacity,
      duration: Math.max(1, Math.ceil(opts.capacity / opts.refillPerSecond)),
      rejectIfRedisNotReady: true,
    });
    this.local = createRateLimiter(opts);
    this.limiter = {
      capacity: opts.capacity,
      size: () => this.local.size(),
      take: (key) => {
        const ctx = this.next;
        this.next = null;
        const got = ctx === null ? undefined : this.decided.get(ctx);
        if (got === undefined || got.key !== key) return this.local.take(key);
        this.decided.delete(ctx!);
        return got.decision;
      },
      // Review (issue 19): an MCP batch's later messages were taken with take() after the body was read, which had
      // no remembered answer and so drew on this replica's own, otherwise untouched, bucket: N replicas gave a
      // batching caller N budgets. They are consumed from the shared budget here.
      takeMany: (key, n) => this.decide(key, n),
    };
  }

  /** Called by the key function right before the facade's `take`: the context the next take is for. */
  forContext(ctx: object): void {
    this.next = ctx;
  }

  /** Takes one token of `key`'s shared budget for the request whose context is `ctx`. Never rejects. */
  async admit(ctx: object, key: string): Promise<void> {
    this.decided.set(ctx, { key, decision: await this.decide(key) });
  }

  private async decide(key: string, points = 1): Promise<Decision> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const res = await Promise.race([
        this.store.consume(key, points),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from Redis within ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
        }),
      ]);
      return { allowed: true, retryAfterSeconds: 0, remaining: res.remainingPoints };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)), remaining: 0 };
      this.fallback(err);
      let last: Decision = { allowed: true, retryAfterSeconds: 0, remaining: 0 };
      for (let i = 0; i < points && last.allowed; i++) last = this.local.take(key);
      return last;
    } finally {
      clearTimeout(timer);
    }
  }

  private fallback(err: unknown): void {
    this.opts.onFallback();
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    // The message only: a Redis URL may hold a password.
    this.opts.log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'shared rate-limit budgets unavailable (Redis); this replica\'s own budget decides until Redis answers again');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
