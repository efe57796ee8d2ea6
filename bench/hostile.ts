/**
 * `npm run bench -- --only=hostile` (issue 12): what a hostile or merely huge source does to its neighbours. Each
 * scenario runs one disturbance (a 5,000-tool sync, a notification storm, …) inside a fresh toolcat process while
 * another tenant with a small catalog reads `GET /tools` steadily and a host admin writes, and reports that tenant's
 * latency (p50/p99/max, errors), the writes' worst wait and failures, the disturbance's duration and toolcat's peak
 * RSS (sampled from /proc every 5 ms).
 *
 * A scenario is an entry of HOSTILE_SCENARIOS: it gets a running toolcat (`HostileContext`) and runs its
 * disturbance through `ctx.besideNeighbour(...)`, which owns the neighbour's load and the RSS sampling, so a new
 * scenario is one more entry with its own `run`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BLOCKS_PER_SOURCE } from './catalog-data';
import { type Options, Gql, get, log, onCleanup, startWorker } from './common';
import type { Worker } from './ipc';
import { type LoadResult, runLoad } from './loadgen';
import { HOSTILE_BIN } from '../test/helpers/mcp-servers';
import { fmt, markdownTable, mb, memoryOf, percentile, sleep } from './stats';

/** What one scenario measured. */
export interface HostileFigure {
  readonly scenario: string;
  readonly title: string;
  /** The neighbour's GET /tools while the disturbance ran. */
  readonly neighbour: LoadResult;
  /** A write of someone else while it ran (GraphQL createTenant every WRITE_PACING_MS): latency and failures. */
  readonly writes: { readonly n: number; readonly p50Ms: number; readonly maxMs: number; readonly failures: number; readonly firstFailure: string | null };
  /** Wall time of the disturbance as the bench saw it (e.g. the syncSource round trip). */
  readonly durationMs: number;
  readonly rssBefore: number;
  readonly peakRss: number;
  readonly notes: readonly string[];
}

/** A running toolcat (SQLite, its own process) with a neighbour tenant already reading warm. */
interface HostileContext {
  readonly o: Options;
  readonly worker: Worker;
  readonly url: string;
  readonly gql: Gql;
  readonly dir: string;
  /** Runs `work` while the neighbour's load runs and RSS is sampled; the load stops when `work` ends. */
  besideNeighbour<T>(work: () => Promise<T>): Promise<{ result: T; neighbour: LoadResult; writes: HostileFigure['writes']; durationMs: number; rssBefore: number; peakRss: number }>;
}

export interface HostileScenario {
  readonly id: string;
  readonly title: string;
  run(ctx: HostileContext): Promise<HostileFigure>;
}

const NEIGHBOUR_CONCURRENCY = 4;
/** Each connection sends a request every 40 ms: a steady 100 requests/s, not a load that saturates the server. */
const NEIGHBOUR_PACING_MS = 40;
/**
 * The other writer starts its next write this long after the previous one ended. Short enough that a write lands in
 * any publish longer than it (issue 12: with 500 ms a 200 ms swap was missed more often than not).
 */
const WRITE_PACING_MS = 100;

/** Defect 1: a server listing 5,000 heavy tools (~16 KB descriptions, 40 properties each), synced once over stdio. */
const bigSource: HostileScenario = {
  id: 'big-source',
  title: 'sync of a 5,000-tool MCP server (16 KB descriptions, 40 properties each; stdio, 100 tools per page)',
  async run(ctx) {
    const count = ctx.o.quick ? 1_000 : 5_000;
    await ctx.gql.run('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
      i: {
        name: 'big', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0,
        env: [{ name: 'HOSTILE_HEAVY_TOOLS', value: String(count) }, { name: 'HOSTILE_PAGE_SIZE', value: '100' }],
      },
    });
    type R = { syncSource: { status: string; toolCount: number; durationMs: number; error: string | null } };
    const m = await ctx.besideNeighbour(() => ctx.gql.run<R>('mutation { syncSource(name: "big") { status toolCount durationMs error } }'));
    const s = m.result.syncSource;
    if (s.error) log(`  sync error: ${s.error}`);
    return {
      scenario: this.id, title: count === 5_000 ? this.title : this.title.replace('5,000', count.toLocaleString('en-US')),
      neighbour: m.neighbour, writes: m.writes, durationMs: m.durationMs, rssBefore: m.rssBefore, peakRss: m.peakRss,
      notes: [`big-source: status ${s.status}, ${s.toolCount} tools served, durationMs reported by toolcat ${fmt(s.durationMs)}.`],
    };
  },
};

