/**
 * `npm run bench` (issue 6): the catalog's throughput against a ceiling and against the direct MCP path, its
 * growth to 100,000 tools on SQLite and PostgreSQL, and the issue-4 sync figure. Loopback only, bounded in
 * time and requests, starts (and stops) everything it needs. The Markdown report goes to stdout; progress to
 * stderr.
 *
 * Process layout: every server (toolcat, the ceiling, server-everything) runs in a child process; this process
 * is only the client (the load generator and the admin calls), so the generator never shares a server's
 * event loop. The ceiling lives in the same process as toolcat, so the a/e ratio compares like with like.
 *
 *   node dist/bench/run.js [--quick] [--only=a,b,...|throughput|layout|scale|scale-sqlite|scale-postgres|sync|hostile|big-source|hostile-storm|search|whole]
 *                          [--duration=MS] [--warmup=MS] [--concurrency=N] [--rounds=N] [--max-tools=N]
 *                          [--postgres-url=URL] [--no-postgres] [--profile] [--sequential-build] [--full-warm]
 *
 *   --quick             short runs, sizes up to 10,000 (iteration)
 *   --only=...          comma-separated: throughput letters a..g (partners of a ratio come along), or sections
 *   --only=layout       (opt-in) the a/e pair again with the generator inside the server process
 *   --rounds=N          repeat the paired throughput scenarios N times; medians and per-round ratios
 *   --profile           CPU profiles of the toolcat worker for each measured phase (see bench/cpuprofile.ts)
 *   --sequential-build  build SQLite and PostgreSQL one after the other (default: at the same time, reads apart)
 *   --full-warm         at the largest size, list every tenant once and report RSS after that
 */
import { compactionTable, runCompaction } from './compaction';
import { searchSection } from './search-http';
import { type WholeCatalogFigure, wholeCatalog, wholeCatalogSection } from './whole-catalog';
import { type StormFigure, runStorm, stormSection } from './hostile-storm';
import { HOSTILE_SCENARIOS, hostileSection, runHostile } from './hostile';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { BLOCKS_PER_SOURCE, REPO_ROOT, listingOf } from './catalog-data';
import { type Measured, type Options, Gql, get, log, measure, median, onCleanup, parseOptions, profiled, runCleanups, setupAgent, startWorker } from './common';
import { type LoadSpec, type LoadTarget, request } from './loadgen';
import { EVERYTHING_BIN, HOSTILE_BIN, freePort } from '../test/helpers/mcp-servers';
import { type Backend, SAMPLE, type ScaleReport, TENANCY_CONCURRENCY, scaleAll } from './scale';
import { fmt, markdownTable, mb, memoryOf, ratio, sleep } from './stats';

const THROUGHPUT = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n'] as const;
/** Measured again on one connection after each round (issue 14: added latency), in this order. */
const UNLOADED: readonly Scenario[] = ['i', 'n', 'h'];
type Scenario = (typeof THROUGHPUT)[number];

function wants(o: Options, section: string): boolean {
  if (section === 'layout') return o.only?.has('layout') ?? false; // opt-in: --only=layout (alone or with others)
  if (!o.only) return true;
  if (o.only.has(section)) return true;
  if (section === 'throughput') return THROUGHPUT.some((s) => o.only!.has(s));
  if (section === 'scale-sqlite' || section === 'scale-postgres') return o.only.has('scale');
  if (section === 'hostile') return HOSTILE_SCENARIOS.some((h) => o.only!.has(h.id)); // issue 12: --only=hostile or one scenario
  return false;
}

function wantedScenarios(o: Options): Scenario[] {
  if (!o.only || o.only.has('throughput')) return [...THROUGHPUT];
  const picked = THROUGHPUT.filter((s) => o.only!.has(s));
  // A ratio needs its partner: a/e, d/e, g/f.
  const need = new Set<Scenario>(picked);
  if (need.has('a') || need.has('d')) need.add('e');
  if (need.has('d')) need.add('k'); // issue 21: a 304 against a plain server's 304
  if (need.has('c')) need.add('l'); // issue 21: one tool against a plain server's same small body
  if (need.has('g')) need.add('f');
  if (need.has('i')) need.add('n'); // issue 14: the machine's limit for a proxy of the same exchange
  if (need.has('n')) need.add('h');
  if (need.has('m')) need.add('a'); // issue 21: the MCP face's list of the 1,000-tool catalog beside GET /tools of it
  if (need.has('j')) {
    need.add('f');
    need.add('g');
  }
  return THROUGHPUT.filter((s) => need.has(s));
}

// --------------------------------------------------------------------------------------------- plumbing

/** server-everything over Streamable HTTP on a loopback port (its per-request console.log goes to /dev/null). */
async function startEverything(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_BIN, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  onCleanup(() => {
    if (child.exitCode === null) child.kill('SIGTERM');
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start within 20 s')), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      if (String(c).includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** Parses a Streamable HTTP answer: plain JSON, or SSE whose data lines carry JSON-RPC messages. */
function rpcMessages(contentType: string | undefined, text: string): Array<Record<string, unknown>> {
  if ((contentType ?? '').includes('text/event-stream')) {
    return text
      .split('\n')
      .filter((l) => l.startsWith('data:') && l.slice(5).trim() !== '') // the SDK may send an empty priming event
      .map((l) => JSON.parse(l.slice(5).trim()) as Record<string, unknown>);
  }
  return [JSON.parse(text) as Record<string, unknown>];
}

/** One initialized MCP session on server-everything (initialize + notifications/initialized), via fetch. */
async function mcpSession(url: string, extra: Record<string, string> = {}): Promise<{ headers: Record<string, string>; protocolVersion: string }> {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'toolcat-bench', version: '1' } } }),
  });
  const sid = init.headers.get('mcp-session-id');
  const msgs = rpcMessages(init.headers.get('content-type') ?? undefined, await init.text());
  const result = msgs.find((m) => m.id === 0)?.result as { protocolVersion?: string } | undefined;
  if (!sid || !result?.protocolVersion) throw new Error(`MCP initialize failed (${init.status})`);
  const headers = { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': result.protocolVersion };
  const note = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await note.text();
  if (note.status !== 202 && note.status !== 200) throw new Error(`notifications/initialized answered ${note.status}`);
  return { headers, protocolVersion: result.protocolVersion };
}

// ------------------------------------------------------------------------------------------ throughput

interface ThroughputReport {
  readonly rows: Map<Scenario, Measured[]>;
  readonly notes: string[];
  readonly layout: Array<{ scenario: string; where: string; m: Measured }>;
  /** Per round: the req/s ratio and the capacity ratio (inverse ratio of server CPU per request). */
  readonly ratiosByRound: Array<Partial<Record<RatioKey, { rps: number; cpu: number }>>>;
  /** Issue 14: (h), (i) and (n) again on one connection after each round: the latency a call adds below saturation. */
  readonly unloaded: Map<Scenario, Measured[]>;
}

type RatioKey = 'a/e' | 'd/e' | 'd/k' | 'c/l' | 'g/f' | 'i/h' | 'j/g' | 'j/f' | 'm/a' | 'n/h' | 'i/n';

