/**
 * toolcat/client against a real toolcat (issue 17): ETag revalidation (a 304 reuses the list), typed errors, bounded
 * honest retries (a non-idempotent call is never repeated; Retry-After is honoured and never exceeded), streamed calls,
 * idempotency keys, and catalog events with Last-Event-ID resumption. Waits go through an injected sleep that records
 * them, so no test depends on the clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { testConfig } from '../../src/config/config';
import { type CallEvent, NotFoundError, RateLimitedError, ToolcatError, UnauthorizedError, UnavailableError, createToolcatClient } from '../../src/client';
import { type ExtensionEndpoint, startExtensionEndpoint } from '../helpers/extension-endpoint';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';

const UPSERT = 'mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }';

/** A fetch that counts requests per method and path, and the sleeps a client asked for. */
function instrumented() {
  const requests: Array<{ method: string; path: string; status: number }> = [];
  const sleeps: number[] = [];
  const f: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    requests.push({ method: init?.method ?? 'GET', path: new URL(String(input)).pathname, status: res.status });
    return res;
  };
  const sleep = async (ms: number) => {
    sleeps.push(ms);
  };
  return { requests, sleeps, fetch: f, sleep };
}

describe('toolcat/client against toolcat (issue 17)', () => {
  let host: TestHost;
  let limited: TestHost;
  let endpoint: ExtensionEndpoint;
  let dir: string;
  let key: string;
  let limitedKey: string;

  before(async function () {
    this.timeout(60000);
    dir = mkdtempSync(join(tmpdir(), 'toolcat-client-'));
    endpoint = await startExtensionEndpoint();
    host = await startHost({ type: 'sqlite', path: join(dir, 'a.sqlite') });
    limited = await startHost({ type: 'sqlite', path: join(dir, 'b.sqlite') }, { security: { ...testConfig().security, rateLimit: { capacity: 1, refillPerSecond: 1, maxKeys: 1000 } } });
    for (const h of [host, limited]) {
      const t = await aTenantWithKey(h, 'client');
      await aGrant(h, { tenantId: t.tenantId, toolPattern: 'ext.*' });
      const impl = { http: { url: { value: endpoint.url }, secret: { value: endpoint.secret } } };
      const base = { inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, egress: 'none', implementation: impl };
      await h.gqlOk(UPSERT, { i: { ...base, name: 'echo', description: 'echo', safetyTier: 'read', replayPolicy: 'idempotent' } });
      await h.gqlOk(UPSERT, { i: { ...base, name: 'echo_write', description: 'echo that writes', safetyTier: 'write', replayPolicy: 'non-idempotent' } });
      if (h === host) key = t.key;
      else limitedKey = t.key;
    }
  });
  after(async () => {
    await host?.close();
    await limited?.close();
    await endpoint?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listTools revalidates with the ETag: an unchanged catalog answers 304 and the cached list is reused', async () => {
    const i = instrumented();
    const client = createToolcatClient({ baseUrl: host.url, token: key, fetch: i.fetch });
    const first = await client.listTools();
    const second = await client.listTools();
    expect(first.notModified).to.equal(false);
    expect(second.notModified).to.equal(true);
    expect(second.tools).to.equal(first.tools);
    expect(i.requests.map((r) => r.status)).to.deep.equal([200, 304]);
    // A change is seen at once: the ETag no longer matches.
    await host.gqlOk(UPSERT, { i: { name: 'added', description: 'added', inputSchema: { type: 'object' }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
    const third = await client.listTools();
    expect(third.notModified).to.equal(false);
    expect(third.tools.map((t) => t.toolId)).to.include('ext.added');
    // Views are cached apart.
    const compact = await client.listTools({ view: 'compact' });
    expect(compact.view).to.equal('compact');
    expect((await client.listTools({ view: 'compact' })).notModified).to.equal(true);
  });

  it('maps 401 and 404 to typed errors carrying the host\'s code', async () => {
    const anon = createToolcatClient({ baseUrl: host.url });
    const e1 = await anon.listTools().catch((e: unknown) => e);
    expect(e1).to.be.instanceOf(UnauthorizedError);
    expect(e1).to.include({ status: 401, code: 'UNAUTHENTICATED' });
    const client = createToolcatClient({ baseUrl: host.url, token: key });
    const e2 = await client.getTool('ext.nope').catch((e: unknown) => e);
    expect(e2).to.be.instanceOf(NotFoundError);
    expect(e2).to.include({ status: 404, code: 'NOT_FOUND' });
    const e3 = await client.callTool('ext.nope', {}).catch((e: unknown) => e);
    expect(e3).to.be.instanceOf(NotFoundError);
    const e4 = await client.callTool('ext.echo', { text: 1 }).catch((e: unknown) => e);
    expect(e4).to.be.instanceOf(ToolcatError).and.include({ status: 400, code: 'INVALID_ARGUMENTS' });
  });

  it('calls as JSON and as a stream, with the same result; an Idempotency-Key replays the recorded outcome', async () => {
    const client = createToolcatClient({ baseUrl: host.url, token: key });
    const plain = await client.callTool('ext.echo', { text: 'a' });
    expect(plain).to.deep.include({ toolId: 'ext.echo', isError: false, replayed: false, structuredContent: { echoed: { text: 'a' } } });
    const events: CallEvent[] = [];
    const streamed = await client.callTool('ext.echo', { text: 'a' }, { stream: true, onEvent: (e) => events.push(e) });
    expect(streamed.structuredContent).to.deep.equal(plain.structuredContent);
    expect(events.map((e) => e.type)).to.deep.equal(['tool.session.opened', 'tool.call.result', 'tool.session.closed']);
    const before = endpoint.count('echo');
    const k1 = await client.callTool('ext.echo', { text: 'k' }, { idempotencyKey: 'client-test-1' });
    const k2 = await client.callTool('ext.echo', { text: 'k' }, { idempotencyKey: 'client-test-1' });
    expect([k1.replayed, k2.replayed]).to.deep.equal([false, true]);
    expect(k2.callId).to.equal(k1.callId);
    expect(endpoint.count('echo') - before).to.equal(1);
    const past = await client.getCall('ext.echo', k1.callId);
    expect(past).to.include({ callId: k1.callId, toolId: 'ext.echo' });
  });

  it('retries a read refused with 429 after Retry-After, at most maxAttempts times, then gives the typed error back', async () => {
    const i = instrumented();
    const client = createToolcatClient({ baseUrl: limited.url, token: limitedKey, fetch: i.fetch, retry: { maxAttempts: 3, sleep: i.sleep } });
    // The budget holds one request, refilled once a second; the injected sleep does not wait, so every retry is refused too.
    const err = await client.capabilities().then(() => client.capabilities()).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterSeconds).to.be.a('number').greaterThan(0);
    const refused = i.requests.filter((r) => r.status === 429);
    expect(refused).to.have.length(3);
    expect(i.sleeps).to.have.length(2);
    for (const ms of i.sleeps) expect(ms).to.equal((err as RateLimitedError).retryAfterSeconds! * 1000);
  });

  it('never repeats a non-idempotent call without a key; repeats an idempotent tool\'s call and a keyed one', async () => {
    // A host that refuses every call with 429 (as toolcat's SOURCE_OVERLOADED does) and lists two tools: the retry
    // policy is the client's own, so a scripted host makes every count exact.
    const posts: string[] = [];
    const sleeps: number[] = [];
    const scripted: typeof fetch = async (input, init) => {
      const path = new URL(String(input)).pathname;
      if ((init?.method ?? 'GET') === 'GET' && path === '/tools') {
        return new Response(JSON.stringify([
          { toolId: 'ext.w', replayPolicy: 'non-idempotent', inputSchema: { type: 'object' } },
          { toolId: 'ext.i', replayPolicy: 'idempotent', inputSchema: { type: 'object' } },
          { toolId: 'ext.d', replayPolicy: 'deterministic', inputSchema: { type: 'object' } },
        ]), { status: 200, headers: { 'content-type': 'application/json' } });
      }
      posts.push(`${path} ${new Headers(init?.headers).get('idempotency-key') ?? '-'}`);
      return new Response(JSON.stringify({ error: { code: 'SOURCE_OVERLOADED', message: 'busy', details: { retryAfterSeconds: 1 } } }), { status: 429, headers: { 'retry-after': '1' } });
    };
    const client = createToolcatClient({ baseUrl: 'http://scripted.invalid', fetch: scripted, retry: { maxAttempts: 3, sleep: async (ms) => void sleeps.push(ms) } });
    // Before the client has read a tool's replayPolicy it does not know the call is safe: one attempt.
    expect(await client.callTool('ext.i', {}).catch((e: unknown) => e)).to.be.instanceOf(RateLimitedError);
    expect(posts.splice(0)).to.deep.equal(['/tools/ext.i/calls -']);
    await client.listTools();
    for (const [toolId, key, attempts] of [['ext.w', undefined, 1], ['ext.i', undefined, 3], ['ext.d', undefined, 3], ['ext.w', 'k-1', 3]] as const) {
      const err = await client.callTool(toolId, {}, key ? { idempotencyKey: key } : {}).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(RateLimitedError).and.include({ code: 'SOURCE_OVERLOADED', retryAfterSeconds: 1 });
      expect(posts.splice(0), `${toolId} ${key}`).to.deep.equal(Array(attempts).fill(`/tools/${toolId}/calls ${key ?? '-'}`));
    }
    expect(sleeps).to.deep.equal(Array(6).fill(1000));
  });

  it('never repeats a non-idempotent call after a network failure (it may have been delivered); a keyed one is', async () => {
    let attempts = 0;
    const failing: typeof fetch = async () => {
      attempts++;
      throw new TypeError('fetch failed');
    };
    const client = createToolcatClient({ baseUrl: 'http://scripted.invalid', fetch: failing, retry: { maxAttempts: 3, sleep: async () => undefined } });
    expect(await client.callTool('ext.w', {}).catch((e: unknown) => e)).to.be.instanceOf(TypeError);
    expect(attempts).to.equal(1);
    expect(await client.callTool('ext.w', {}, { idempotencyKey: 'k' }).catch((e: unknown) => e)).to.be.instanceOf(TypeError);
    expect(attempts).to.equal(4);
  });

  it('does not wait longer than maxDelayMs: a longer Retry-After is given back at once', async () => {
    const i = instrumented();
    const client = createToolcatClient({ baseUrl: limited.url, token: limitedKey, fetch: i.fetch, retry: { maxAttempts: 5, maxDelayMs: 10, sleep: i.sleep } });
    const err = await client.capabilities().then(() => client.capabilities()).then(() => client.capabilities()).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RateLimitedError);
    expect(i.sleeps).to.deep.equal([]);
  });

  it('events(): a change is heard once; a reconnect with Last-Event-ID hears nothing until the next change', async function () {
    this.timeout(30000);
    const client = createToolcatClient({ baseUrl: host.url, token: key });
    const ac = new AbortController();
    const stream = client.events({ signal: ac.signal });
    const it = stream[Symbol.asyncIterator]();
    const first = await it.next();
    const current = (first.value as { etag: string }).etag;
    expect(current).to.equal((await host.get('/tools', key)).headers.get('etag'));
    await host.gqlOk(UPSERT, { i: { name: 'changed', description: 'changed', inputSchema: { type: 'object' }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
    const second = await it.next();
    const changed = (second.value as { etag: string }).etag;
    expect(changed).to.not.equal(current);
    expect(stream.lastEventId).to.equal(changed);
    await it.return?.(undefined);
    ac.abort();
    // Resuming from the last id: nothing is re-announced; the next change is.
    const ac2 = new AbortController();
    const resumed = client.events({ lastEventId: changed, signal: ac2.signal })[Symbol.asyncIterator]();
    const next = resumed.next();
    await host.gqlOk(UPSERT, { i: { name: 'changed_again', description: 'again', inputSchema: { type: 'object' }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
    const heard = await next;
    expect((heard.value as { etag: string }).etag).to.equal((await host.get('/tools', key)).headers.get('etag'));
    await resumed.return?.(undefined);
    ac2.abort();
  });

  it('events() reconnects by itself when a stream ends, after the host\'s retry: delay, sending Last-Event-ID', async () => {
    // A scripted host: each connection sends one change and ends, as a proxy cutting idle streams would.
    const seenIds: Array<string | null> = [];
    const sleeps: number[] = [];
    const scripted: typeof fetch = async (_input, init) => {
      seenIds.push(new Headers(init?.headers).get('last-event-id'));
      const n = seenIds.length;
      const body = `retry: 1500\n\nid: "e${n}"\nevent: catalog.changed\ndata: {"etag":"\\"e${n}\\""}\n\n`;
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const client = createToolcatClient({ baseUrl: 'http://scripted.invalid', fetch: scripted, retry: { sleep: async (ms) => void sleeps.push(ms) } });
    const stream = client.events({ lastEventId: '"e0"' });
    const etags: string[] = [];
    for await (const change of stream) {
      etags.push(change.etag);
      if (etags.length === 3) break;
    }
    expect(etags).to.deep.equal(['"e1"', '"e2"', '"e3"']);
    expect(seenIds).to.deep.equal(['"e0"', '"e1"', '"e2"']);
    expect(sleeps).to.deep.equal([1500, 1500]);
    expect(stream.lastEventId).to.equal('"e3"');
  });

  it('events() ends with UnauthorizedError when the credential does not hold, and UnavailableError is the 503 type', async () => {
    const client = createToolcatClient({ baseUrl: host.url, token: 'tc_wrong' });
    const it = client.events()[Symbol.asyncIterator]();
    const err = await it.next().catch((e: unknown) => e);
    expect(err).to.be.instanceOf(UnauthorizedError);
    expect(new UnavailableError(503, 'SERVICE_UNAVAILABLE', 'x')).to.be.instanceOf(ToolcatError);
  });
});