/**
 * Red-team finding 2 on issue 14: calls with 60,000-key arguments (~650 KB, inside the 1 MiB request limit), 16 at
 * once, three rounds, to a host extension whose endpoint refuses connections (the cost measured is toolcat's before
 * anything is sent: depth, request hash, scan, check). The neighbour's GET /tools shows the event loop's stall.
 */
const bigArguments: HostileScenario = {
  id: 'big-arguments',
  title: 'tool calls with 60,000-key arguments (~650 KB), 16 at once, 3 rounds',
  async run(ctx) {
    await ctx.gql.run('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
      i: {
        name: 'wide', description: 'takes wide arguments', inputSchema: { type: 'object', additionalProperties: { type: 'integer' } }, safetyTier: 'read',
        replayPolicy: 'non-idempotent', egress: 'none', implementation: { http: { url: { value: 'http://127.0.0.1:9/calls' }, secret: { value: 's'.repeat(32) } } },
      },
    });
    const caller = await ctx.gql.tenantWithGrant('wide-caller', 'ext.*');
    const args: Record<string, number> = {};
    for (let i = 0; i < 60_000; i++) args[`k${i}`] = i;
    const body = Buffer.from(JSON.stringify({ arguments: args }));
    const statuses = new Map<number, number>();
    const m = await ctx.besideNeighbour(async () => {
      for (let round = 0; round < 3; round++) {
        await Promise.all(Array.from({ length: 16 }, async () => {
          const r = await fetch(`${ctx.url}/tools/ext.wide/calls`, { method: 'POST', headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' }, body });
          await r.arrayBuffer();
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }));
      }
    });
    return {
      scenario: this.id, title: this.title, neighbour: m.neighbour, writes: m.writes, durationMs: m.durationMs, rssBefore: m.rssBefore, peakRss: m.peakRss,
      notes: [`big-arguments: ${body.length.toLocaleString('en-US')} bytes per call; answers ${[...statuses].map(([s, n]) => `${n}x ${s}`).join(', ')}.`],
    };
  },
};

/** Scenarios in the order they run; each gets its own toolcat process. */
export const HOSTILE_SCENARIOS: HostileScenario[] = [bigSource, bigArguments];

/** Runs every scenario (or those named in --only, e.g. --only=hostile or --only=big-source). */
export async function runHostile(o: Options): Promise<HostileFigure[]> {
  const picked = HOSTILE_SCENARIOS.filter((s) => !o.only || o.only.has('hostile') || o.only.has(s.id));
  const out: HostileFigure[] = [];
  for (const s of picked) {
    log(`hostile neighbours: ${s.id}`);
    out.push(await withToolcat(o, (ctx) => s.run(ctx)));
  }
  return out;
}

async function withToolcat<T>(o: Options, fn: (ctx: HostileContext) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(os.tmpdir(), 'toolcat-bench-hostile-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const { worker, stop } = startWorker('hostile');
  try {
    const { url, adminKey } = await worker.call<{ url: string; adminKey: string }>('init', { db: { type: 'sqlite', path: join(dir, 'catalog.sqlite') } });
    const gql = new Gql(url, adminKey);
    // The neighbour: another tenant with a small catalog of its own (100 tools of one simulated source).
    await gql.simulatedSource('small');
    await worker.call('apply', { source: 'small', firstBlock: 0, blocks: Math.min(1, BLOCKS_PER_SOURCE) });
    const neighbour = await gql.tenantWithGrant('neighbour', 'mcp.small.*');
    const first = await get(`${url}/tools`, neighbour.key);
    if (first.status !== 200) throw new Error(`neighbour GET /tools answered ${first.status}`);
    await sleep(300);
    const ctx: HostileContext = {
      o, worker, url, gql, dir,
      async besideNeighbour(work) {
        const rssBefore = memoryOf(worker.pid).rss;
        let peakRss = rssBefore;
        const sampler = setInterval(() => {
          const r = memoryOf(worker.pid).rss;
          if (r > peakRss) peakRss = r;
        }, 5);
        const stopLoad = new AbortController();
        const load = runLoad({
          baseUrl: url, targets: [{ path: '/tools', headers: { authorization: `Bearer ${neighbour.key}` } }], concurrency: NEIGHBOUR_CONCURRENCY,
          warmupMs: 0, durationMs: 600_000, maxRequests: 5_000_000, expectStatus: 200, signal: stopLoad.signal, pacingMs: NEIGHBOUR_PACING_MS,
        });
        // Someone else writes meanwhile: one small GraphQL mutation every WRITE_PACING_MS (issue 12: no write of anyone else
        // fails or waits seconds because a sync runs).
        const writes = { n: 0, p50Ms: 0, maxMs: 0, failures: 0, firstFailure: null as string | null };
        const waits: number[] = [];
        const writer = (async () => {
          for (let i = 0; !stopLoad.signal.aborted; i++) {
            const w0 = performance.now();
            try {
              await gql.run('mutation($n: String!) { createTenant(name: $n) { id } }', { n: `probe-${i}` });
            } catch (err) {
              writes.failures++;
              writes.firstFailure ??= (err as Error).message.slice(0, 200);
            }
            writes.n++;
            waits.push(performance.now() - w0);
            writes.maxMs = Math.max(writes.maxMs, performance.now() - w0);
            await sleep(WRITE_PACING_MS);
          }
        })();
        await sleep(200); // the loops are running before the disturbance starts
        const t0 = performance.now();
        try {
          const result = await work();
          const durationMs = performance.now() - t0;
          const neighbour = await stopAnd(load, stopLoad);
          await writer;
          writes.p50Ms = percentile(waits.sort((a, b) => a - b), 50);
          return { result, durationMs, rssBefore, peakRss: Math.max(peakRss, memoryOf(worker.pid).rss), neighbour, writes };
        } finally {
          stopLoad.abort();
          clearInterval(sampler);
        }
      },
    };
    return await fn(ctx);
  } finally {
    await stop();
    await removeDir();
  }
}

async function stopAnd(load: Promise<LoadResult>, ctl: AbortController): Promise<LoadResult> {
  ctl.abort();
  return load;
}

export function hostileSection(figures: readonly HostileFigure[]): string {
  const rows = figures.map((f) => {
    const l = f.neighbour.latency;
    return [
      f.title, String(f.neighbour.requests), fmt(l.p50, 2), fmt(l.p99, 2), fmt(l.max, 1), String(f.neighbour.errors), `${f.writes.n} / ${fmt(f.writes.p50Ms, 1)} / ${fmt(f.writes.maxMs, 1)} / ${f.writes.failures}`,
      fmt(f.durationMs / 1000, 1), mb(f.rssBefore), mb(f.peakRss),
    ];
  });
  const targets = figures.map((f) => {
    const l = f.neighbour.latency;
    const ok = l.p99 < 50 && l.max < 250 && f.neighbour.errors === 0;
    return `- ${f.scenario}: neighbour p99 ${fmt(l.p99, 1)} ms (target < 50), max ${fmt(l.max, 1)} ms (target < 250), ${f.neighbour.errors} errors: ${ok ? 'met' : '**not met**'}` +
      `${f.neighbour.firstError ? ` (first error: ${f.neighbour.firstError})` : ''}; other writes: max ${fmt(f.writes.maxMs, 0)} ms (target < 250: ${f.writes.maxMs < 250 && f.writes.failures === 0 ? 'met' : '**not met**'}), ${f.writes.failures} failed${f.writes.firstFailure ? ` (${f.writes.firstFailure})` : ''}.`;
  });
  return [
    '### Hostile neighbours (issue 12)',
    '',
    markdownTable(['disturbance', 'neighbour requests', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'other writes: n / p50 ms / max ms / failed', 'duration s', 'RSS before MB', 'peak RSS MB'], rows),
    '',
    `- The neighbour is another tenant seeing 100 tools of its own source, reading GET /tools steadily (closed loop on ${NEIGHBOUR_CONCURRENCY} keep-alive connections, each sending its next request ${NEIGHBOUR_PACING_MS} ms after the previous one started: ${Math.round((NEIGHBOUR_CONCURRENCY * 1000) / NEIGHBOUR_PACING_MS)} requests/s while answers are fast) from before the disturbance starts until it ends (every request started in that window counts, also one still in flight at the end; a request the generator gave up on after 15 s is an error). Other writes: a host admin's GraphQL createTenant, the next one ${WRITE_PACING_MS} ms after the previous answer, meanwhile: their median and worst round trip and failures (the worst is the longest a write waited for the sync, e.g. for its publish). toolcat runs alone in its own process on SQLite; peak RSS sampled every 5 ms from /proc.`,
    ...targets,
    ...figures.flatMap((f) => f.notes.map((n) => `- ${n}`)),
    '',
  ].join('\n');
}