/** Server CPU milliseconds per answered request. */
const cpuMsPerRequest = (m: Measured) => (m.serverCpu * 10) / m.load.rps;

const DESCRIPTIONS: Record<Scenario, string> = {
  a: 'GET /tools, standard view, 1,000 visible tools (warm)',
  b: 'GET /tools?view=compact, 1,000 tools',
  c: 'GET /tools/{toolId} (1,000 ids round-robin)',
  d: 'GET /tools + If-None-Match (304)',
  e: 'ceiling: node:http, same bytes as (a) from one Buffer',
  f: 'direct: MCP tools/list, server-everything, Streamable HTTP',
  g: 'toolcat: GET /tools of the same server-everything tools',
  h: 'direct: MCP tools/call echo, server-everything, Streamable HTTP',
  i: 'toolcat: POST /tools/mcp.everything.echo/calls (the same call through the catalog)',
  j: 'toolcat MCP face: tools/list on /mcp (a session) of the same server-everything tools',
  m: 'toolcat MCP face: tools/list on /mcp (a session) of (a)\'s 1,000 tools (one page)',
  k: 'plain node:http: the same 304 as (d) for the same request (If-None-Match compared)',
  l: 'plain node:http: the same GET /tools/{toolId} bodies as (c) (1,000 ids round-robin)',
  n: 'plain node:http proxy: (i)\'s request forwarded as the same tools/call to server-everything, (i)\'s answer (no identity, decision, check or log)',
};

// The call both (h) and (i) make (issue 14): server-everything's echo with a short message.
const ECHO_ARGUMENTS = '{"message":"hello from the bench"}';

