/**
 * Issue 12, defect 4, in the "hostile neighbours" section of `npm run bench`: one tenant reads GET /tools in a
 * steady closed loop while a stdio MCP server of another source floods `notifications/tools/list_changed` as fast
 * as toolcat takes them. Reported: that tenant's p50/p99/max before and during the storm, toolcat's CPU and peak
 * RSS, the notifications the server got written, the syncs they triggered, an on-demand sync of the flooding
 * source during the storm, and what toolcat says about the source (throttled, notifications dropped).
 *
 *   node dist/bench/run.js --only=hostile-storm [--quick] [--duration=MS]
 *
 * Bounded: a baseline window, then a storm of at most `stormMs` (20 s; 8 s with --quick). Everything it starts
 * (the toolcat worker and, through it, the fixture server) is stopped at the end.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { HOSTILE_BIN } from '../test/helpers/mcp-servers';
import { type Measured, type Options, Gql, get, log, measure, onCleanup, startWorker } from './common';
import type { LoadSpec } from './loadgen';
import { cpuSecondsOf, fmt, markdownTable, mb, memoryOf, sleep } from './stats';

export interface StormFigure {
  readonly baseline: Measured;
  readonly storm: Measured;
  /** toolcat's CPU (percent of one core) with no reads at all: before the storm, and during it (what the storm alone costs). */
  readonly idleCpu: { before: number; storm: number; ms: number };
  readonly stormMs: number;
  /** Notifications the fixture server got written into toolcat's pipe during the storm. */
  readonly notificationsWritten: number;
  /** Syncs of the flooding source that the storm triggered (toolcat_source_sync_total, minus the one that started it and the on-demand one). */
  readonly syncsTriggered: number;
  /** An on-demand syncSource of the flooding source in the middle of the storm. */
  readonly midStormSync: { status: string; ms: number; error: string | null };
  readonly rssBefore: number;
  readonly peakRss: number;
  /** CPU of the fixture server during the storm (percent of one core). */
  readonly serverCpu: number;
  /** toolcat's view of the source (fields that exist in this build; null when it has none). */
  readonly admin: Record<string, unknown> | null;
  readonly metrics: string[];
}

const SOURCE = 'storm';

export async function runStorm(o: Options): Promise<StormFigure> {
  const stormMs = o.quick ? 8_000 : 20_000;
  const baselineMs = o.quick ? 2_000 : 5_000;
  const idleMs = o.quick ? 1_500 : 3_000;
  const dir = mkdtempSync(join(os.tmpdir(), 'toolcat-bench-storm-'));
  const removeDir = onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const { worker, stop } = startWorker('storm');
  const { url, adminKey } = await worker.call<{ url: string; adminKey: string }>('init', { db: { type: 'sqlite', path: join(dir, 'catalog.sqlite') } });
  const gql = new Gql(url, adminKey);

  log('hostile storm: 100 tools for the reading tenant, then a baseline read load');
  await gql.simulatedSource('cat');
  await worker.call('apply', { source: 'cat', firstBlock: 0, blocks: 1 });
  const reader = await gql.tenantWithGrant('reader', 'mcp.cat.*');
  const first = await get(`${url}/tools`, reader.key);
  if (first.status !== 200) throw new Error(`GET /tools answered ${first.status}`);
  const spec = (durationMs: number): LoadSpec => ({
    baseUrl: url, targets: [{ path: '/tools', headers: { authorization: `Bearer ${reader.key}` } }], concurrency: 2, warmupMs: 500, durationMs, maxRequests: o.maxRequests, expectStatus: 200,
  });
  const baseline = await measure(spec(baselineMs), worker.pid);
  const idleBefore = await cpuOver(worker.pid, idleMs);

  const modeFile = join(dir, 'mode');
  const countFile = join(dir, 'count');
  const pidFile = join(dir, 'pid');
  writeFileSync(modeFile, 'storm');
  await gql.run('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
    i: {
      name: SOURCE, transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0,
      env: [
        { name: 'HOSTILE_MODE_FILE', value: modeFile }, { name: 'HOSTILE_PAGE_SIZE', value: '100' }, { name: 'HOSTILE_STORM_MS', value: String(idleMs + stormMs + 5_000) },
        { name: 'HOSTILE_STORM_COUNT_FILE', value: countFile }, { name: 'HOSTILE_PID_FILE', value: pidFile },
      ],
    },
  });
  const syncQ = `mutation { syncSource(name: "${SOURCE}") { status durationMs error } }`;
  type SyncR = { syncSource: { status: string; durationMs: number; error: string | null } };
  const rssBefore = memoryOf(worker.pid).rss;
  log(`hostile storm: the fixture floods list_changed for ${stormMs / 1000} s while the tenant reads`);
  // This sync opens the live session; the server starts flooding once it has answered its tools/list.
  const opened = await gql.run<SyncR>(syncQ);
  if (opened.syncSource.status === 'failing') throw new Error(`sync of the storm source failed: ${opened.syncSource.error}`);
  const syncsAtStart = syncCount(await metricsText(url));
  const written0 = readCount(countFile);
  const fixturePid = Number(readFileSync(pidFile, 'utf8').split(' ')[0]);
  const idleStorm = await cpuOver(worker.pid, idleMs);
  const fixtureCpu0 = cpuSecondsOf(fixturePid);
  let peak = rssBefore;
  const sampler = setInterval(() => {
    const m = memoryOf(worker.pid).rss;
    if (m > peak) peak = m;
  }, 20);
  const t0 = performance.now();
  const load = measure(spec(stormMs - 500), worker.pid);
  await sleep(stormMs / 2);
  const s0 = performance.now();
  const mid = await gql.run<SyncR>(syncQ).catch((err: Error) => ({ syncSource: { status: 'error', durationMs: NaN, error: err.message } }));
  const midStormSync = { status: mid.syncSource.status, ms: performance.now() - s0, error: mid.syncSource.error };
  const storm = await load;
  const wall = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const serverCpu = ((cpuSecondsOf(fixturePid) - fixtureCpu0) / wall) * 100;
  const notificationsWritten = readCount(countFile) - written0;
  const text = await metricsText(url);
  const syncsTriggered = syncCount(text) - syncsAtStart - 1;
  const admin = await gql
    .run<{ sources: Array<Record<string, unknown>> }>('{ sources { name status throttledUntil throttleReason notificationsReceived notificationsDropped } }')
    .then((r) => r.sources.find((s) => s.name === SOURCE) ?? null)
    .catch(() => null);
  const metrics = text.split('\n').filter((l) => l.includes(`source="${SOURCE}"`) && !l.startsWith('#'));
  await gql.run(`mutation { removeSource(name: "${SOURCE}") }`);
  await stop();
  await removeDir();
  return { baseline, storm, idleCpu: { before: idleBefore, storm: idleStorm, ms: idleMs }, stormMs, notificationsWritten, syncsTriggered, midStormSync, rssBefore, peakRss: peak, serverCpu, admin, metrics };
}

