/**
 * The server side of the benchmark, run as a child process (fork of dist/bench/worker.js) so that the load
 * generator (the parent) never shares this event loop. It hosts toolcat (createApp + listen on 127.0.0.1:0)
 * and, on request, the ceiling server: a plain node:http server answering prebuilt bytes. Driven by IPC
 * messages { id, cmd, args } answered with { id, ok, result | error }.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector';
import { type IntervalHistogram, PerformanceObserver, constants, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { type App, createApp } from '../src/app';
import { type Config, type DatabaseConfig, testConfig } from '../src/config/config';
import { cacheLimitsFor } from '../src/config/cache-settings';
import { SearchIndexSync } from '../src/services/search-index-sync.service';
import { DEFAULT_EMBEDDING_SETTINGS } from '../src/config/search-settings';
import { createLogger } from '../src/shared/logger';
import { listingOf } from './catalog-data';
import { type LoadSpec, runLoad } from './loadgen';

export interface InitArgs {
  readonly db: DatabaseConfig;
  readonly syncLimits?: Partial<Config['syncLimits']>;
  readonly poolSize?: number;
  /** Issue 18: turn the optional embedding stage on, against this OpenAI-compatible base URL (the bench's test server). */
  readonly embeddingsUrl?: string;
  /** TOOLCAT_CACHE_MAX_BYTES (issue 21: a whole-catalog tenant's descriptors must fit their layer). */
  readonly cacheBytes?: number;
}

type Handler = (args: never) => Promise<unknown>;

let app: App | null = null;
let url = '';
const ceilings: http.Server[] = [];
let proxyUrl = '';
let proxySession: Record<string, string> = {};
let profiler: Session | null = null;
let gcObserver: PerformanceObserver | null = null;
let gcs: Array<{ major: boolean; ms: number }> = [];
let loopDelay: IntervalHistogram | null = null;

function post<T>(method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => profiler!.post(method, params, (err, res) => (err ? reject(err) : resolve(res as T))));
}

function benchConfig(a: InitArgs): Config {
  const base = testConfig({ db: a.db });
  return {
    ...base,
    migrateOnStart: true,
    logLevel: 'silent',
    syncLimits: { ...base.syncLimits, ...(a.syncLimits ?? {}) },
    ...(a.cacheBytes ? { cache: cacheLimitsFor(a.cacheBytes) } : {}),
    // Far above any load the bench generates: every run would otherwise measure 429s.
    security: { ...base.security, rateLimit: { capacity: 1_000_000_000, refillPerSecond: 1_000_000_000, maxKeys: 100_000 } },
    ...(a.embeddingsUrl ? { search: { embeddings: { ...DEFAULT_EMBEDDING_SETTINGS, baseUrl: a.embeddingsUrl, model: 'hashing-trick', apiKey: null, queryTimeoutMs: 5000 } } } : {}),
  };
}

