/**
 * Issue 19 item 4: rate-limit budgets shared across replicas through Redis (REDIS_URL), over real HTTP on loopback.
 * Two replicas on one database and one Redis spend one budget; with Redis down (a closed port, a proxy that stops
 * answering mid-way, then a proxy killed) each replica's own budget decides: answers are 200 or 429, never a 500,
 * never a hang (every check is bounded by TOOLCAT_REDIS_TIMEOUT_MS), a warning is logged and the fallback counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { testConfig } from '../../src/config/config';
import type { Config } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { freePort } from '../helpers/mcp-servers';
import { REDIS_URL, redisAnswers, redisScope } from '../helpers/redis';
import { type TestHost, aTenantWithKey, startHost } from '../helpers/test-host';

const CAPACITY = 4;
/** A budget that does not refill during a test: CAPACITY requests, then 429. */
const limited = (url: string, prefix: string): Partial<Config> => ({
  security: { ...testConfig().security, rateLimit: { capacity: CAPACITY, refillPerSecond: 0.0001, maxKeys: 1000 } },
  sharedLimits: { url, prefix, timeoutMs: 250 },
});

/** Skips the suite, saying so, when TEST_REDIS_URL is unset or its Redis does not answer. */
function needsRedis(): void {
  before(async function () {
    this.timeout(5000);
    if (!REDIS_URL) {
      console.log('    (shared-budget tests skipped: set TEST_REDIS_URL, e.g. redis://127.0.0.1:6379; .ci/run sets it)');
      this.skip();
    }
    if (!(await redisAnswers(REDIS_URL))) {
      console.log(`    (shared-budget tests skipped: no Redis answers at ${REDIS_URL})`);
      this.skip();
    }
  });
}

/** A TCP proxy to Redis that can stop forwarding (sockets stay open, nothing answers) and be killed. */
async function redisProxy(target: string): Promise<{ url: string; blackhole(): void; kill(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let forwarding = true;
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port || 6379), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => forwarding && upstream.write(d));
    upstream.on('data', (d) => forwarding && client.write(d));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    blackhole: () => void (forwarding = false),
    async kill() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const statusesOf = async (hosts: TestHost[], key: string, n: number): Promise<Array<{ status: number; remaining: string | null; retryAfter: string | null }>> => {
  const out = [];
  for (let i = 0; i < n; i++) {
    const r = await hosts[i % hosts.length].get('/tools', key);
    out.push({ status: r.status, remaining: r.headers.get('ratelimit-remaining'), retryAfter: r.headers.get('retry-after') });
  }
  return out;
};

forEachDatabase('rate-limit budgets shared through Redis (issue 19)', (database) => {
  needsRedis();
  let drop: () => Promise<void>;
  let a: TestHost;
  let b: TestHost;
  let scope: ReturnType<typeof redisScope>;

  before(async function () {
    this.timeout(60000);
    scope = redisScope(REDIS_URL!);
    const created = await database.create();
    drop = created.drop;
    a = await startHost(created.db, limited(REDIS_URL!, scope.prefix));
    b = await startHost(created.db, limited(REDIS_URL!, scope.prefix), false);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await drop?.();
    await scope?.cleanup();
  });

  it('two replicas, one database, one Redis: one budget (requests alternate between the replicas)', async () => {
    const agent = await aTenantWithKey(a, 'shared');
    const got = await statusesOf([a, b], agent.key, CAPACITY * 2 + 1);
    expect(got.map((g) => g.status)).to.deep.equal([...Array(CAPACITY).fill(200), ...Array(CAPACITY + 1).fill(429)]);
    expect(got.slice(0, CAPACITY).map((g) => g.remaining), 'the budget counts down across replicas').to.deep.equal(['3', '2', '1', '0']);
    for (const g of got.slice(CAPACITY)) expect(Number(g.retryAfter)).to.be.greaterThan(0);
    expect((await scope.keys()).length, 'the budget lives in Redis, under the suite\'s prefix').to.equal(1);
    // Another principal has a budget of its own.
    const other = await aTenantWithKey(a, 'shared-other');
    expect((await b.get('/tools', other.key)).status).to.equal(200);
  });

  it('the MCP face and GET /tools spend the same shared budget', async () => {
    const agent = await aTenantWithKey(a, 'shared-mcp');
    expect((await a.get('/tools', agent.key)).status).to.equal(200);
    const init = (h: TestHost) =>
      fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
      });
    const statuses = [];
    for (const h of [b, a, b, a]) statuses.push((await init(h)).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
  });

  it('an MCP batch spends one shared token per message, on whichever replica it lands (review: it spent the replica\'s own bucket)', async () => {
    const agent = await aTenantWithKey(a, 'shared-batch');
    expect((await a.get('/tools', agent.key)).status).to.equal(200); // 1 of CAPACITY (4)
    const batch = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify([1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' }))),
    });
    await batch.text();
    expect(batch.status, 'the batch itself fits the 3 tokens left').to.not.equal(429);
    // 1 + 3 = CAPACITY: the shared budget is spent, on the other replica too.
    const after = await a.get('/tools', agent.key);
    expect(after.status).to.equal(429);
  });
});