/** CPU of a process over `ms` of wall time, in percent of one core. */
async function cpuOver(pid: number, ms: number): Promise<number> {
  const c0 = cpuSecondsOf(pid);
  const t0 = performance.now();
  await sleep(ms);
  return ((cpuSecondsOf(pid) - c0) / ((performance.now() - t0) / 1000)) * 100;
}

async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

function syncCount(metrics: string): number {
  let n = 0;
  for (const m of metrics.matchAll(new RegExp(`^toolcat_source_sync_total\\{source="${SOURCE}",status="[a-z-]+"\\} (\\d+)`, 'gm'))) n += Number(m[1]);
  return n;
}

function readCount(file: string): number {
  return existsSync(file) ? Number(readFileSync(file, 'utf8')) || 0 : 0;
}

export function stormSection(f: StormFigure): string {
  const row = (what: string, m: Measured) => [what, String(m.load.requests), fmt(m.load.rps), fmt(m.load.latency.p50, 2), fmt(m.load.latency.p99, 2), fmt(m.load.latency.max, 1), String(m.load.errors), fmt(m.serverCpu, 0)];
  const admin = f.admin ? Object.entries(f.admin).filter(([k]) => k !== 'name').map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(', ') : 'no such fields in this build';
  return [
    '#### Notification storm (issue 12 defect 4)',
    '',
    markdownTable(['other tenant GET /tools (2 connections)', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'toolcat CPU %'], [row('baseline (no storm)', f.baseline), row(`during the storm (${f.stormMs / 1000} s)`, f.storm)]),
    '',
    markdownTable(
      ['toolcat CPU % without reads: before → during the storm', 'notifications written (with reads)', 'per second', 'syncs they triggered', 'on-demand sync mid-storm', 'fixture CPU %', 'toolcat RSS before → peak MB'],
      [[
        `${fmt(f.idleCpu.before, 0)} → ${fmt(f.idleCpu.storm, 0)} (${f.idleCpu.ms / 1000} s each)`,
        f.notificationsWritten.toLocaleString('en-US'), fmt(f.notificationsWritten / (f.stormMs / 1000), 0), String(f.syncsTriggered),
        `${f.midStormSync.status} in ${fmt(f.midStormSync.ms, 0)} ms${f.midStormSync.error ? ` (${f.midStormSync.error.slice(0, 80)})` : ''}`,
        fmt(f.serverCpu, 0), `${mb(f.rssBefore)} → ${mb(f.peakRss)}`,
      ]],
    ),
    '',
    `- toolcat about the source afterwards: ${admin}.`,
    `- its series in /metrics: ${f.metrics.length ? f.metrics.map((l) => `\`${l}\``).join(', ') : 'none'}.`,
    '- The hostile fixture server (stdio, mode `storm`) writes bursts of 1,000 `notifications/tools/list_changed` lines as fast as its pipe takes them, from the moment it has answered its first tools/list; stdout being a pipe, toolcat\'s reading sets the pace, so "notifications written" is what toolcat read (give or take one pipe buffer). The reading tenant sees 100 tools of another source (SQLite). toolcat runs in a worker process; the load generator here.',
    '',
  ].join('\n');
}
