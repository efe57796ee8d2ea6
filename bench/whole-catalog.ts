/**
 * Issue 21: a tenant whose grant covers the whole catalog (100,000 tools; 10,000 with --quick), `--only=whole`.
 * toolcat (SQLite) in a worker, 100 simulated 1,000-tool sources applied with snapshots.apply, one tenant with the
 * grant `mcp.*`. Reads on raw keep-alive TCP connections (first byte = the first byte of the status line; the body
 * is counted to its Content-Length, never kept): the cold first list, then warm lists by 1 reader and by 10
 * concurrent readers, with toolcat's RSS sampled every 5 ms from /proc, and a 304 for the same request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BLOCKS_PER_SOURCE, TOOLS_PER_SOURCE, sourceName } from './catalog-data';
import { type Observed, type Options, Gql, log, observed, onCleanup, profiled, startWorker } from './common';
import { type LatencySummary, fmt, markdownTable, mb, memoryOf, summarize } from './stats';

export interface WholeCatalogFigure {
  readonly tools: number;
  readonly cacheBytes: number;
  readonly bodyBytes: number;
  readonly buildMs: number;
  readonly cold: { readonly firstByteMs: number; readonly totalMs: number };
  readonly one: { readonly firstByte: LatencySummary; readonly total: LatencySummary };
  readonly ten: { readonly firstByte: LatencySummary; readonly total: LatencySummary; readonly mbPerSecond: number; readonly seen: Observed };
  readonly notModified: LatencySummary;
  /** RSS right after the build (after gc), and how long V8 took to give the build's heap back (settled()). */
  readonly rssBuilt: number;
  readonly settleSeconds: number;
  readonly rssBefore: number;
  readonly rssPeak: number;
  /** RSS when the 10 concurrent readers start, and its peak while they read (5 ms samples). */
  readonly rssTenStart: number;
  readonly rssTenPeak: number;
  readonly rssAfter: number;
  readonly checked: string;
  /** toolcat's process.memoryUsage(): after gc before the reads, and at the end of the 10 readers (no gc). */
  readonly memBefore: NodeJS.MemoryUsage;
  readonly memDuring: NodeJS.MemoryUsage;
}

