/**
 * McpCallPool (issue 14 item 4) against real servers from npm (server-everything over stdio and Streamable HTTP,
 * server-memory over stdio) and the hostile fixture server's call behaviours, with sources registered through the
 * public GraphQL API on a started host (SQLite, and PostgreSQL when TEST_POSTGRES_URL is set). Every wait is on an
 * event (a promise, a file the server writes, `until`), never a fixed sleep; no assertion on wall-clock time.
 */
import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { getEventListeners } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { terminationsSettled } from '../../src/sources/mcp/http-client.transport';
import { McpCallPool, type McpCallPoolDeps } from '../../src/invocation/mcp-call-pool';
import { type ProgressUpdate, type UpstreamCall, UpstreamError, type UpstreamResult } from '../../src/invocation/upstream';
import { createLogger } from '../../src/shared/logger';
import { forEachDatabase } from '../helpers/databases';
import { spawn, type ChildProcess } from 'node:child_process';
import { CALL_TOOLS } from '../fixtures/hostile-tools';
import { EVERYTHING_BIN, HOSTILE_BIN, MEMORY_BIN, freePort, hostileControl, startEverythingHttp, until } from '../helpers/mcp-servers';
import { type TestHost, startHost } from '../helpers/test-host';

const REGISTER = 'mutation($i: SourceInput!) { registerSource(input: $i) { name } }';
const UPDATE = 'mutation($i: SourceInput!) { updateSource(input: $i) { name } }';

/** The hostile server's control files, and the env that points it at them. */
function hostileFiles() {
  const control = hostileControl();
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-calls-'));
  const files = { calls: join(dir, 'calls'), cancels: join(dir, 'cancels'), count: join(dir, 'count'), pid: join(dir, 'pid') };
  const env = { ...control.env, HOSTILE_CALLS_FILE: files.calls, HOSTILE_CANCEL_FILE: files.cancels, HOSTILE_COUNT_FILE: files.count, HOSTILE_PID_FILE: files.pid };
  const lines = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : []);
  return { control, files, env, lines };
}

