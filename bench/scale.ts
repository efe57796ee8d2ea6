import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client as PgClient } from 'pg';
import type { DatabaseConfig } from '../src/config/config';
import { BLOCKS_PER_SOURCE, TOOLS_PER_BLOCK, TOOLS_PER_SOURCE, blockPrefix, sourceName, toolIdOf } from './catalog-data';
import { createTempPgDatabase } from '../test/helpers/databases';
import { type Measured, type Observed, type Options, Gql, get, log, measure, observed, onCleanup, profiled, sequentialLatency, startWorker } from './common';
import type { Worker } from './ipc';
import type { LoadTarget } from './loadgen';
import { type LatencySummary, fmt, mb, memoryOf } from './stats';

/**
 * Growth of the catalog: 1,000 -> 10,000 -> 100,000 tools (sources of 1,000 tools, registered over GraphQL and
 * loaded with snapshots.apply; one tenant per 100-tool block, granted `mcp.<source>.b<block>_*`), on one
 * backend. build() and measure() are separate so that several backends can build at the same time while
 * their reads are measured one backend at a time.
 */

/** Tenants read per scale step (cold passes are sequential; at 100k each costs a scoped query). */
export const SAMPLE = 50;
export const TENANCY_CONCURRENCY = 4;

export type Backend = 'sqlite' | 'postgres';

interface ScaleStep {
  readonly tools: number;
  readonly tenants: number;
  readonly served: number;
  readonly quarantined: number;
  /** This step only: GraphQL registerSource + snapshots.apply of the new sources. */
  readonly toolsMs: number;
  /** This step only: createTenant + createPrincipal + createGrant per new tenant, over GraphQL. */
  readonly tenancyMs: number;
  /** Cumulative from empty. */
  readonly buildMs: number;
  /** Whether another backend was building at the same time. */
  readonly builtConcurrently: boolean;
  readonly firstList: LatencySummary;
  readonly warmList: Measured;
  readonly warmGet: Measured;
  readonly getSeen: Observed;
  /** Largest size only: plain node:http answering the same get bytes, measured the same way. */
  readonly floor: Measured | null;
  readonly relist: LatencySummary;
  readonly sampled: number;
  readonly rss: number;
  readonly hwm: number;
  readonly bodyBytes: number;
  /** --full-warm, largest size: every tenant listed once, then RSS. */
  readonly fullWarm: { tenants: number; ms: number; list: LatencySummary; rss: number; hwm: number; cache: Record<string, number> } | null;
}

interface Rebuild {
  readonly tools: number;
  readonly mutationMs: number;
  readonly firstReadMs: number;
  readonly totalMs: number;
  readonly reads: number;
  readonly changed: boolean;
  readonly otherTenantsAfter: LatencySummary;
}

export interface ScaleReport {
  readonly backend: Backend;
  readonly steps: ScaleStep[];
  readonly rebuild: Rebuild | null;
  readonly notes: string[];
  readonly error: string | null;
}

async function createPgDatabase(adminUrl: string): Promise<{ db: DatabaseConfig; name: string; settings: string; drop(): Promise<void> }> {
  const created = await createTempPgDatabase(adminUrl, 'toolcat_bench', 10);
  const c = new PgClient({ connectionString: created.db.url });
  await c.connect();
  try {
    const r = await c.query<Record<string, string>>(
      "SELECT current_setting('server_version') AS v, current_setting('jit') AS jit, current_setting('jit_above_cost') AS jac, current_setting('jit_optimize_above_cost') AS joc, current_setting('shared_buffers') AS sb",
    );
    const x = r.rows[0];
    return { ...created, settings: `PostgreSQL ${x.v}, jit=${x.jit} (jit_above_cost ${x.jac}, jit_optimize_above_cost ${x.joc}), shared_buffers ${x.sb}` };
  } catch (err) {
    await created.drop();
    throw err;
  } finally {
    await c.end();
  }
}

interface Pending {
  readonly size: number;
  readonly toolsMs: number;
  readonly tenancyMs: number;
  readonly firstNew: number;
  readonly concurrent: boolean;
}