describe('rate-limit budgets with Redis down (issue 19): the replica\'s own budget decides, never a 500 or a hang', () => {
  needsRedis();
  const dirs: string[] = [];
  const hostWith = (url: string, prefix: string): Promise<TestHost> => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcat-redis-down-'));
    dirs.push(dir);
    return startHost({ type: 'sqlite', path: join(dir, 'catalog.sqlite') }, limited(url, prefix));
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('REDIS_URL at a closed port: 200 up to the local budget, then 429; a warning logged, the fallback counted', async function () {
    this.timeout(30000);
    const host = await hostWith(`redis://127.0.0.1:${await freePort()}`, 'toolcat-test-closed:');
    try {
      const agent = await aTenantWithKey(host, 'down');
      const got = await statusesOf([host], agent.key, CAPACITY + 2);
      expect(got.map((g) => g.status)).to.deep.equal([...Array(CAPACITY).fill(200), 429, 429]);
      expect(host.logs.filter((l) => l.includes('shared rate-limit budgets unavailable')), 'one warning, not one per request').to.have.length(1);
      const metrics = await host.get('/metrics');
      expect(Number(/^toolcat_rate_limit_fallbacks_total (\d+)/m.exec(metrics.text)?.[1])).to.equal(CAPACITY + 2);
    } finally {
      await host.close();
    }
  });

  it('a Redis that stops answering mid-way (a proxy that blackholes), then goes away (the proxy killed): bounded, never a 500', async function () {
    this.timeout(30000);
    const scope = redisScope(REDIS_URL!);
    const proxy = await redisProxy(REDIS_URL!);
    const host = await hostWith(proxy.url, scope.prefix);
    try {
      const agent = await aTenantWithKey(host, 'flaky');
      const first = await statusesOf([host], agent.key, 2);
      expect(first.map((g) => g.status)).to.deep.equal([200, 200]);
      expect((await scope.keys()).length, 'served from Redis while it answered').to.equal(1);
      expect(host.logs.some((l) => l.includes('shared rate-limit budgets unavailable'))).to.equal(false);
      proxy.blackhole();
      // Each check waits at most the 250 ms bound, then the local budget (untouched so far: CAPACITY) decides.
      const stalled = await statusesOf([host], agent.key, 2);
      expect(stalled.map((g) => g.status)).to.deep.equal([200, 200]);
      expect(host.logs.some((l) => l.includes('shared rate-limit budgets unavailable') && /timed out|250 ms/i.test(l)), host.logs.join('')).to.equal(true);
      await proxy.kill();
      const gone = await statusesOf([host], agent.key, 3);
      expect(gone.map((g) => g.status)).to.deep.equal([200, 200, 429]);
    } finally {
      await host.close();
      await proxy.kill().catch(() => undefined);
      await scope.cleanup();
    }
  });
});