/** One keep-alive connection that sends GETs one at a time and times the first byte and the whole answer. */
class RawReader {
  private readonly socket: net.Socket;
  private pending: { resolve: (r: { status: number; firstByteMs: number; totalMs: number; bytes: number; etag: string; sample: Buffer | null }) => void; reject: (e: Error) => void; t0: number; keep: boolean } | null = null;
  private head = Buffer.alloc(0);
  private firstByte = 0;
  private expect = -1;
  private got = 0;
  private status = 0;
  private etag = '';
  private kept: Buffer[] = [];

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (c: Buffer) => this.onData(c));
    socket.on('error', (e) => this.pending?.reject(e));
    socket.on('close', () => this.pending?.reject(new Error('connection closed mid-answer')));
  }

  static open(port: number): Promise<RawReader> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new RawReader(s)));
      s.once('error', reject);
    });
  }

  get(path: string, headers: Record<string, string>, keep = false): Promise<{ status: number; firstByteMs: number; totalMs: number; bytes: number; etag: string; sample: Buffer | null }> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, t0: performance.now(), keep };
      this.head = Buffer.alloc(0);
      this.firstByte = 0;
      this.expect = -1;
      this.got = 0;
      this.kept = [];
      const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines}\r\n`);
    });
  }

  private onData(c: Buffer): void {
    const p = this.pending;
    if (!p) return;
    if (!this.firstByte) this.firstByte = performance.now();
    if (this.expect < 0) {
      this.head = Buffer.concat([this.head, c]);
      const end = this.head.indexOf('\r\n\r\n');
      if (end < 0) return;
      const text = this.head.subarray(0, end).toString('latin1');
      this.status = Number(text.slice(9, 12));
      this.etag = /\r\netag: *([^\r]*)/i.exec(text)?.[1] ?? '';
      this.expect = this.status === 304 ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? NaN);
      c = this.head.subarray(end + 4);
    }
    this.got += c.length;
    if (p.keep) this.kept.push(Buffer.from(c));
    if (this.got >= this.expect) {
      this.pending = null;
      p.resolve({ status: this.status, firstByteMs: this.firstByte - p.t0, totalMs: performance.now() - p.t0, bytes: this.got, etag: this.etag, sample: p.keep ? Buffer.concat(this.kept) : null });
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Waits until toolcat's RSS stops falling: sampled every 2 s, settled when the last 30 s took off less than 4 MB (at
 * most 150 s). The build (100 sources ingested in the same process, ~160 s) leaves V8's heap at ~250 MB committed
 * for ~75 MB used, and the ingest threads alive for their idle timeout; V8's memory reducer gives that back within
 * ~20-40 s of quiet (measured: 590 MB right after the build, 280 MB 32 s later). The readers are measured against the
 * settled server, and the report gives the RSS right after the build beside it. Returns the seconds waited.
 */
async function settled(pid: number): Promise<number> {
  const t0 = performance.now();
  const samples = [memoryOf(pid).rss];
  while (performance.now() - t0 < 150_000) {
    await new Promise((r) => setTimeout(r, 2_000));
    samples.push(memoryOf(pid).rss);
    if (samples.length > 15 && samples[samples.length - 16] - samples[samples.length - 1] < 4 * 1024 ** 2) break;
  }
  return (performance.now() - t0) / 1000;
}

/**
 * A kept-alive admin connection that toolcat closed while a long apply ran (keep-alive timeout) fails its next request
 * with ECONNRESET before the request was read; it is sent once more, on a fresh connection.
 */
async function onceMoreOnReset(send: () => Promise<void>): Promise<void> {
  try {
    await send();
  } catch (err) {
    if ((err as { code?: string }).code !== 'ECONNRESET') throw err;
    log('whole catalog: an idle admin connection was reset; sending again');
    await send();
  }
}

export async function wholeCatalog(o: Options): Promise<WholeCatalogFigure> {
  const tools = o.quick ? 10_000 : Math.min(100_000, o.sizes[o.sizes.length - 1]);
  const sources = Math.ceil(tools / TOOLS_PER_SOURCE);
  // The descriptor layer (1/3 of the budget) must hold the whole catalog's descriptors (~1.5 KB each here), or every
  // list would read them again from the database (a list larger than an LRU layer misses on every entry).
  const cacheBytes = Math.max(192 * 1024 ** 2, Math.ceil(tools * 1_800 * 3));
  const dir = mkdtempSync(join(os.tmpdir(), 'toolcat-bench-whole-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  // --expose-gc: "RSS before the reads (after gc)" is after a collection (without it the worker's gc was a no-op and
  // the figure held the ingest's garbage: heap used 147-266 MB from run to run).
  const { worker, stop } = startWorker('whole-catalog', ['--expose-gc']);
  const { url, adminKey } = await worker.call<{ url: string; adminKey: string }>('init', { db: { type: 'sqlite', path: join(dir, 'catalog.sqlite') }, cacheBytes });
  const port = Number(new URL(url).port);
  const gql = new Gql(url, adminKey);
  log(`whole catalog: building ${tools.toLocaleString('en-US')} tools (${sources} sources), cache budget ${mb(cacheBytes)} MB`);
  const t0 = performance.now();
  for (let s = 0; s < sources; s++) {
    const name = sourceName(s);
    await onceMoreOnReset(() => gql.simulatedSource(name));
    await worker.call('apply', { source: name, firstBlock: s * BLOCKS_PER_SOURCE, blocks: BLOCKS_PER_SOURCE });
    if (s % 10 === 9) log(`whole catalog: ${(s + 1) * TOOLS_PER_SOURCE} tools`);
  }
  const { key } = await gql.tenantWithGrant('whole', 'mcp.*');
  const buildMs = performance.now() - t0;
  const auth = { authorization: `Bearer ${key}` };
  const built = await worker.call<NodeJS.MemoryUsage>('gc');
  const settle = await settled(worker.pid);
  const memBefore = await worker.call<NodeJS.MemoryUsage>('gc');

  const rssBefore = memoryOf(worker.pid).rss;
  let rssPeak = rssBefore;
  // The 10 readers' own peak, apart from the cold first list's (which builds the kept list: its batches' garbage).
  let tenPeak = 0;
  let tenRunning = false;
  const sampler = setInterval(() => {
    const rss = memoryOf(worker.pid).rss;
    rssPeak = Math.max(rssPeak, rss);
    if (tenRunning) tenPeak = Math.max(tenPeak, rss);
  }, 5);
  try {
    const first = await RawReader.open(port);
    log('whole catalog: first (cold) list');
    const cold = await first.get('/tools', auth, true);
    if (cold.status !== 200) throw new Error(`GET /tools answered ${cold.status}`);
    const parsed = JSON.parse(cold.sample!.toString('utf8')) as Array<{ toolId: string }>;
    const ids = parsed.map((d) => d.toolId);
    const sorted = ids.every((id, i) => i === 0 || ids[i - 1] < id);
    const checked = `${parsed.length.toLocaleString('en-US')} descriptors, ${cold.bytes.toLocaleString('en-US')} bytes = Content-Length, valid JSON, toolId order ${sorted ? 'kept' : 'BROKEN'}`;
    const etag = cold.etag;
    // Checking 150 MB took longer than toolcat's keep-alive timeout (5 s): the warm reads get a fresh connection.
    first.close();
    const warm = await RawReader.open(port);

    log('whole catalog: warm lists, 1 reader');
    const oneFirst: number[] = [];
    const oneTotal: number[] = [];
    for (let i = 0; i < (o.quick ? 10 : 30); i++) {
      const r = await warm.get('/tools', auth);
      if (r.status !== 200 || r.etag !== etag) throw new Error(`warm list answered ${r.status} ${r.etag}`);
      oneFirst.push(r.firstByteMs);
      oneTotal.push(r.totalMs);
    }
    const nm: number[] = [];
    for (let i = 0; i < 200; i++) {
      const r = await warm.get('/tools', { ...auth, 'if-none-match': etag });
      if (r.status !== 304) throw new Error(`If-None-Match answered ${r.status}`);
      nm.push(r.totalMs);
    }
    warm.close();

    log('whole catalog: warm lists, 10 concurrent readers');
    const readers = await Promise.all(Array.from({ length: 10 }, () => RawReader.open(port)));
    const tenFirst: number[] = [];
    const tenTotal: number[] = [];
    let bytes = 0;
    const rssTenStart = memoryOf(worker.pid).rss;
    tenRunning = true;
    const t1 = performance.now();
    const { seen } = await observed(worker, () => profiled(o, worker, 'whole-catalog-ten-readers', () =>
      Promise.all(
        readers.map(async (r) => {
          for (let i = 0; i < (o.quick ? 3 : 6); i++) {
            const got = await r.get('/tools', auth);
            if (got.status !== 200 || got.etag !== etag) throw new Error(`concurrent list answered ${got.status}`);
            tenFirst.push(got.firstByteMs);
            tenTotal.push(got.totalMs);
            bytes += got.bytes;
          }
        }),
      ),
    ));
    const seconds = (performance.now() - t1) / 1000;
    tenRunning = false;
    const memDuring = await worker.call<NodeJS.MemoryUsage>('memory');
    for (const r of readers) r.close();
    clearInterval(sampler);
    const rssAfter = memoryOf(worker.pid).rss;
    return {
      tools, cacheBytes, bodyBytes: cold.bytes, buildMs, cold: { firstByteMs: cold.firstByteMs, totalMs: cold.totalMs },
      one: { firstByte: summarize(oneFirst), total: summarize(oneTotal) },
      ten: { firstByte: summarize(tenFirst), total: summarize(tenTotal), mbPerSecond: bytes / 1024 ** 2 / seconds, seen },
      notModified: summarize(nm), rssBuilt: built.rss, settleSeconds: settle, rssBefore, rssPeak: Math.max(rssPeak, rssAfter), rssTenStart, rssTenPeak: Math.max(tenPeak, rssTenStart), rssAfter, checked, memBefore, memDuring,
    };
  } finally {
    clearInterval(sampler);
    await stop();
    await removeDir();
  }
}

export function wholeCatalogSection(f: WholeCatalogFigure): string {
  const row = (what: string, l: LatencySummary) => [what, String(l.n), fmt(l.p50, 2), fmt(l.p99, 2), fmt(l.max, 2)];
  return [
    `### A whole-catalog tenant (issue 21): ${f.tools.toLocaleString('en-US')} tools, one grant \`mcp.*\``,
    '',
    markdownTable(['read', 'n', 'p50 ms', 'p99 ms', 'max ms'], [
      ['cold first list: first byte / whole', '1', fmt(f.cold.firstByteMs, 2), fmt(f.cold.totalMs, 2), ''],
      row('warm, 1 reader: first byte', f.one.firstByte),
      row('warm, 1 reader: whole answer', f.one.total),
      row('warm, 10 concurrent readers: first byte', f.ten.firstByte),
      row('warm, 10 concurrent readers: whole answer', f.ten.total),
      row('304 (If-None-Match), 1 reader', f.notModified),
    ]),
    '',
    `- body ${f.bodyBytes.toLocaleString('en-US')} bytes (${f.checked}); 10 readers together ${fmt(f.ten.mbPerSecond)} MB/s.`,
    `- inside toolcat during the 10 readers: ${f.ten.seen.gcCount} GC pauses (${f.ten.seen.gcMajor} major), ${fmt(f.ten.seen.gcTotalMs)} ms in total, longest ${fmt(f.ten.seen.gcMaxMs)} ms; event-loop delay p50 / p99 / max ${fmt(f.ten.seen.loopDelayP50Ms)} / ${fmt(f.ten.seen.loopDelayP99Ms)} / ${fmt(f.ten.seen.loopDelayMaxMs)} ms.`,
    `- toolcat RSS: ${mb(f.rssBuilt)} MB right after the build (after gc); settled after ${fmt(f.settleSeconds)} s (RSS falling by < 4 MB in 30 s); ${mb(f.rssBefore)} MB before the reads (after gc); peak ${mb(f.rssPeak)} MB over all the reads (the cold first list builds the kept list), ${mb(f.rssAfter)} MB after. 10 concurrent readers: ${mb(f.rssTenStart)} MB when they start, peak ${mb(f.rssTenPeak)} MB while they read (5 ms samples); target < 512 MB: ${f.rssTenPeak < 512 * 1024 ** 2 ? 'met' : '**not met**'}. First byte p99 warm (10 readers) < 50 ms: ${f.ten.firstByte.p99 < 50 ? 'met' : '**not met**'}.`,
    `- toolcat memoryUsage() MB, before the reads (after gc) / at the end of the 10 readers: heap used ${mb(f.memBefore.heapUsed)} / ${mb(f.memDuring.heapUsed)} (heap total ${mb(f.memBefore.heapTotal)} / ${mb(f.memDuring.heapTotal)}), external ${mb(f.memBefore.external)} / ${mb(f.memDuring.external)}, of which array buffers ${mb(f.memBefore.arrayBuffers)} / ${mb(f.memDuring.arrayBuffers)}.`,
    `- TOOLCAT_CACHE_MAX_BYTES=${f.cacheBytes} (${mb(f.cacheBytes)} MB; descriptors 1/3) so that the descriptor layer holds every descriptor; build ${fmt(f.buildMs / 1000)} s (SQLite).`,
    '',
  ].join('\n');
}