class ScaleRun {
  private worker!: Worker;
  private stopWorker: () => Promise<void> = async () => undefined;
  private dropStore: () => Promise<void> = async () => undefined;
  private pgUrl: string | null = null;
  private url = '';
  private gql!: Gql;
  private opsId = '';
  private readonly keys: string[] = [];
  private sources = 0;
  private buildMs = 0;
  private served = 0;
  private quarantined = 0;
  private noop = 0;
  private pending: Pending | null = null;
  private readonly steps: ScaleStep[] = [];
  private rebuild: Rebuild | null = null;
  private readonly notes: string[] = [];
  error: string | null = null;

  constructor(
    private readonly o: Options,
    readonly backend: Backend,
  ) {}

  async start(): Promise<void> {
    let db: DatabaseConfig;
    if (this.backend === 'postgres') {
      const created = await createPgDatabase(this.o.postgresUrl!);
      this.dropStore = onCleanup(created.drop);
      db = created.db;
      this.pgUrl = (created.db as { url: string }).url;
      this.notes.push(
        `PostgreSQL 127.0.0.1: a fresh database ${created.name} (dropped afterwards), pool size 10; ${created.settings}. ` +
          'ANALYZE runs after each build step (not timed) so plans do not depend on when autovacuum gets to the new rows.',
      );
    } else {
      const dir = mkdtempSync(join(os.tmpdir(), 'toolcat-bench-'));
      this.dropStore = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
      db = { type: 'sqlite', path: join(dir, 'catalog.sqlite') };
      this.notes.push('SQLite: a fresh file in a temp folder (better-sqlite3).');
    }
    const w = startWorker(`scale-${this.backend}`);
    this.worker = w.worker;
    this.stopWorker = w.stop;
    const { url, adminKey } = await this.worker.call<{ url: string; adminKey: string }>('init', { db });
    this.url = url;
    this.gql = new Gql(url, adminKey);
    this.opsId = await this.gql.tenantId('ops');
  }

  /** Grows the catalog to `size` tools and size/100 tenants. */
  async build(size: number, concurrent: boolean): Promise<void> {
    const wantSources = size / TOOLS_PER_SOURCE;
    log(`scale ${this.backend}: building ${size.toLocaleString('en-US')} tools (${wantSources} sources of ${TOOLS_PER_SOURCE}, ${size / TOOLS_PER_BLOCK} tenants)${concurrent ? ', other backends building too' : ''}`);
    const t0 = performance.now();
    for (; this.sources < wantSources; this.sources++) {
      const name = sourceName(this.sources);
      await this.gql.simulatedSource(name);
      const out = await this.worker.call<{ served: number; quarantined: number }>('apply', { source: name, firstBlock: this.sources * BLOCKS_PER_SOURCE, blocks: BLOCKS_PER_SOURCE });
      this.served += out.served;
      this.quarantined += out.quarantined;
    }
    const t1 = performance.now();
    const firstNew = this.keys.length;
    const wantTenants = size / TOOLS_PER_BLOCK;
    const created: string[] = new Array<string>(wantTenants - firstNew);
    let next = firstNew;
    await Promise.all(
      Array.from({ length: TENANCY_CONCURRENCY }, async () => {
        for (let b = next++; b < wantTenants; b = next++) {
          const source = sourceName(Math.floor(b / BLOCKS_PER_SOURCE));
          created[b - firstNew] = (await this.gql.tenantWithGrant(`t${String(b).padStart(4, '0')}`, `mcp.${source}.${blockPrefix(b)}*`)).key;
        }
      }),
    );
    this.keys.push(...created);
    const t2 = performance.now();
    this.buildMs += t2 - t0;
    if (this.pgUrl) {
      const c = new PgClient({ connectionString: this.pgUrl });
      await c.connect();
      try {
        await c.query('ANALYZE');
      } finally {
        await c.end();
      }
    }
    this.pending = { size, toolsMs: t1 - t0, tenancyMs: t2 - t1, firstNew, concurrent };
    log(`scale ${this.backend}: ${size.toLocaleString('en-US')} built in ${fmt((t2 - t0) / 1000)} s (tools ${fmt((t1 - t0) / 1000)} s, tenants ${fmt((t2 - t1) / 1000)} s)`);
  }