async function throughput(o: Options, scenarios: Scenario[], layout: boolean): Promise<ThroughputReport> {
  const notes: string[] = [];
  const dir = mkdtempSync(join(os.tmpdir(), 'toolcat-bench-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const { worker, stop } = startWorker('throughput');
  const { url, adminKey } = await worker.call<{ url: string; adminKey: string }>('init', { db: { type: 'sqlite', path: join(dir, 'catalog.sqlite') } });
  const gql = new Gql(url, adminKey);

  log('throughput: loading 1,000 tools (source "cat", one snapshot) and a tenant that sees all of them');
  await gql.simulatedSource('cat');
  const applied = await worker.call<{ ms: number; served: number; quarantined: number }>('apply', { source: 'cat', firstBlock: 0, blocks: BLOCKS_PER_SOURCE });
  if (applied.quarantined) notes.push(`${applied.quarantined} of the 1,000 generated tools were quarantined by the ingest gate (not served).`);
  const reader = await gql.tenantWithGrant('reader', 'mcp.cat.*');

  const list = await get(`${url}/tools`, reader.key);
  if (list.status !== 200) throw new Error(`GET /tools answered ${list.status}`);
  const ids = (JSON.parse(list.body.toString('utf8')) as Array<{ toolId: string }>).map((d) => d.toolId);
  const etag = String(list.headers.etag ?? '');
  notes.push(`(a) body: ${ids.length} descriptors, ${list.body.length.toLocaleString('en-US')} bytes, ETag ${etag}.`);
  const compact = await get(`${url}/tools?view=compact`, reader.key);
  const compactCount = (JSON.parse(compact.body.toString('utf8')) as { tools?: unknown[] }).tools?.length;
  if (compact.status !== 200 || compactCount !== ids.length) throw new Error(`compact view answered ${compact.status} with ${compactCount} tools`);
  notes.push(`(b) body: ${compactCount} compact descriptors, ${compact.body.length.toLocaleString('en-US')} bytes.`);
  const revalidated = await get(`${url}/tools`, reader.key, { 'if-none-match': etag });
  if (revalidated.status !== 304) throw new Error(`If-None-Match answered ${revalidated.status}`);

  let everything: { url: string; child: ChildProcess } | null = null;
  let direct: { key: string; toolCount: number } | null = null;
  let mcp: { headers: Record<string, string> } | null = null;
  const fRss: number[] = [];
  let face: { headers: Record<string, string> } | null = null;
  let proxied: { headers: Record<string, string> } | null = null;
  let proxy: { url: string } | null = null;
  if (scenarios.some((x) => x === 'f' || x === 'g' || x === 'h' || x === 'i' || x === 'j' || x === 'n')) {
    log('throughput: starting server-everything (Streamable HTTP) and syncing it into toolcat');
    everything = await startEverything();
    await gql.run('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
      i: { name: 'everything', transport: 'http', url: { value: everything.url }, syncIntervalSeconds: 0 },
    });
    const sync = await gql.run<{ syncSource: { status: string; toolCount: number; error: string | null } }>(
      'mutation { syncSource(name: "everything") { status toolCount error } }',
    );
    if (sync.syncSource.status !== 'ok') throw new Error(`syncSource(everything): ${sync.syncSource.status} ${sync.syncSource.error}`);
    const d = await gql.tenantWithGrant('direct', 'mcp.everything.*');
    const viaToolcat = JSON.parse((await get(`${url}/tools`, d.key)).body.toString('utf8')) as Array<{ name: string }>;
    mcp = await mcpSession(everything.url);
    const listed = await fetch(everything.url, { method: 'POST', headers: mcp.headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    const listedMsgs = rpcMessages(listed.headers.get('content-type') ?? undefined, await listed.text());
    const upstream = ((listedMsgs.find((m) => m.id === 1)?.result as { tools?: Array<{ name: string }> }) ?? {}).tools ?? [];
    const same = JSON.stringify(upstream.map((t) => t.name).sort()) === JSON.stringify(viaToolcat.map((t) => t.name).sort());
    notes.push(
      `(f)/(g): server-everything lists ${upstream.length} tools on a fresh session; toolcat serves ${viaToolcat.length} of them` +
        ` (${same ? 'the same names' : 'DIFFERENT names'}); tools/list answers as ${listed.headers.get('content-type')}.`,
    );
    direct = { key: d.key, toolCount: viaToolcat.length };
    if (scenarios.includes('j')) {
      // Issue 15: the same tools through the MCP face, on one initialized session as (f) uses upstream.
      face = await mcpSession(`${url}/mcp`, { authorization: `Bearer ${d.key}` });
      const viaFace = await fetch(`${url}/mcp`, { method: 'POST', headers: face.headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
      const faceTools = ((rpcMessages(viaFace.headers.get('content-type') ?? undefined, await viaFace.text()).find((m) => m.id === 1)?.result as { tools?: unknown[] }) ?? {}).tools ?? [];
      if (faceTools.length !== viaToolcat.length) throw new Error(`(j) the MCP face listed ${faceTools.length} tools, GET /tools ${viaToolcat.length}`);
      notes.push(`(j): the MCP face lists the same ${faceTools.length} tools as (g) (mapped to MCP Tools: host hints, _meta with toolId and classification), answering as ${viaFace.headers.get('content-type')}.`);
    }
    if (scenarios.includes('n')) {
      // Issue 14: the plain proxy (n) on a session of its own, answering what toolcat answers for the same call.
      proxied = await mcpSession(everything.url);
      proxy = await worker.call<{ url: string }>('plainProxy', { upstream: everything.url, headers: proxied.headers, toolId: 'mcp.everything.echo', tool: 'echo' });
      const viaProxy = await fetch(`${proxy.url}/tools/mcp.everything.echo/calls`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"arguments":${ECHO_ARGUMENTS}}` });
      const viaToolcatCall = await fetch(`${url}/tools/mcp.everything.echo/calls`, { method: 'POST', headers: { authorization: `Bearer ${d.key}`, 'content-type': 'application/json' }, body: `{"arguments":${ECHO_ARGUMENTS}}` });
      const [p, t] = [(await viaProxy.json()) as { content?: unknown; callId?: string }, (await viaToolcatCall.json()) as { content?: unknown; callId?: string }];
      if (viaProxy.status !== 200 || JSON.stringify(p.content) !== JSON.stringify(t.content) || JSON.stringify({ ...p, callId: '' }).length !== JSON.stringify({ ...t, callId: '' }).length) {
        throw new Error(`(n) the plain proxy answered ${viaProxy.status} ${JSON.stringify(p)}, toolcat ${JSON.stringify(t)}`);
      }
      notes.push(`(n): a plain node:http proxy in the toolcat process (idle while measured) forwards (i)'s body as the same tools/call on a session of its own and answers the same shape and length as (i) (checked: ${JSON.stringify(p.content)}).`);
    }
  }

  let big: { headers: Record<string, string> } | null = null;
  if (scenarios.includes('m')) {
    // Issue 21: (a)'s catalog through the MCP face, one page of 1,000 tools (the default page size), on a session.
    big = await mcpSession(`${url}/mcp`, { authorization: `Bearer ${reader.key}` });
    const page = await fetch(`${url}/mcp`, { method: 'POST', headers: big.headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) });
    const bigTools = ((rpcMessages(page.headers.get('content-type') ?? undefined, await page.text()).find((m) => m.id === 1)?.result as { tools?: unknown[]; nextCursor?: string }) ?? {}).tools ?? [];
    if (bigTools.length !== ids.length) throw new Error(`(m) the MCP face listed ${bigTools.length} tools on its first page, GET /tools ${ids.length}`);
    notes.push(`(m): the MCP face lists (a)'s ${bigTools.length} tools in one page, answering as ${page.headers.get('content-type')}.`);
  }

  let ceiling: { url: string; bytes: number } | null = null;
  if (scenarios.includes('e')) {
    ceiling = await worker.call<{ url: string; bytes: number; etag: string }>('ceiling', { key: reader.key, path: '/tools' });
    const check = await request(`${ceiling.url}/tools`, { agent: setupAgent });
    if (!check.body.equals(list.body)) throw new Error('the ceiling does not answer the same bytes as (a)');
    notes.push(`(e) serves the identical ${ceiling.bytes.toLocaleString('en-US')} bytes (checked) with the same ETag/Cache-Control/Vary headers, from the toolcat process (idle while measured).`);
  }

  let plain: { url: string } | null = null;
  if (scenarios.includes('k') || scenarios.includes('l')) {
    // Issue 21: the partner of (d) and (c), answering the same status, headers and bytes from prebuilt Buffers.
    plain = await worker.call<{ url: string }>('plainServer', { key: reader.key, paths: ['/tools', ...ids.map((id) => `/tools/${id}`)] });
    const notModified = await request(`${plain.url}/tools`, { agent: setupAgent, headers: { 'if-none-match': etag } });
    if (notModified.status !== 304) throw new Error(`the plain server answered (d)'s request with ${notModified.status}`);
    const one = await get(`${url}/tools/${ids[0]}`, reader.key);
    const plainOne = await request(`${plain.url}/tools/${ids[0]}`, { agent: setupAgent });
    if (!plainOne.body.equals(one.body)) throw new Error('the plain server does not answer the same bytes as (c)');
    notes.push(`(k)/(l): a plain node:http server in the toolcat process (idle while measured) answering (d)'s 304 and (c)'s ${ids.length.toLocaleString('en-US')} bodies (${one.body.length.toLocaleString('en-US')} bytes for the first, checked) with the same headers.`);
  }

  const auth = { authorization: `Bearer ${reader.key}` };
  const base = { concurrency: o.concurrency, warmupMs: o.warmupMs, durationMs: o.durationMs, maxRequests: o.maxRequests };
  const specs: Record<Scenario, () => { spec: LoadSpec; pid: number }> = {
    a: () => ({ pid: worker.pid, spec: { ...base, baseUrl: url, targets: [{ path: '/tools', headers: auth }], expectStatus: 200 } }),
    b: () => ({ pid: worker.pid, spec: { ...base, baseUrl: url, targets: [{ path: '/tools?view=compact', headers: auth }], expectStatus: 200 } }),
    c: () => ({ pid: worker.pid, spec: { ...base, baseUrl: url, targets: ids.map((id): LoadTarget => ({ path: `/tools/${id}`, headers: auth })), expectStatus: 200 } }),
    d: () => ({ pid: worker.pid, spec: { ...base, baseUrl: url, targets: [{ path: '/tools', headers: { ...auth, 'if-none-match': etag } }], expectStatus: 304 } }),
    e: () => ({ pid: worker.pid, spec: { ...base, baseUrl: ceiling!.url, targets: [{ path: '/tools', headers: auth }], expectStatus: 200 } }),
    f: () => ({
      pid: everything!.child.pid!,
      spec: {
        ...base,
        baseUrl: new URL(everything!.url).origin,
        targets: [{ method: 'POST', path: '/mcp', headers: mcp!.headers, body: '{"jsonrpc":"2.0","id":__SEQ__,"method":"tools/list","params":{}}' }],
        expectStatus: 200,
      },
    }),
    g: () => ({ pid: worker.pid, spec: { ...base, baseUrl: url, targets: [{ path: '/tools', headers: { authorization: `Bearer ${direct!.key}` } }], expectStatus: 200 } }),
    h: () => ({
      pid: everything!.child.pid!,
      spec: {
        ...base,
        baseUrl: new URL(everything!.url).origin,
        targets: [{ method: 'POST', path: '/mcp', headers: mcp!.headers, body: `{"jsonrpc":"2.0","id":__SEQ__,"method":"tools/call","params":{"name":"echo","arguments":${ECHO_ARGUMENTS}}}` }],
        expectStatus: 200,
      },
    }),
    j: () => ({
      pid: worker.pid,
      spec: { ...base, baseUrl: url, targets: [{ method: 'POST', path: '/mcp', headers: face!.headers, body: '{"jsonrpc":"2.0","id":__SEQ__,"method":"tools/list","params":{}}' }], expectStatus: 200 },
    }),
    m: () => ({
      pid: worker.pid,
      spec: { ...base, baseUrl: url, targets: [{ method: 'POST', path: '/mcp', headers: big!.headers, body: '{"jsonrpc":"2.0","id":__SEQ__,"method":"tools/list","params":{}}' }], expectStatus: 200 },
    }),
    k: () => ({ pid: worker.pid, spec: { ...base, baseUrl: plain!.url, targets: [{ path: '/tools', headers: { ...auth, 'if-none-match': etag } }], expectStatus: 304 } }),
    l: () => ({ pid: worker.pid, spec: { ...base, baseUrl: plain!.url, targets: ids.map((id): LoadTarget => ({ path: `/tools/${id}`, headers: auth })), expectStatus: 200 } }),
    n: () => ({ pid: worker.pid, spec: { ...base, baseUrl: proxy!.url, targets: [{ method: 'POST', path: '/tools/mcp.everything.echo/calls', headers: { 'content-type': 'application/json' }, body: `{"arguments":${ECHO_ARGUMENTS}}` }], expectStatus: 200 } }),
    i: () => ({
      pid: worker.pid,
      spec: {
        ...base,
        baseUrl: url,
        targets: [{ method: 'POST', path: '/tools/mcp.everything.echo/calls', headers: { authorization: `Bearer ${direct!.key}`, 'content-type': 'application/json' }, body: `{"arguments":${ECHO_ARGUMENTS}}` }],
        expectStatus: 200,
      },
    }),
  };

  // Paired scenarios run back to back: a e d k (e sits next to both a and d), then b, c l, then g f.
  const order: Scenario[] = (['a', 'm', 'e', 'd', 'k', 'b', 'c', 'l', 'g', 'f', 'j', 'i', 'n', 'h'] as Scenario[]).filter((s) => scenarios.includes(s));
  if (scenarios.includes('i')) {
    // The call works through toolcat and answers what the server answers directly.
    const viaToolcat = await fetch(`${url}/tools/mcp.everything.echo/calls`, { method: 'POST', headers: { authorization: `Bearer ${direct!.key}`, 'content-type': 'application/json' }, body: `{"arguments":${ECHO_ARGUMENTS}}` });
    const body = (await viaToolcat.json()) as { content?: Array<{ text?: string }> };
    if (viaToolcat.status !== 200) throw new Error(`(i) the call through toolcat answered ${viaToolcat.status}: ${JSON.stringify(body)}`);
    notes.push(`(h)/(i): echo answers ${JSON.stringify(body.content?.[0]?.text)} through toolcat; (i) includes the decision (the catalog's own read), argument validation, the call log row (start and finish) and the upstream MCP session toolcat keeps per source.`);
  }
  const rows = new Map<Scenario, Measured[]>();
  const ratiosByRound: ThroughputReport['ratiosByRound'] = [];
  const unloaded = new Map<Scenario, Measured[]>();
  /**
   * server-everything keeps every response of a session in an in-memory event store (resumability): the scenarios
   * that talk to it get a fresh session before each measurement after the first, so one phase's growth does not slow
   * the next. (f) and (h) share the bench's own session, (n) has the plain proxy's, and toolcat's pool drops its own
   * (ending it upstream with DELETE), so (i)'s next call opens a new one.
   */
  const freshSession = async (s: Scenario): Promise<void> => {
    if (s === 'f' || s === 'h') {
      await (await fetch(everything!.url, { method: 'DELETE', headers: mcp!.headers })).text(); // end the old session
      mcp = await mcpSession(everything!.url);
    } else if (s === 'n') {
      await (await fetch(everything!.url, { method: 'DELETE', headers: proxied!.headers })).text();
      proxied = await mcpSession(everything!.url);
      await worker.call('plainProxy', { upstream: everything!.url, headers: proxied.headers, toolId: 'mcp.everything.echo', tool: 'echo' });
    } else if (s === 'i') await worker.call('dropCallSession', { source: 'everything' });
  };
  for (const s of order) {
    // A discarded pass of each scenario first: round 1 otherwise measured paths still cold (a check request each), and
    // its ratios stood apart from every later round's (i/h ~0.35 where later rounds gave 0.5-0.6; a/e 0.66 against 0.85-0.97).
    const { spec, pid } = specs[s]();
    log(`throughput warm-up pass (not measured): (${s})`);
    await measure({ ...spec, warmupMs: 0, durationMs: Math.max(2 * o.warmupMs, 1000) }, pid);
  }
  for (let round = 1; round <= o.rounds; round++) {
    const thisRound: Partial<Record<Scenario, Measured>> = {};
    for (const s of order) {
      if (round > 1 && s === 'b') continue; // unpaired: once is enough
      if (round > 1) await freshSession(s);
      const { spec, pid } = specs[s]();
      log(`throughput round ${round}/${o.rounds}: (${s}) ${DESCRIPTIONS[s]}`);
      const m = pid === worker.pid ? await profiled(o, worker, `throughput-${s}-round${round}`, () => measure(spec, pid)) : await measure(spec, pid);
      if (s === 'f') fRss.push(memoryOf(pid).rss);
      thisRound[s] = m;
      rows.set(s, [...(rows.get(s) ?? []), m]);
    }
    for (const s of UNLOADED.filter((x) => scenarios.includes(x))) {
      // A fresh upstream session for the one-connection phase as well: after the saturated runs the three sessions
      // held different numbers of stored events ((h), the fastest, the most).
      await freshSession(s);
      // Issue 14's added latency below saturation: at --concurrency connections a closed loop's p50 is about
      // connections / throughput, so i − h there restates the throughput ratio. On one connection nothing queues:
      // the difference is what toolcat's work and its extra hop add to each call.
      const { spec, pid } = specs[s]();
      log(`latency round ${round}/${o.rounds}: (${s}) on 1 connection`);
      const oneConnection = { ...spec, concurrency: 1, warmupMs: o.latWarmupMs, durationMs: o.latDurationMs };
      const m = pid === worker.pid ? await profiled(o, worker, `latency-${s}-round${round}`, () => measure(oneConnection, pid)) : await measure(oneConnection, pid);
      unloaded.set(s, [...(unloaded.get(s) ?? []), m]);
    }
    const r = (x?: Measured, y?: Measured) => (x && y ? { rps: ratio(x.load.rps, y.load.rps), cpu: ratio(cpuMsPerRequest(y), cpuMsPerRequest(x)) } : undefined);
    ratiosByRound.push({ 'a/e': r(thisRound.a, thisRound.e), 'd/e': r(thisRound.d, thisRound.e), 'd/k': r(thisRound.d, thisRound.k), 'c/l': r(thisRound.c, thisRound.l), 'g/f': r(thisRound.g, thisRound.f), 'i/h': r(thisRound.i, thisRound.h), 'j/g': r(thisRound.j, thisRound.g), 'j/f': r(thisRound.j, thisRound.f), 'm/a': r(thisRound.m, thisRound.a), 'n/h': r(thisRound.n, thisRound.h), 'i/n': r(thisRound.i, thisRound.n) });
  }

  const layoutRows: ThroughputReport['layout'] = [];
  if (layout && ceiling) {
    // The same a/e pair with the generator inside the server process, to show what sharing the loop costs.
    for (const s of ['a', 'e'] as const) {
      const { spec, pid } = specs[s]();
      log(`layout: (${s}) with the generator inside the server process`);
      layoutRows.push({ scenario: s, where: 'generator in the server process', m: await measure(spec, pid, worker) });
      log(`layout: (${s}) with the generator in its own process`);
      layoutRows.push({ scenario: s, where: 'generator in its own process', m: await measure(spec, pid) });
    }
  }

  const stats = await worker.call<Record<string, number>>('cacheStats');
  notes.push(`toolcat cache after the runs: ${JSON.stringify(stats)}.`);
  if (fRss.length) {
    notes.push(
      `server-everything RSS after each (f) run: ${fRss.map((x) => `${mb(x)} MB`).join(', ')} (it stores every response of a session in an in-memory event store; each round uses a fresh session and ends the previous one). ` +
        'It also console.logs every request (to /dev/null here).',
    );
  }
  await stop();
  if (everything?.child.exitCode === null) everything.child.kill('SIGTERM');
  await removeDir();
  return { rows, notes, layout: layoutRows, ratiosByRound, unloaded };
}

// ------------------------------------------------------------------------------------------ issue 4

interface SyncFigure {
  readonly tools: number;
  readonly pageSize: number;
  readonly status: string;
  readonly toolCount: number;
  readonly wallMs: number;
  readonly reportedMs: number;
  readonly resyncMs: number;
  readonly rssBefore: number;
  readonly peakSampled: number;
  readonly hwmBefore: number;
  readonly hwmAfter: number;
  readonly rssAfter: number;
}

async function syncFigure(): Promise<SyncFigure> {
  const dir = mkdtempSync(join(os.tmpdir(), 'toolcat-bench-sync-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const toolsFile = join(dir, 'tools.json');
  const tools = listingOf(0, 10);
  writeFileSync(toolsFile, JSON.stringify(tools));
  const pageSize = 100;
  const { worker, stop } = startWorker('sync');
  const { url, adminKey } = await worker.call<{ url: string; adminKey: string }>('init', { db: { type: 'sqlite', path: join(dir, 'catalog.sqlite') } });
  const gql = new Gql(url, adminKey);
  await gql.run('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
    i: {
      name: 'big', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0,
      env: [{ name: 'HOSTILE_TOOLS_FILE', value: toolsFile }, { name: 'HOSTILE_PAGE_SIZE', value: String(pageSize) }],
    },
  });
  await sleep(300);
  const before = memoryOf(worker.pid);
  let peak = before.rss;
  const sampler = setInterval(() => {
    const m = memoryOf(worker.pid);
    if (m.rss > peak) peak = m.rss;
  }, 5);
  const q = 'mutation { syncSource(name: "big") { status toolCount durationMs error } }';
  type R = { syncSource: { status: string; toolCount: number; durationMs: number; error: string | null } };
  const t0 = performance.now();
  const r = await gql.run<R>(q);
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  const after = memoryOf(worker.pid);
  if (r.syncSource.error) log(`  sync error: ${r.syncSource.error}`);
  const t1 = performance.now();
  await gql.run<R>(q);
  const resyncMs = performance.now() - t1;
  await stop();
  await removeDir();
  return {
    tools: tools.length, pageSize, status: r.syncSource.status, toolCount: r.syncSource.toolCount, wallMs, reportedMs: r.syncSource.durationMs, resyncMs,
    rssBefore: before.rss, peakSampled: Math.max(peak, after.rss), hwmBefore: before.hwm, hwmAfter: after.hwm, rssAfter: after.rss,
  };
}

// --------------------------------------------------------------------------------------------- report

function header(o: Options, argv: readonly string[]): string {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  };
  const dirty = git(['status', '--porcelain']).split('\n').filter(Boolean).length;
  const cmd = process.env.npm_lifecycle_event === 'bench' ? `npm run bench${argv.length ? ` -- ${argv.join(' ')}` : ''}` : `node dist/bench/run.js ${argv.join(' ')}`.trim();
  const cpus = os.cpus();
  return [
    '## toolcat benchmark (issue 6)',
    '',
    `- command: \`${cmd}\``,
    `- node ${process.version}, ${os.platform()} ${os.release()}, ${cpus.length} CPUs (${cpus[0]?.model ?? '?'}), ${mb(os.totalmem())} MB RAM, load average at start ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
    `- commit ${git(['rev-parse', '--short', 'HEAD'])}${dirty ? ` + ${dirty} uncommitted paths` : ''}; started ${new Date().toISOString()}`,
    `- throughput: ${o.concurrency} keep-alive TCP connections (closed loop; responses framed and counted, never parsed), ${o.warmupMs} ms warm-up + ${o.durationMs} ms measured per scenario, ${o.rounds} round(s); all on 127.0.0.1`,
    `- latency at scale: 1 connection, ${o.latWarmupMs} ms warm-up + ${o.latDurationMs} ms; sizes ${o.sizes.map((s) => s.toLocaleString('en-US')).join(' → ')} tools`,
    '- servers (toolcat, the ceiling, server-everything) run in child processes; this process only generates load. CPU % = percent of one core over warm-up + measurement.',
    ...(o.profileDir ? [`- --profile: the toolcat worker was CPU-profiled during each measured phase (which slows it: do not compare these numbers); profiles in ${o.profileDir} (summarise with \`node dist/bench/cpuprofile.js FILE\`)`] : []),
  ].join('\n');
}

const RATIO_TARGETS: Array<[RatioKey, number, string]> = [
  ['a/e', 0.9, 'standard list vs the ceiling (issue 21: 0.9)'],
  ['d/e', 0.8, '304 revalidation vs the ceiling'],
  ['d/k', 0.35, '304 revalidation vs a plain server answering the same 304 (issue 21)'],
  ['c/l', 0.3, 'GET /tools/{toolId} vs a plain server sending the same small body (issue 21)'],
  ['g/f', 3, 'toolcat vs the direct MCP tools/list'],
  ['i/h', 0.8, 'a call through toolcat vs the same call sent directly to the MCP server (issue 14)'],
  ['j/g', 0.5, 'MCP face tools/list vs GET /tools of the same tools (issue 15)'],
  ['j/f', 3, 'MCP face tools/list vs the direct upstream tools/list (issue 15)'],
];

function throughputSection(t: ThroughputReport): string {
  const out: string[] = ['### Throughput (paired scenarios run back to back)', ''];
  const rows: string[][] = [];
  for (const s of THROUGHPUT) {
    const ms = t.rows.get(s);
    if (!ms) continue;
    const med = (f: (m: Measured) => number) => median(ms.map(f));
    const errors = ms.reduce((a, m) => a + m.load.errors, 0);
    rows.push([
      s, DESCRIPTIONS[s], fmt(med((m) => m.load.bytesPerResponse)), fmt(med((m) => m.load.rps)), fmt(med((m) => m.load.latency.p50), 2), fmt(med((m) => m.load.latency.p99), 2),
      fmt(med((m) => m.serverCpu), 0), fmt(med(cpuMsPerRequest), 3), fmt(med((m) => m.clientCpu), 0), String(ms.reduce((a, m) => a + m.load.requests, 0)), String(errors),
    ]);
  }
  out.push(markdownTable(['#', 'scenario', 'bytes/resp', 'req/s', 'p50 ms', 'p99 ms', 'server CPU %', 'server CPU ms/req', 'generator CPU %', 'requests', 'errors'], rows));
  out.push(
    '',
    'CPU % is of one core (a process can pass 100: GC and kernel threads). A row whose generator is near 100 % was limited by the generator, not the server: its req/s understates ' +
      'what the server can do. The capacity ratio below (inverse ratio of server CPU per request) does not depend on who saturated first.',
  );
  if (t.rows.size && (t.rows.get('a')?.length ?? 0) > 1) out.push('', 'Values are medians over the rounds; ratios below are per round (each from its back-to-back pair), then their median.');
  out.push('');
  const ratioRows: string[][] = [];
  for (const [k, target, what] of RATIO_TARGETS) {
    const vals = t.ratiosByRound.map((r) => r[k]).filter((v): v is { rps: number; cpu: number } => v !== undefined && Number.isFinite(v.rps));
    if (!vals.length) continue;
    const m = median(vals.map((v) => v.rps));
    const c = median(vals.map((v) => v.cpu));
    ratioRows.push([
      k, what, vals.map((v) => fmt(v.rps, 2)).join(', '), fmt(m, 2), `≥ ${target}`, m >= target ? 'met' : '**not met**',
      vals.map((v) => fmt(v.cpu, 2)).join(', '), c >= target ? 'met' : '**not met**',
    ]);
  }
  if (ratioRows.length) out.push(markdownTable(['ratio', 'meaning', 'req/s ratio per round', 'median', 'target', 'by req/s', 'capacity ratio per round', 'by capacity'], ratioRows), '');
  const ma = t.ratiosByRound.map((r) => r['m/a']).filter((v): v is { rps: number; cpu: number } => v !== undefined && Number.isFinite(v.rps));
  if (ma.length) {
    // Issue 21: no target of its own; it shows what a large page costs the face beside the REST list of the same tools.
    out.push(`- m/a (the MCP face's 1,000-tool page vs GET /tools of the same catalog; no target): by req/s ${ma.map((v) => fmt(v.rps, 2)).join(', ')} (median ${fmt(median(ma.map((v) => v.rps)), 2)}), by capacity ${ma.map((v) => fmt(v.cpu, 2)).join(', ')} (median ${fmt(median(ma.map((v) => v.cpu)), 2)}).`, '');
  }
  for (const [k, what] of [
    ['n/h', 'a plain node:http proxy of the same call vs the direct call: what any proxy costs on this machine, no target'],
    ['i/n', 'a call through toolcat vs the plain proxy of it: what toolcat adds to a proxy, no target'],
  ] as const) {
    // Issue 14: the machine's limit for the exchange (i) makes, beside i/h (DEVELOPERS.md: ratios against the machine's limit and the direct path).
    const v = t.ratiosByRound.map((r) => r[k]).filter((x): x is { rps: number; cpu: number } => x !== undefined && Number.isFinite(x.rps));
    if (v.length) out.push(`- ${k} (${what}): by req/s ${v.map((x) => fmt(x.rps, 2)).join(', ')} (median ${fmt(median(v.map((x) => x.rps)), 2)}), by capacity ${v.map((x) => fmt(x.cpu, 2)).join(', ')} (median ${fmt(median(v.map((x) => x.cpu)), 2)}).`);
  }
  if (t.ratiosByRound.some((r) => r['n/h'])) out.push('');
  const h = t.rows.get('h');
  const i = t.rows.get('i');
  if (h && i) {
    // At saturation: queueing, no target (issue 14's < 1 ms is for the one-connection figures below).
    const med = (ms: Measured[], f: (m: Measured) => number) => median(ms.map(f));
    const p50 = med(i, (m) => m.load.latency.p50) - med(h, (m) => m.load.latency.p50);
    const p99 = med(i, (m) => m.load.latency.p99) - med(h, (m) => m.load.latency.p99);
    out.push(`Added latency of a call through toolcat at saturation (i − h, medians, the same ${i[0].load.requests > 0 ? 'concurrency' : ''}; mostly queueing, so it restates the throughput ratio): p50 ${fmt(p50, 2)} ms, p99 ${fmt(p99, 2)} ms.`, '');
  }
  const uh = t.unloaded.get('h');
  const ui = t.unloaded.get('i');
  if (uh && ui) {
    const un = t.unloaded.get('n');
    const rows = (['h', 'n', 'i'] as const).flatMap((s) => {
      const ms = t.unloaded.get(s);
      return ms ? [[s, DESCRIPTIONS[s], ms.map((m) => fmt(m.load.latency.p50, 3)).join(', '), fmt(median(ms.map((m) => m.load.latency.p50)), 3), fmt(median(ms.map((m) => m.load.latency.p99)), 3), fmt(median(ms.map((m) => m.load.rps)))]] : [];
    });
    out.push('#### Latency on one connection (issue 14: what a call adds when nothing queues)', '', markdownTable(['#', 'scenario', 'p50 ms per round', 'p50 ms', 'p99 ms', 'req/s'], rows), '');
    // Per round, each (i) against the (h) measured beside it; then the median of those differences.
    const added = (q: 'p50' | 'p99', a: Measured[], b: Measured[]) => median(a.map((m, k) => m.load.latency[q] - b[k].load.latency[q]));
    const p50 = added('p50', ui, uh);
    out.push(
      `Added latency of a call through toolcat on one connection (i − h per round, median): p50 ${fmt(p50, 3)} ms (target < 1 ms: ${p50 < 1 ? 'met' : '**not met**'}), p99 ${fmt(added('p99', ui, uh), 3)} ms` +
        (un ? `; a plain node:http proxy adds (n − h) p50 ${fmt(added('p50', un, uh), 3)} ms, so toolcat's own work is (i − n) p50 ${fmt(added('p50', ui, un), 3)} ms.` : '.'),
      '',
    );
  }
  if (t.layout.length) {
    out.push('#### Where the generator runs (same a/e pair, back to back)', '');
    out.push(
      markdownTable(
        ['#', 'generator', 'req/s', 'p50 ms', 'p99 ms', 'server-process CPU %'],
        t.layout.map((l) => [l.scenario, l.where, fmt(l.m.load.rps), fmt(l.m.load.latency.p50, 2), fmt(l.m.load.latency.p99, 2), fmt(l.m.serverCpu, 0)]),
      ),
    );
    const by = (s: string, w: string) => t.layout.find((l) => l.scenario === s && l.where.includes(w))?.m.load.rps ?? NaN;
    out.push('', `a/e with the generator in the server process: ${fmt(ratio(by('a', 'server'), by('e', 'server')), 2)}; in its own process: ${fmt(ratio(by('a', 'own'), by('e', 'own')), 2)}.`, '');
  }
  out.push(...t.notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

function growth(a: number, b: number): string {
  const r = ratio(b, a);
  return Number.isFinite(r) ? `×${fmt(r, 1)}` : 'n/a';
}

function scaleSection(s: ScaleReport): string {
  const out: string[] = [`### Scale on ${s.backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (~100 tools per tenant)`, ''];
  if (s.error) out.push(`**Incomplete: ${s.error}**`, '');
  out.push(
    markdownTable(
      ['tools', 'tenants', 'build (cumulative) s', 'this step: tools s / tenants s', 'first list p50/p99 ms', 'warm list p50/p99 ms', 'get p50/p99 ms', 're-list after a change p50/p99 ms', 'RSS MB (peak)'],
      s.steps.map((x) => [
        x.tools.toLocaleString('en-US'),
        x.tenants.toLocaleString('en-US'),
        fmt(x.buildMs / 1000),
        `${fmt(x.toolsMs / 1000)} / ${fmt(x.tenancyMs / 1000)}`,
        `${fmt(x.firstList.p50, 2)} / ${fmt(x.firstList.p99, 2)}`,
        `${fmt(x.warmList.load.latency.p50, 2)} / ${fmt(x.warmList.load.latency.p99, 2)}`,
        `${fmt(x.warmGet.load.latency.p50, 2)} / ${fmt(x.warmGet.load.latency.p99, 2)}`,
        `${fmt(x.relist.p50, 2)} / ${fmt(x.relist.p99, 2)}`,
        `${mb(x.rss)} (${mb(x.hwm)})`,
      ]),
    ),
  );
  if (s.steps.length > 1) {
    out.push('', 'Growth (ratio of the larger size to the smaller; ×10 tools each step, linear growth would be ×10 for build time and ×1 for per-request latency):', '');
    const rows: string[][] = [];
    for (let i = 1; i < s.steps.length; i++) {
      const a = s.steps[i - 1];
      const b = s.steps[i];
      rows.push([
        `${b.tools / 1000}k / ${a.tools / 1000}k`, growth(a.buildMs, b.buildMs), growth(a.toolsMs / a.tools, b.toolsMs / (b.tools - a.tools)),
        `${growth(a.firstList.p50, b.firstList.p50)} / ${growth(a.firstList.p99, b.firstList.p99)}`,
        `${growth(a.warmList.load.latency.p50, b.warmList.load.latency.p50)} / ${growth(a.warmList.load.latency.p99, b.warmList.load.latency.p99)}`,
        `${growth(a.warmGet.load.latency.p50, b.warmGet.load.latency.p50)} / ${growth(a.warmGet.load.latency.p99, b.warmGet.load.latency.p99)}`,
        `${growth(a.relist.p50, b.relist.p50)} / ${growth(a.relist.p99, b.relist.p99)}`,
        growth(a.rss, b.rss),
      ]);
    }
    out.push(markdownTable(['sizes', 'build', 'tool load per tool', 'first list p50/p99', 'warm list p50/p99', 'get p50/p99', 're-list p50/p99', 'RSS'], rows));
  }
  out.push(
    '',
    'GC pauses and event-loop delay inside toolcat during each warm get run (event-loop delay is timer-based with 1 ms resolution: ~1 ms means idle):',
    '',
    markdownTable(
      ['tools', 'get requests', 'GC pauses (major)', 'GC total ms', 'longest GC ms', 'event-loop delay p50 / p99 / max ms'],
      s.steps.map((x) => [
        x.tools.toLocaleString('en-US'), String(x.warmGet.load.requests), `${x.getSeen.gcCount} (${x.getSeen.gcMajor})`, fmt(x.getSeen.gcTotalMs), fmt(x.getSeen.gcMaxMs),
        `${fmt(x.getSeen.loopDelayP50Ms)} / ${fmt(x.getSeen.loopDelayP99Ms)} / ${fmt(x.getSeen.loopDelayMaxMs)}`,
      ]),
    ),
  );
  if (s.rebuild) {
    const r = s.rebuild;
    out.push(
      '',
      `One classification change at ${r.tools.toLocaleString('en-US')} tools: classifyTool → the affected tenant's next GET /tools with the new bytes in **${fmt(r.totalMs)} ms** ` +
        `(mutation round trip ${fmt(r.mutationMs)} ms, first read ${fmt(r.firstReadMs)} ms, ${r.reads} read(s), new classification visible: ${r.changed ? 'yes' : 'NO'}). ` +
        `Every other tenant's next list after it: p50 ${fmt(r.otherTenantsAfter.p50, 2)} ms, p99 ${fmt(r.otherTenantsAfter.p99, 2)} ms (n=${r.otherTenantsAfter.n}).`,
    );
  }
  const last = s.steps[s.steps.length - 1];
  if (last?.fullWarm) {
    const w = last.fullWarm;
    out.push('', `--full-warm: every one of the ${w.tenants.toLocaleString('en-US')} tenants listed once (sequentially) in ${fmt(w.ms / 1000)} s (p50 ${fmt(w.list.p50, 2)} ms, p99 ${fmt(w.list.p99, 2)} ms); RSS then **${mb(w.rss)} MB** (VmHWM ${mb(w.hwm)} MB); cache ${JSON.stringify(w.cache)}.`);
  }
  if (last?.floor) {
    const f = last.floor.load.latency;
    out.push('', `Machine floor at ${last.tools.toLocaleString('en-US')} tools: a plain node:http server in the same process answering the same GET /tools/{toolId} bytes, measured the same way: p50 ${fmt(f.p50, 2)} ms, p99 ${fmt(f.p99, 2)} ms (toolcat get: p50 ${fmt(last.warmGet.load.latency.p50, 2)}, p99 ${fmt(last.warmGet.load.latency.p99, 2)}).`);
  }
  out.push(
    '',
    `- each step samples ${SAMPLE} tenants (fewer when fewer were added) spread evenly over the tenants that step added. first list = their first GET /tools (cold: scoped query + serialisation + document); ` +
      `warm list/get = the same tenants round-robin, 1 connection (get: 5 ids per tenant); re-list = their next list after an unrelated grant change (which invalidates every visible set, so each pays its scoped query again). ` +
      `With ${SAMPLE} samples p99 is close to the maximum.`,
    `- list bodies are ~${last ? last.bodyBytes.toLocaleString('en-US') : '?'} bytes (100 descriptors); ${last ? `${last.served.toLocaleString('en-US')} tools served, ${last.quarantined} quarantined` : ''}. RSS is the toolcat process after the step's reads (VmRSS; VmHWM in brackets); only the sampled tenants' documents are cached at that point.`,
    `- build = GraphQL registerSource + snapshots.apply per 1,000-tool source, then createTenant + createPrincipal + createGrant per tenant over GraphQL (${TENANCY_CONCURRENCY} tenants at a time)` +
      `${s.steps.some((x) => x.builtConcurrently) ? '; **built at the same time as the other backend** (2 cores shared: build times are inflated; use --sequential-build for solo build times). Reads were measured with the other backend idle.' : '; built alone.'}`,
    ...s.notes.map((n) => `- ${n}`),
    '',
  );
  return out.join('\n');
}

function syncSection(f: SyncFigure): string {
  return [
    '### Issue 4: syncing a 1,000-tool MCP server (stdio)',
    '',
    markdownTable(
      ['tools', 'page size', 'status', 'served', 'sync wall ms (GraphQL round trip)', 'durationMs reported', 're-sync unchanged ms', 'RSS before MB', 'peak RSS during MB', 'VmHWM before → after MB'],
      [[String(f.tools), String(f.pageSize), f.status, String(f.toolCount), fmt(f.wallMs), fmt(f.reportedMs), fmt(f.resyncMs), mb(f.rssBefore), mb(f.peakSampled), `${mb(f.hwmBefore)} → ${mb(f.hwmAfter)}`]],
    ),
    '',
    '- The hostile fixture server (dist/test/fixtures/hostile-mcp-server.js) serving the 1,000 generated tools from a temp file, synced with the `syncSource` mutation through the real stdio path into a fresh toolcat process (SQLite). Peak RSS sampled every 5 ms from /proc.',
    '',
  ].join('\n');
}

function targetsSection(t: ThroughputReport | null, scales: ScaleReport[], o: Options): string {
  const rows: string[][] = [];
  const ratioOf = (k: RatioKey) => median((t?.ratiosByRound ?? []).map((r) => r[k]?.rps ?? NaN));
  const capacityOf = (k: RatioKey) => median((t?.ratiosByRound ?? []).map((r) => r[k]?.cpu ?? NaN));
  const add = (what: string, target: string, value: number, ok: (v: number) => boolean, unit = '') =>
    rows.push([what, target, Number.isFinite(value) ? `${fmt(value, unit === 'ratio' ? 2 : undefined)}${unit && unit !== 'ratio' ? ` ${unit}` : ''}` : 'not measured', Number.isFinite(value) ? (ok(value) ? 'met' : '**not met**') : '—']);
  for (const [k, target, what] of RATIO_TARGETS) {
    const v = ratioOf(k);
    const c = capacityOf(k);
    rows.push([
      `${k} (${what})`, `≥ ${target}`,
      Number.isFinite(v) ? `${fmt(v, 2)} by req/s; ${fmt(c, 2)} by capacity (server CPU per request)` : 'not measured',
      !Number.isFinite(v) ? '—' : v >= target && c >= target ? 'met' : v >= target ? 'met by req/s only: **not met** by capacity' : c >= target ? '**not met** by req/s (met by capacity)' : '**not met**',
    ]);
  }
  const uh = t?.unloaded.get('h');
  const ui = t?.unloaded.get('i');
  if (uh && ui) {
    const p50 = median(ui.map((m, k) => m.load.latency.p50 - uh[k].load.latency.p50));
    add('i − h p50 on one connection (latency a call through toolcat adds, issue 14)', '< 1 ms', p50, (v) => v < 1, 'ms');
  }
  for (const s of scales) {
    const big = s.steps.find((x) => x.tools === 100_000);
    add(`get p99 at 100k (${s.backend})`, '< 5 ms', big ? big.warmGet.load.latency.p99 : NaN, (v) => v < 5, 'ms');
    add(`RSS at 100k (${s.backend}), ${big?.fullWarm ? 'every tenant listed once' : `${big?.sampled ?? SAMPLE} tenants listed`}`, '< 512 MB', big ? (big.fullWarm?.rss ?? big.rss) / 1024 ** 2 : NaN, (v) => v < 512, 'MB');
    add(`rebuild after one classification at 100k (${s.backend})`, '< 1 s', big && s.rebuild ? s.rebuild.totalMs : NaN, (v) => v < 1000, 'ms');
  }
  return ['### Targets', '', markdownTable(['target', 'goal', 'measured', ''], rows), '', o.quick ? '_--quick: short runs and no 100k step; the 100k targets are not measured._' : '', ''].join('\n');
}

// ----------------------------------------------------------------------------------------------- main

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const o = parseOptions(argv);
  const started = performance.now();
  const sections: string[] = [header(o, argv)];
  let t: ThroughputReport | null = null;
  const scales: ScaleReport[] = [];
  let sync: SyncFigure | null = null;
  let storm: StormFigure | null = null;

  if (wants(o, 'throughput') || wants(o, 'layout')) {
    const picked = new Set<Scenario>(wants(o, 'throughput') ? wantedScenarios(o) : []);
    if (wants(o, 'layout')) for (const s of ['a', 'e'] as const) picked.add(s);
    const scenarios = THROUGHPUT.filter((s) => picked.has(s));
    t = await throughput(o, scenarios, wants(o, 'layout'));
    await runCleanups();
  }
  const backends: Backend[] = [];
  if (wants(o, 'scale-sqlite')) backends.push('sqlite');
  if (wants(o, 'scale-postgres')) {
    if (o.postgresUrl) backends.push('postgres');
    else log('scale postgres: skipped (--no-postgres)');
  }
  if (backends.length) scales.push(...(await scaleAll(o, backends)));
  await runCleanups();
  if (wants(o, 'sync')) sync = await syncFigure();
  await runCleanups();
  // Issue 12 "hostile neighbours": another tenant's reads beside a 5,000-tool sync (defect 1) and beside a
  // notification storm (defect 4). --only=hostile runs both; --only=big-source or --only=hostile-storm one of them.
  const hostile = wants(o, 'hostile') ? await runHostile(o) : [];
  if (!o.only || o.only.has('hostile') || o.only.has('hostile-storm')) storm = await runStorm(o);
  await runCleanups();
  // Issue 3: compaction throughput over the real-server corpus and the diamond blow-up (in this process, idle).
  const compaction = wants(o, 'compaction') ? runCompaction(o.quick ? 1000 : 3000) : null;
  // Issue 18: tool search through the real path (dev-set relevance over HTTP, 100,000 visible tools).
  const search = wants(o, 'search') ? await searchSection(o) : null;
  await runCleanups();
  // Issue 21: one tenant that sees the whole 100,000-tool catalog (streamed list, first byte, RSS).
  const whole: WholeCatalogFigure | null = wants(o, 'whole') ? await wholeCatalog(o) : null;
  await runCleanups();

  if (t) sections.push(throughputSection(t));
  for (const s of scales) sections.push(scaleSection(s));
  if (sync) sections.push(syncSection(sync));
  if (hostile.length || storm) {
    sections.push([hostile.length ? hostileSection(hostile) : '### Hostile neighbours (issue 12)', storm ? `#### Notification storm (defect 4)\n\n${stormSection(storm)}` : ''].filter(Boolean).join('\n\n'));
  }
  if (compaction) sections.push(`### Compaction (issue 3)\n\n${compactionTable(compaction)}`);
  if (search) sections.push(search);
  if (whole) sections.push(wholeCatalogSection(whole));
  sections.push(targetsSection(t, scales, o));
  sections.push(`_Total bench time ${fmt((performance.now() - started) / 1000)} s._`);
  process.stdout.write(`${sections.join('\n\n')}\n`);
}

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) process.exit(130);
    stopping = true;
    log(`${sig}: cleaning up`);
    void runCleanups().finally(() => process.exit(130));
  });
}

main()
  .then(() => {
    setupAgent.destroy();
  })
  .catch(async (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await runCleanups();
    process.exitCode = 1;
  });