async function rejection(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (err) {
    expect(err, String(err)).to.be.instanceOf(UpstreamError);
    return err as UpstreamError;
  }
  throw new Error('expected the call to fail');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const text = (r: UpstreamResult) => (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

forEachDatabase('McpCallPool', (database) => {
  let host: TestHost;
  let dropDb: () => Promise<void>;
  const logs: string[] = [];
  const pools: McpCallPool[] = [];
  const opened: Array<{ source: string; pid: number | null }> = [];
  const LEAK_LITERAL = 'literal-Secret-Value-9f8e7d6c5b4a';
  const LEAK_FROM_ENV = 'fromenv-Secret-Value-1a2b3c4d5e6f';
  const hostile = hostileFiles();
  const other = hostileFiles();
  let http: Awaited<ReturnType<typeof startEverythingHttp>>;

  const newPool = (over: Partial<McpCallPoolDeps> = {}) => {
    const sink = new Writable({
      write(chunk, _e, cb) {
        logs.push(String(chunk));
        cb();
      },
    });
    const pool = new McpCallPool({
      dataSource: host.app.dataSource,
      env: { ...process.env, TEST_LEAK_SECRET: LEAK_FROM_ENV },
      version: '0.0.0-test',
      connectTimeoutMs: 15000,
      maxMessageBytes: 1024 * 1024,
      log: createLogger('debug', sink),
      onSessionOpened: (e) => opened.push(e),
      ...over,
    });
    pools.push(pool);
    return pool;
  };
  const sessionsOf = (source: string) => opened.filter((o) => o.source === source);
  const args = (a: Record<string, unknown> = {}, over: Partial<UpstreamCall> = {}): UpstreamCall => ({
    callId: `c-${Math.random().toString(36).slice(2)}`,
    caller: { tenantId: 't', principalKind: 'api-key', principalId: 'p' },
    arguments: a,
    signal: new AbortController().signal,
    timeoutMs: 30000,
    maxResultBytes: 512 * 1024,
    ...over,
  });
  const register = (i: Record<string, unknown>) => host.gqlOk(REGISTER, { i: { syncIntervalSeconds: 0, ...i } });
  const envList = (env: Record<string, string>) => Object.entries(env).map(([name, value]) => ({ name, value }));

  before(async function () {
    this.timeout(60000);
    const created = await database.create();
    dropDb = created.drop;
    host = await startHost(created.db);
    http = await startEverythingHttp();
    const memDir = mkdtempSync(join(tmpdir(), 'toolcat-memory-'));
    await register({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });
    await register({ name: 'everything-http', transport: 'http', url: { value: http.url }, headers: [{ name: 'Authorization', value: 'Bearer http-header-secret-0123456789' }] });
    await register({ name: 'memory', transport: 'stdio', command: process.execPath, args: [MEMORY_BIN], env: [{ name: 'MEMORY_FILE_PATH', value: join(memDir, 'memory.jsonl') }] });
    const leaks = [
      { name: 'LEAK_LITERAL', value: LEAK_LITERAL },
      { name: 'LEAK_FROM_ENV', fromEnv: 'TEST_LEAK_SECRET' },
    ];
    await register({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: [...envList(hostile.env), ...leaks] });
    // Every env value of a source is a secret (write-only); get-env answers them beside the process's own (PATH).
    await register({ name: 'everything-env', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], env: [...leaks] });
    await register({ name: 'other', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: envList(other.env) });
    await register({ name: 'nowhere', transport: 'stdio', command: '/nonexistent/mcp-server', args: [] });
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
    http?.stop();
    await host?.close();
    await dropDb?.();
  });

  it('server-everything over stdio: echo, get-sum, a tool error, structuredContent as sent', async function () {
    this.timeout(30000);
    const pool = newPool();
    expect(text(await pool.call('everything', 'echo', args({ message: 'hello' })))).to.equal('Echo: hello');
    const sum = await pool.call('everything', 'get-sum', args({ a: 2, b: 40 }));
    expect(sum.isError).to.equal(false);
    expect(text(sum)).to.include('42');
    const bad = await pool.call('everything', 'echo', args({}));
    expect(bad.isError).to.equal(true);
    expect(text(bad)).to.match(/message/);
    const structured = await pool.call('everything', 'get-structured-content', args({ location: 'Chicago' }));
    expect(structured.structuredContent).to.deep.equal({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    expect(sessionsOf('everything')).to.have.length(1);
  });

  it("server-everything's get-env over stdio: the source's env secrets (literal and fromEnv) are redacted from the result, the rest kept", async function () {
    this.timeout(30000);
    const pool = newPool();
    const env = JSON.parse(text(await pool.call('everything-env', 'get-env', args({})))) as Record<string, string>;
    expect(env).to.include({ LEAK_LITERAL: '[redacted]', LEAK_FROM_ENV: '[redacted]' });
    expect(env.PATH, 'what is not a secret stays').to.be.a('string').and.have.length.above(0);
    expect(env.PATH).not.to.include('[redacted]');
  });

  it('server-everything over stdio: the long-running tool forwards its progress, in order', async function () {
    this.timeout(30000);
    const pool = newPool();
    const progress: ProgressUpdate[] = [];
    const r = await pool.call('everything', 'trigger-long-running-operation', args({ duration: 0.3, steps: 3 }, { onProgress: (p) => progress.push(p) }));
    expect(text(r)).to.match(/completed/i);
    expect(progress).to.deep.equal([1, 2, 3].map((progress) => ({ progress, total: 3 })));
  });

  it('server-everything over Streamable HTTP: echo, get-sum, progress, a tool error; header secrets reach the server only', async function () {
    this.timeout(30000);
    const pool = newPool();
    expect(text(await pool.call('everything-http', 'echo', args({ message: 'over http' })))).to.equal('Echo: over http');
    expect(text(await pool.call('everything-http', 'get-sum', args({ a: 1, b: 2 })))).to.include('3');
    expect((await pool.call('everything-http', 'echo', args({}))).isError).to.equal(true);
    const progress: number[] = [];
    await pool.call('everything-http', 'trigger-long-running-operation', args({ duration: 0.3, steps: 3 }, { onProgress: (p) => progress.push(p.progress) }));
    expect(progress).to.deep.equal([1, 2, 3]);
    expect(sessionsOf('everything-http').at(-1)!.pid).to.equal(null);
  });

  it('Streamable HTTP: drop() ends the session upstream with DELETE; drop({ endUpstream: false }) (an admin changed or removed the source) sends nothing there', async function () {
    this.timeout(30000);
    // A recording proxy in front of server-everything: what toolcat sends, by method and session id.
    const seen: Array<{ method: string; session: string | undefined; authorization: string | undefined }> = [];
    const target = new URL(http.url);
    const proxy = createServer((req, res) => {
      seen.push({ method: req.method!, session: req.headers['mcp-session-id'] as string | undefined, authorization: req.headers.authorization });
      const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.pipe(up);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
      await register({ name: 'recorded', transport: 'http', url: { value: url }, headers: [{ name: 'Authorization', value: 'Bearer recorded-secret-0123456789' }] });
      const pool = newPool();
      const sessionOf = () => seen.filter((x) => x.method === 'POST' && x.session).at(-1)!.session!;
      expect(text(await pool.call('recorded', 'echo', args({ message: 'one' })))).to.equal('Echo: one');
      const first = sessionOf();
      await pool.drop('recorded', { endUpstream: false });
      expect(text(await pool.call('recorded', 'echo', args({ message: 'two' })))).to.equal('Echo: two');
      const second = sessionOf();
      expect(second).not.to.equal(first);
      await pool.drop('recorded');
      await until(async () => seen.some((x) => x.method === 'DELETE'));
      await terminationsSettled();
      // Only the second session was ended, with the source's own header; the first was left alone.
      expect(seen.filter((x) => x.method === 'DELETE')).to.deep.equal([{ method: 'DELETE', session: second, authorization: 'Bearer recorded-secret-0123456789' }]);
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  it('Streamable HTTP: a response past maxMessageBytes is too-large, and the next call works on a new session', async function () {
    this.timeout(30000);
    const pool = newPool({ maxMessageBytes: 64 * 1024 });
    const before = sessionsOf('everything-http').length;
    const err = await rejection(pool.call('everything-http', 'echo', args({ message: 'y'.repeat(200 * 1024) }, { maxResultBytes: 10 * 1024 * 1024 })));
    expect(err.kind, err.message).to.equal('too-large');
    expect(err.message).to.match(/larger than/);
    expect(text(await pool.call('everything-http', 'echo', args({ message: 'small' })))).to.equal('Echo: small');
    expect(sessionsOf('everything-http').length).to.equal(before + 2);
  });

  it('server-memory over stdio: create_entities, then read_graph sees them', async function () {
    this.timeout(30000);
    const pool = newPool();
    const created = await pool.call('memory', 'create_entities', args({ entities: [{ name: 'toolcat', entityType: 'service', observations: ['calls tools'] }] }));
    expect(created.isError, text(created)).to.equal(false);
    const graph = await pool.call('memory', 'read_graph', args({}));
    expect(text(graph) + JSON.stringify(graph.structuredContent ?? {})).to.include('calls tools');
  });

  it('reuse: sequential and concurrent first calls share one session; a killed server and drop() reconnect', async function () {
    this.timeout(30000);
    const pool = newPool();
    const before = sessionsOf('everything').length;
    const first = await Promise.all([1, 2, 3, 4, 5].map((i) => pool.call('everything', 'echo', args({ message: `c${i}` }))));
    expect(first.map(text)).to.deep.equal([1, 2, 3, 4, 5].map((i) => `Echo: c${i}`));
    for (let i = 0; i < 5; i++) await pool.call('everything', 'get-sum', args({ a: i, b: 1 }));
    expect(sessionsOf('everything').length).to.equal(before + 1);
    const pid = sessionsOf('everything').at(-1)!.pid!;
    expect(pid).to.be.a('number');
    process.kill(pid, 'SIGKILL');
    await until(async () => !pool.openSessions().includes('everything'));
    expect(text(await pool.call('everything', 'echo', args({ message: 'back' })))).to.equal('Echo: back');
    expect(sessionsOf('everything').length).to.equal(before + 2);
    expect(sessionsOf('everything').at(-1)!.pid).not.to.equal(pid);
    await pool.drop('everything');
    expect(pool.openSessions()).not.to.include('everything');
    await pool.call('everything', 'echo', args({ message: 'again' }));
    expect(sessionsOf('everything').length).to.equal(before + 3);
  });

  it('drop() after a spec change: the next call uses the new spec and secrets', async function () {
    this.timeout(30000);
    const pool = newPool();
    const before = sessionsOf('other').length;
    expect(JSON.parse(text(await pool.call('other', 'echo', args({ n: 1 }))))).to.deep.equal({ n: 1 });
    await host.gqlOk(UPDATE, { i: { name: 'other', transport: 'stdio', command: '/nonexistent/changed', args: [] } });
    await pool.drop('other');
    const err = await rejection(pool.call('other', 'echo', args({})));
    expect(err.kind).to.equal('unavailable');
    expect(err.opts.retryable).to.equal(true);
    await host.gqlOk(UPDATE, { i: { name: 'other', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN] } });
    await pool.drop('other');
    expect(JSON.parse(text(await pool.call('other', 'echo', args({ n: 2 }))))).to.deep.equal({ n: 2 });
    expect(sessionsOf('other').length).to.equal(before + 2);
  });

  it('an idle session is closed after idleMs; the next call reconnects', async function () {
    this.timeout(30000);
    const pool = newPool({ idleMs: 50 });
    await pool.call('other', 'echo', args({}));
    await until(async () => !pool.openSessions().includes('other'));
    await pool.call('other', 'echo', args({}));
    expect(pool.openSessions()).to.include('other');
  });

  it('Streamable HTTP: after the server restarted, the old session is refused (400/404): unavailable, and the next call opens a new session', async function () {
    this.timeout(60000);
    const port = await freePort();
    const start = async (): Promise<ChildProcess> => {
      const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      await new Promise<void>((resolve, reject) => {
        const onData = (c: Buffer) => String(c).includes('listening') && resolve();
        child.stdout!.on('data', onData);
        child.stderr!.on('data', onData);
        child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
      });
      return child;
    };
    let server = await start();
    try {
      await register({ name: 'restarting', transport: 'http', url: { value: `http://127.0.0.1:${port}/mcp` } });
      const pool = newPool();
      expect(text(await pool.call('restarting', 'echo', args({ message: 'one' })))).to.equal('Echo: one');
      await new Promise<void>((resolve) => (server.once('exit', () => resolve()), server.kill('SIGKILL')));
      server = await start();
      const err = await rejection(pool.call('restarting', 'echo', args({ message: 'two' })));
      expect(err.kind, err.message).to.equal('unavailable');
      // The spec's answer is 404 (then the request is known not to be processed: retryable); server-everything
      // answers 400 "No valid session ID provided", which says less: not retryable.
      const status = /HTTP (\d+)/.exec(err.message)?.[1];
      expect(status, err.message).to.be.oneOf(['400', '404']);
      expect(err.opts.retryable === true).to.equal(status === '404');
      expect(text(await pool.call('restarting', 'echo', args({ message: 'three' })))).to.equal('Echo: three');
      expect(sessionsOf('restarting')).to.have.length(2);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it('a server that never answers initialize: unavailable after connectTimeoutMs, or timeout when the call\'s bound is shorter; both retryable', async function () {
    this.timeout(30000);
    const mute = hostileFiles();
    mute.control.setMode('hang-init');
    await register({ name: 'mute', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: envList(mute.env) });
    const pool = newPool({ connectTimeoutMs: 300 });
    const slow = await rejection(pool.call('mute', 'echo', args({})));
    expect(slow.kind).to.equal('unavailable');
    expect(slow.message).to.match(/timed out/);
    expect(slow.opts.retryable).to.equal(true);
    const pool2 = newPool({ connectTimeoutMs: 60000 });
    const short = await rejection(pool2.call('mute', 'echo', args({}, { timeoutMs: 200 })));
    expect(short.kind).to.equal('timeout');
    expect(short.opts.retryable).to.equal(true);
    await until(async () => existsSync(mute.files.pid));
    const pid = Number(readFileSync(mute.files.pid, 'utf8'));
    await pool2.close(); // while its connect waits: the server it started is ended
    expect(mute.lines(mute.files.calls)).to.deep.equal([]);
    expect(alive(pid)).to.equal(false);
  });

  it('the call tools of the hostile fixture (CALL_TOOLS) sync as a listing, so the core sees their schemas', async function () {
    this.timeout(30000);
    other.control.setTools(CALL_TOOLS);
    const r = await host.gqlOk<{ syncSource: { status: string; toolCount: number; error: string | null } }>('mutation($n: String!) { syncSource(name: $n) { status toolCount error } }', { n: 'other' });
    expect(r.syncSource, r.syncSource.error ?? '').to.include({ status: 'ok', toolCount: CALL_TOOLS.length });
  });

  it('a connect failure is unavailable and retryable (nothing was sent); an unknown source too', async function () {
    this.timeout(30000);
    const pool = newPool();
    const err = await rejection(pool.call('nowhere', 'echo', args({})));
    expect(err.kind).to.equal('unavailable');
    expect(err.opts.retryable).to.equal(true);
    expect(err.message).to.match(/cannot connect to source nowhere/);
    const unknown = await rejection(pool.call('no-such-source', 'echo', args({})));
    expect(unknown).to.deep.include({ kind: 'unavailable' });
    expect(unknown.opts.retryable).to.equal(true);
  });

  describe('a hostile upstream', () => {
    let pool: McpCallPool;
    before(() => {
      pool = newPool({ maxMessageBytes: 2 * 1024 * 1024 });
    });

    it('a hanging tool times out (timeout, not retryable) and the server is sent notifications/cancelled', async function () {
      this.timeout(30000);
      const cancels = hostile.lines(hostile.files.cancels).length;
      const err = await rejection(pool.call('hostile', 'hang', args({}, { timeoutMs: 300 })));
      expect(err.kind).to.equal('timeout');
      expect(err.opts.retryable).to.not.equal(true);
      await until(async () => hostile.lines(hostile.files.cancels).length > cancels);
    });

    it('a hanging source never delays a call to another source: it completes while the hang is pending', async function () {
      this.timeout(30000);
      const ac = new AbortController();
      let hangSettled = false;
      const hangs = hostile.lines(hostile.files.calls).filter((l) => l === 'hang').length;
      const hang = rejection(pool.call('hostile', 'hang', args({}, { signal: ac.signal, timeoutMs: 60000 }))).finally(() => (hangSettled = true));
      await until(async () => hostile.lines(hostile.files.calls).filter((l) => l === 'hang').length > hangs);
      const r = await pool.call('other', 'echo', args({ ok: true }));
      expect(JSON.parse(text(r))).to.deep.equal({ ok: true });
      // And a call to the same server's other tools: the session is shared, not blocked.
      expect(JSON.parse(text(await pool.call('hostile', 'echo', args({ same: 'source' }))))).to.deep.equal({ same: 'source' });
      expect(hangSettled).to.equal(false);
      ac.abort();
      expect((await hang).kind).to.equal('cancelled');
    });

    it('a server that ignores notifications/cancelled: the caller still gets cancelled at once; a late answer is dropped', async function () {
      this.timeout(30000);
      for (const answerLate of [false, true]) {
        const ac = new AbortController();
        const calls = hostile.lines(hostile.files.calls).length;
        const cancels = hostile.lines(hostile.files.cancels).length;
        const p = pool.call('hostile', 'ignore_cancel', args({ answerLate }, { signal: ac.signal, timeoutMs: 120000 }));
        await until(async () => hostile.lines(hostile.files.calls).length > calls);
        ac.abort();
        const err = await rejection(p);
        expect(err.kind).to.equal('cancelled');
        await until(async () => hostile.lines(hostile.files.cancels).length > cancels);
      }
      const sessions = sessionsOf('hostile').length;
      expect(JSON.parse(text(await pool.call('hostile', 'echo', args({ after: 'late answer' }))))).to.deep.equal({ after: 'late answer' });
      expect(sessionsOf('hostile').length).to.equal(sessions);
    });

    it('a server that crashes mid-call: unavailable (not retryable: the call was delivered), with its exit; the next call reconnects', async function () {
      this.timeout(30000);
      const err = await rejection(pool.call('hostile', 'crash', args({})));
      expect(err.kind).to.equal('unavailable');
      expect(err.opts.retryable).to.not.equal(true);
      expect(err.message).to.match(/exited \(code 7\)/);
      expect(err.message).to.include('crashing in the middle of a call');
      expect(JSON.parse(text(await pool.call('hostile', 'echo', args({ back: 1 }))))).to.deep.equal({ back: 1 });
    });

    it('an oversized result: too-large past maxResultBytes (session kept), and past maxMessageBytes (stopped by the transport)', async function () {
      this.timeout(30000);
      const sessions = sessionsOf('hostile').length;
      const big = await rejection(pool.call('hostile', 'huge', args({ bytes: 100 * 1024 }, { maxResultBytes: 64 * 1024 })));
      expect(big.kind).to.equal('too-large');
      expect(big.message).to.match(/more than the 65536 allowed/);
      expect(sessionsOf('hostile').length).to.equal(sessions);
      const huge = await rejection(pool.call('hostile', 'huge', args({ bytes: 4 * 1024 * 1024 }, { maxResultBytes: 64 * 1024 * 1024 })));
      expect(huge.kind).to.equal('too-large');
      expect(huge.message).to.match(/larger than 2097152 bytes/);
      expect(JSON.parse(text(await pool.call('hostile', 'echo', args({ x: 1 }))))).to.deep.equal({ x: 1 });
      expect(sessionsOf('hostile').length).to.equal(sessions + 1);
    });

    it('structuredContent that violates the declared outputSchema passes through unchanged (the core checks it)', async function () {
      const r = await pool.call('hostile', 'bad_output', args({}));
      expect(r).to.deep.equal({ isError: false, content: [{ type: 'text', text: '{"count":"many"}' }], structuredContent: { count: 'many' } });
    });

    it('a malformed result and a JSON-RPC error answer protocol; a tool error is a result', async function () {
      const malformed = await rejection(pool.call('hostile', 'malformed', args({})));
      expect(malformed.kind).to.equal('protocol');
      const unknown = await rejection(pool.call('hostile', 'no_such_tool', args({})));
      expect(unknown.kind).to.equal('protocol');
      expect(unknown.message).to.include('unknown tool no_such_tool');
      const r = await pool.call('hostile', 'tool_error', args({}));
      expect(r).to.deep.include({ isError: true });
    });

    it('progress from the hostile server is forwarded in order, with its message', async function () {
      const seen: ProgressUpdate[] = [];
      await pool.call('hostile', 'progress', args({ steps: 4 }, { onProgress: (p) => seen.push(p) }));
      expect(seen).to.deep.equal([1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `step ${i}` })));
    });

    it('a progress flood is cut at maxNotificationsPerSecond before parsing; what passes is in order, and the result arrives', async function () {
      this.timeout(30000);
      const flooded = newPool({ maxNotificationsPerSecond: 50 });
      const seen: number[] = [];
      const r = await flooded.call('hostile', 'progress', args({ steps: 20000 }, { onProgress: (p) => seen.push(p.progress) }));
      expect(text(r)).to.equal('done in 20000 steps');
      expect(seen.length).to.be.greaterThan(0).and.lessThan(20000);
      expect(seen).to.deep.equal([...seen].sort((a, b) => a - b));
      await flooded.close();
    });

    it('count: the server counts each invocation in its file, also one that crashes after counting (no retry here)', async function () {
      this.timeout(30000);
      const n0 = existsSync(hostile.files.count) ? Number(readFileSync(hostile.files.count, 'utf8')) : 0;
      expect((await pool.call('hostile', 'count', args({}))).structuredContent).to.deep.equal({ count: n0 + 1 });
      const err = await rejection(pool.call('hostile', 'count', args({ crash: true })));
      expect(err.kind).to.equal('unavailable');
      expect(err.opts.retryable).to.not.equal(true);
      expect(Number(readFileSync(hostile.files.count, 'utf8'))).to.equal(n0 + 2);
      expect((await pool.call('hostile', 'count', args({}))).structuredContent).to.deep.equal({ count: n0 + 3 });
    });

    it('reconnecting after crashes leaves no listener behind on the pool shutdown signal (bounded by source, not by reconnects)', async function () {
      this.timeout(30000);
      const closing = (pool as unknown as { closing: AbortController }).closing.signal;
      for (let i = 0; i < 12; i++) {
        const err = await rejection(pool.call('hostile', 'crash', args({})));
        expect(err.kind).to.equal('unavailable');
      }
      expect((await pool.call('hostile', 'echo', args({ after: 'crashes' }))).isError).to.equal(false);
      expect(getEventListeners(closing, 'abort').length, 'abort listeners on the pool signal').to.be.at.most(1);
    });

    it('a server that echoes its env secrets (literal and fromEnv) in an error or on stderr: never in an UpstreamError message or the log', async function () {
      this.timeout(30000);
      const e1 = await rejection(pool.call('hostile', 'leak_error', args({})));
      expect(e1.kind).to.equal('protocol');
      expect(e1.message).to.include('upstream refused the credentials');
      const e2 = await rejection(pool.call('hostile', 'leak_exit', args({})));
      expect(e2.kind).to.equal('unavailable');
      expect(e2.message).to.include('fatal: cannot authenticate with');
      for (const e of [e1, e2]) {
        const all = `${e.message} ${String(e.opts.cause ?? '')} ${JSON.stringify(e)}`;
        for (const secret of [LEAK_LITERAL, LEAK_FROM_ENV]) {
          expect(all).not.to.include(secret);
          expect(all).not.to.include(secret.slice(0, 12));
        }
      }
      const log = logs.join('');
      for (const secret of [LEAK_LITERAL, LEAK_FROM_ENV, 'http-header-secret']) expect(log).not.to.include(secret);
    });

    it('a server that quotes its env secrets in a result or a progress message: neither reaches the caller (red team, 2026-12-04)', async function () {
      this.timeout(30000);
      const progress: ProgressUpdate[] = [];
      const r = await pool.call('hostile', 'leak_result', args({}, { onProgress: (p) => progress.push(p) }));
      expect(r.isError).to.equal(true);
      expect(text(r)).to.include('upstream refused the credentials [redacted]');
      expect(text(r), 'the secrets JSON-escaped inside a text').to.include('"LEAK_LITERAL": "[redacted]"');
      expect(r.structuredContent).to.deep.equal({ quoted: '[redacted] [redacted]', '[redacted] [redacted]': 'a key' });
      expect(progress).to.deep.equal([{ progress: 1, total: 1, message: 'authenticating with [redacted] [redacted]' }]);
      const all = JSON.stringify({ r, progress });
      for (const secret of [LEAK_LITERAL, LEAK_FROM_ENV]) expect(all).not.to.include(secret);
    });

    it('close(): a pending call ends unavailable, a new call is refused, the servers exit', async function () {
      this.timeout(30000);
      const p2 = newPool();
      await p2.call('other', 'echo', args({}));
      const pid = Number(readFileSync(other.files.pid, 'utf8'));
      const pending = rejection(p2.call('other', 'hang', args({}, { timeoutMs: 60000 })));
      await until(async () => other.lines(other.files.calls).includes('hang'));
      await p2.close();
      expect((await pending).kind).to.equal('unavailable');
      const refused = await rejection(p2.call('other', 'echo', args({})));
      expect(refused.kind).to.equal('unavailable');
      expect(p2.openSessions()).to.deep.equal([]);
      await until(async () => !alive(pid));
    });
  });
});