  /** The reads at the size just built (nothing else of the bench runs meanwhile). */
  async measure(): Promise<void> {
    const { o, worker, url, keys } = this;
    const p = this.pending!;
    const size = p.size;
    const last = size === o.sizes[o.sizes.length - 1];
    const tag = `${this.backend}-${size / 1000}k`;
    const latBase = { concurrency: 1, warmupMs: o.latWarmupMs, durationMs: o.latDurationMs, maxRequests: o.maxRequests };

    // The sample: up to SAMPLE tenants spread evenly over the ones added in this step (never read before).
    const fresh = keys.length - p.firstNew;
    const n = Math.min(SAMPLE, fresh);
    const sample = Array.from({ length: n }, (_, i) => p.firstNew + Math.floor((i * fresh) / n));
    const auth = (b: number) => ({ authorization: `Bearer ${keys[b]}` });

    // First read of each sampled tenant: scoped query, descriptor serialisation and document assembly, all cold.
    let bodyBytes = 0;
    const firstList = await sequentialLatency(async (i) => {
      const r = await get(`${url}/tools`, keys[sample[i]]);
      if (r.status !== 200) throw new Error(`GET /tools answered ${r.status}`);
      if ((JSON.parse(r.body.toString('utf8')) as unknown[]).length === 0) throw new Error('a tenant sees no tools');
      bodyBytes = r.body.length;
      return r.ms;
    }, sample.length);

    // Warm: the same tenants round-robin, one request at a time.
    const listTargets = sample.map((b): LoadTarget => ({ path: '/tools', headers: auth(b) }));
    const warmList = await measure({ ...latBase, baseUrl: url, targets: listTargets, expectStatus: 200 }, worker.pid);
    const getTargets = sample.flatMap((b) =>
      [0, 20, 40, 60, 80].map((i): LoadTarget => ({ path: `/tools/${toolIdOf(sourceName(Math.floor(b / BLOCKS_PER_SOURCE)), b, i)}`, headers: auth(b) })),
    );
    const probe = await get(`${url}${getTargets[0].path}`, keys[sample[0]]);
    if (probe.status !== 200) throw new Error(`GET ${getTargets[0].path} answered ${probe.status}`);
    const { result: warmGet, seen: getSeen } = await observed(worker, () =>
      profiled(o, worker, `scale-${tag}-get`, () => measure({ ...latBase, baseUrl: url, targets: getTargets, expectStatus: 200 }, worker.pid)),
    );
    let floor: Measured | null = null;
    if (last) {
      // The machine's floor for the same exchange: a plain node:http server in the toolcat process answering
      // the bytes of one GET /tools/{toolId}, measured the same way (1 connection).
      const c = await worker.call<{ url: string }>('ceiling', { key: keys[sample[0]], path: getTargets[0].path });
      floor = await measure({ ...latBase, baseUrl: c.url, targets: [{ path: getTargets[0].path, headers: auth(sample[0]) }], expectStatus: 200 }, worker.pid);
    }

    // An unrelated catalog change (a grant of another tenant) invalidates every principal's visible set:
    // the next list of each tenant runs its scoped query again (documents stay cached: same bytes).
    await this.gql.grant(this.opsId, `ext.bench_noop_${++this.noop}`);
    const relist = await profiled(o, worker, `scale-${tag}-relist`, () => sequentialLatency(async (i) => (await get(`${url}/tools`, keys[sample[i]])).ms, sample.length));
    log(
      `scale ${this.backend} ${size / 1000}k: first list p50 ${fmt(firstList.p50)} / p99 ${fmt(firstList.p99)} ms; warm list ${fmt(warmList.load.latency.p50)} / ${fmt(warmList.load.latency.p99)} ms; ` +
        `get ${fmt(warmGet.load.latency.p50)} / ${fmt(warmGet.load.latency.p99)} ms${floor ? ` (floor ${fmt(floor.load.latency.p50)} / ${fmt(floor.load.latency.p99)})` : ''}; re-list ${fmt(relist.p50)} / ${fmt(relist.p99)} ms`,
    );

    if (last) await this.classificationChange(sample, size);
    const mem = memoryOf(worker.pid);
    let fullWarm: ScaleStep['fullWarm'] = null;
    if (last && o.fullWarm) {
      log(`scale ${this.backend}: --full-warm: listing every one of ${keys.length} tenants once`);
      const t0 = performance.now();
      const list = await sequentialLatency(async (i) => (await get(`${url}/tools`, keys[i])).ms, keys.length);
      const after = memoryOf(worker.pid);
      fullWarm = { tenants: keys.length, ms: performance.now() - t0, list, rss: after.rss, hwm: after.hwm, cache: await worker.call<Record<string, number>>('cacheStats') };
      log(`  all tenants listed in ${fmt(fullWarm.ms / 1000)} s; RSS ${mb(after.rss)} MB`);
    }
    this.steps.push({
      tools: size, tenants: keys.length, served: this.served, quarantined: this.quarantined, toolsMs: p.toolsMs, tenancyMs: p.tenancyMs,
      buildMs: this.buildMs, builtConcurrently: p.concurrent, firstList, warmList, warmGet, getSeen, floor, relist, sampled: sample.length,
      rss: mem.rss, hwm: mem.hwm, bodyBytes, fullWarm,
    });
    this.pending = null;
  }