const handlers: Record<string, Handler> = {
  async init(a: InitArgs) {
    app = await createApp(benchConfig(a));
    url = (await app.listen(0, '127.0.0.1')).url;
    const t = app.services.tenancy;
    const ops = (await t.findTenantByName('ops')) ?? (await t.createTenantUnchecked('ops'));
    const adminKey = (await t.createPrincipalUnchecked(ops.id, 'bench-admin', 'host-admin')).apiKey;
    return { url, adminKey, pid: process.pid };
  },

  /** Applies one simulated source's whole listing (blocks [firstBlock, firstBlock + blocks)) in one snapshot. */
  async apply(a: { source: string; firstBlock: number; blocks: number }) {
    const tools = listingOf(a.firstBlock, a.blocks);
    const t0 = performance.now();
    const out = await app!.services.snapshots.apply(a.source, tools);
    return { ms: performance.now() - t0, ...out };
  },

  /** Issue 18: one simulated source's listing as given (the tool-search corpora), in one snapshot. */
  async applyTools(a: { source: string; tools: unknown[] }) {
    const t0 = performance.now();
    const out = await app!.services.snapshots.apply(a.source, a.tools);
    return { ms: performance.now() - t0, ...out };
  },

  /**
   * Issue 18: the serving index's figures, and a second index built from the stored catalog exactly as at start-up
   * (every stored tool read and indexed), timed, with the heap it retains (gc before and after; --expose-gc).
   */
  async searchIndexFigures() {
    await app!.searchIndex.catchUp();
    const gc = (globalThis as { gc?: () => void }).gc;
    const heap = () => {
      gc?.();
      gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = heap();
    const fresh = new SearchIndexSync(app!.dataSource, app!.generation, createLogger('silent'));
    const t0 = performance.now();
    await fresh.catchUp();
    const buildMs = performance.now() - t0;
    const retained = heap() - before;
    fresh.stop();
    return { tools: fresh.index.size, buildMs, retainedBytes: gc ? retained : null, stats: fresh.index.stats(), serving: app!.searchIndex.index.stats() };
  },

  /** Issue 18: waits until the embedding stage has computed (or loaded) every tool's vector; its counters. */
  async embeddingsSettled() {
    await app!.searchIndex.catchUp();
    await app!.searchIndex.embeddings?.settled();
    return app!.searchIndex.embeddings?.stats() ?? null;
  },

  /** A ceiling: same bytes and headers as GET <path> answered by toolcat, from one prebuilt Buffer. */
  async ceiling(a: { key: string; path: string }) {
    const res = await fetch(url + a.path, { headers: { authorization: `Bearer ${a.key}` } });
    if (res.status !== 200) throw new Error(`ceiling source read answered ${res.status}`);
    const body = Buffer.from(await res.arrayBuffer());
    const etag = res.headers.get('etag') ?? '"x"';
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(body.length),
      ETag: etag,
      'Cache-Control': 'private, no-cache',
      Vary: 'Authorization',
    };
    const ceiling = http.createServer((_req, r) => {
      r.writeHead(200, headers);
      r.end(body);
    });
    ceiling.keepAliveTimeout = 60_000;
    ceilings.push(ceiling);
    await new Promise<void>((resolve) => ceiling.listen(0, '127.0.0.1', resolve));
    const port = (ceiling.address() as { port: number }).port;
    return { url: `http://127.0.0.1:${port}`, bytes: body.length, etag };
  },

  /**
   * Issue 21: a plain node:http server answering what toolcat answers for `paths`, each from a prebuilt Buffer: the
   * same body and headers (ETag, Cache-Control, Vary, Content-Type, X-Request-Id), and the same bodiless `304` when
   * the request's If-None-Match is that ETag. One Map lookup and one header comparison a request, nothing else.
   */
  async plainServer(a: { key: string; paths: string[] }) {
    const answers = new Map<string, { body: Buffer; etag: string; headers: Record<string, string>; notModified: Record<string, string> }>();
    for (const path of a.paths) {
      const res = await fetch(url + path, { headers: { authorization: `Bearer ${a.key}` } });
      if (res.status !== 200) throw new Error(`plain server source read of ${path} answered ${res.status}`);
      const body = Buffer.from(await res.arrayBuffer());
      const etag = res.headers.get('etag') ?? '"x"';
      const notModified = { 'X-Request-Id': res.headers.get('x-request-id') ?? 'x', ETag: etag, 'Cache-Control': 'private, no-cache', Vary: 'Authorization' };
      answers.set(path, { body, etag, notModified, headers: { ...notModified, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(body.length) } });
    }
    const plain = http.createServer((req, r) => {
      const hit = answers.get(req.url ?? '');
      if (!hit) {
        r.writeHead(404).end();
        return;
      }
      if (req.headers['if-none-match'] === hit.etag) {
        r.writeHead(304, hit.notModified).end();
        return;
      }
      r.writeHead(200, hit.headers);
      r.end(hit.body);
    });
    plain.keepAliveTimeout = 60_000;
    ceilings.push(plain);
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(plain.address() as { port: number }).port}` };
  },

  /**
   * Issue 14, the machine's limit for a proxy (scenario n): a plain node:http server that forwards (i)'s request body
   * as the same JSON-RPC `tools/call` to the upstream on an initialized session, over a keep-alive agent with
   * toolcat's agent options, reads the answer (JSON or SSE `data:` lines) and answers what (i) answers: `{ callId,
   * toolId, isError, content }` with a fresh UUID. No identity, decision, argument check, call log, bounds or
   * cancellation: the least any proxy of this exchange does, in the toolcat process (idle while measured). Called
   * again with new session headers, it forwards on that session from then on.
   */
  async plainProxy(a: { upstream: string; headers: Record<string, string>; toolId: string; tool: string }) {
    proxySession = a.headers;
    if (proxyUrl) return { url: proxyUrl };
    const agent = new http.Agent({ keepAlive: true, scheduling: 'lifo', timeout: 5000, noDelay: true });
    const upstream = new URL(a.upstream);
    let seq = 0;
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const args = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { arguments?: unknown }).arguments ?? {};
        const body = JSON.stringify({ jsonrpc: '2.0', id: ++seq, method: 'tools/call', params: { name: a.tool, arguments: args } });
        const up = http.request(upstream, { method: 'POST', agent, headers: { ...proxySession, 'content-length': Buffer.byteLength(body) } }, (answer) => {
          let text = '';
          answer.setEncoding('utf8');
          answer.on('data', (t: string) => (text += t));
          answer.on('end', () => {
            const data = (answer.headers['content-type'] ?? '').includes('text/event-stream') ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5)).filter((l) => l.trim() !== '').pop() ?? '' : text;
            const result = (JSON.parse(data) as { result: { isError?: boolean; content: unknown[] } }).result;
            const out = JSON.stringify({ callId: randomUUID(), toolId: a.toolId, isError: result.isError === true, content: result.content });
            res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(out) });
            res.end(out);
          });
        });
        up.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
        up.end(body);
      });
    });
    proxy.keepAliveTimeout = 60_000;
    ceilings.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    return { url: proxyUrl };
  },

  /** Ends toolcat's call session to `source` (the pool's own drop: DELETE upstream); the next call opens a new one. */
  async dropCallSession(a: { source: string }) {
    await app!.services.callSessions.drop(a.source);
    return true;
  },

  /** The generator inside the server process (for the layout comparison only). */
  async load(spec: LoadSpec) {
    return runLoad(spec);
  },

  /** CPU profile of this process between profileStart and profileStop (only the measured phase). */
  async profileStart() {
    profiler = new Session();
    profiler.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
    return true;
  },

  async profileStop(a: { file: string }) {
    const { profile } = await post<{ profile: unknown }>('Profiler.stop');
    writeFileSync(a.file, JSON.stringify(profile));
    profiler!.disconnect();
    profiler = null;
    return a.file;
  },

  /** GC pauses and event-loop delay between observeStart and observeStop. */
  async observeStart() {
    gcs = [];
    gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcs.push({ major: ((e as unknown as { detail?: { kind?: number } }).detail)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR, ms: e.duration });
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    return true;
  },

  async observeStop() {
    gcObserver?.disconnect();
    loopDelay?.disable();
    const d = loopDelay!;
    const out = {
      gcCount: gcs.length,
      gcMajor: gcs.filter((g) => g.major).length,
      gcTotalMs: gcs.reduce((a, g) => a + g.ms, 0),
      gcMaxMs: gcs.reduce((a, g) => Math.max(a, g.ms), 0),
      loopDelayP50Ms: d.percentile(50) / 1e6,
      loopDelayP99Ms: d.percentile(99) / 1e6,
      loopDelayMaxMs: d.max / 1e6,
    };
    gcObserver = null;
    loopDelay = null;
    return out;
  },

  async cacheStats() {
    return app!.cache.stats();
  },

  /** process.memoryUsage() without a gc first (what is held while a phase runs). */
  async memory() {
    return process.memoryUsage();
  },

  async gc() {
    (globalThis as { gc?: () => void }).gc?.();
    return process.memoryUsage();
  },

  async close() {
    for (const c of ceilings.splice(0)) {
      c.closeAllConnections();
      await new Promise<void>((r) => c.close(() => r()));
    }
    await app?.close();
    app = null;
    return true;
  },
};

process.on('message', (msg: { id: number; cmd: string; args: unknown }) => {
  const h = handlers[msg.cmd];
  const reply = (m: Record<string, unknown>) => process.send?.({ id: msg.id, ...m });
  if (!h) return reply({ ok: false, error: `unknown command ${msg.cmd}` });
  (h as (a: unknown) => Promise<unknown>)(msg.args).then(
    (result) => reply({ ok: true, result }),
    (err: unknown) => reply({ ok: false, error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err) }),
  );
});
process.on('disconnect', () => {
  // The parent is gone: close what we opened and leave.
  void (app?.close() ?? Promise.resolve()).finally(() => process.exit(0));
});