  /** ONE classification change: from the classifyTool mutation to the affected tenant's next GET /tools answering the new bytes. */
  private async classificationChange(sample: number[], size: number): Promise<void> {
    const { url, keys } = this;
    const b = sample[Math.floor(sample.length / 2)];
    const key = keys[b];
    const toolId = toolIdOf(sourceName(Math.floor(b / BLOCKS_PER_SOURCE)), b, 0);
    const before = (await get(`${url}/tools`, key)).body;
    await profiled(this.o, this.worker, `scale-${this.backend}-${size / 1000}k-classify`, async () => {
      const c0 = performance.now();
      await this.gql.run('mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }', { i: { toolId, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
      const c1 = performance.now();
      let reads = 0;
      let firstReadMs = NaN;
      let changed = false;
      while (performance.now() - c0 < 10_000) {
        const r = await get(`${url}/tools`, key);
        reads++;
        if (reads === 1) firstReadMs = r.ms;
        if (r.status === 200 && !r.body.equals(before)) {
          changed = (JSON.parse(r.body.toString('utf8')) as Array<{ toolId: string; safetyTier: string }>).some((d) => d.toolId === toolId && d.safetyTier === 'read');
          break;
        }
      }
      const c2 = performance.now();
      const others = sample.filter((x) => x !== b);
      const otherTenantsAfter = await sequentialLatency(async (i) => (await get(`${url}/tools`, keys[others[i]])).ms, others.length);
      this.rebuild = { tools: size, mutationMs: c1 - c0, firstReadMs, totalMs: c2 - c0, reads, changed, otherTenantsAfter };
      log(`scale ${this.backend} ${size / 1000}k: classifyTool -> new bytes in ${fmt(c2 - c0)} ms (mutation ${fmt(c1 - c0)} ms, first read ${fmt(firstReadMs)} ms)`);
    });
  }

  async finish(): Promise<ScaleReport> {
    try {
      if (!this.error) this.notes.push(`cache at the end: ${JSON.stringify(await this.worker.call<Record<string, number>>('cacheStats'))}.`);
    } catch {
      /* the worker is gone */
    }
    await this.stopWorker();
    await this.dropStore();
    return { backend: this.backend, steps: this.steps, rebuild: this.rebuild, notes: this.notes, error: this.error };
  }
}

/** All backends, size by size: builds at the same time (unless --sequential-build), reads one backend at a time. */
export async function scaleAll(o: Options, backends: readonly Backend[]): Promise<ScaleReport[]> {
  const runs: ScaleRun[] = [];
  for (const b of backends) {
    const r = new ScaleRun(o, b);
    try {
      await r.start();
    } catch (err) {
      r.error = `could not start: ${(err as Error).message.split('\n')[0]}`;
      log(`scale ${b}: ${r.error}`);
    }
    runs.push(r);
  }
  const live = () => runs.filter((r) => !r.error);
  const guard = async (r: ScaleRun, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (err) {
      r.error = (err as Error).message.split('\n')[0];
      log(`scale ${r.backend} failed: ${(err as Error).stack ?? r.error}`);
    }
  };
  for (const size of o.sizes) {
    const building = live();
    const concurrent = !o.sequentialBuild && building.length > 1;
    if (concurrent) await Promise.all(building.map((r) => guard(r, () => r.build(size, true))));
    else for (const r of building) await guard(r, () => r.build(size, false));
    for (const r of live()) await guard(r, () => r.measure());
  }
  const out: ScaleReport[] = [];
  for (const r of runs) out.push(await r.finish());
  return out;
}
