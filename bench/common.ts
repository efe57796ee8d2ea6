import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from './ipc';
import { type LoadResult, type LoadSpec, request, runLoad } from './loadgen';
import { type LatencySummary, cpuSecondsOf, summarize } from './stats';

/** Options and plumbing shared by the benchmark sections (the client side: this process never serves). */

export interface Options {
  readonly quick: boolean;
  readonly only: ReadonlySet<string> | null;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly maxRequests: number;
  readonly sizes: readonly number[];
  readonly latWarmupMs: number;
  readonly latDurationMs: number;
  readonly postgresUrl: string | null;
  /** CPU-profile the toolcat worker during each measured phase; profiles written here. */
  readonly profileDir: string | null;
  /** Build the backends one after the other instead of at the same time. */
  readonly sequentialBuild: boolean;
  /** At the largest size, list every tenant once before the final RSS reading. */
  readonly fullWarm: boolean;
}

const FLAGS = ['quick', 'only', 'duration', 'warmup', 'concurrency', 'rounds', 'max-tools', 'postgres-url', 'no-postgres', 'profile', 'sequential-build', 'full-warm'];

export function parseOptions(argv: readonly string[]): Options {
  const flags = new Map<string, string>();
  for (const a of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unknown argument ${a}`);
    flags.set(m[1], m[2] ?? 'true');
  }
  for (const k of flags.keys()) if (!FLAGS.includes(k)) throw new Error(`unknown flag --${k} (known: ${FLAGS.map((x) => `--${x}`).join(' ')})`);
  const quick = flags.has('quick');
  const num = (k: string, d: number) => {
    const v = flags.get(k);
    if (v === undefined) return d;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${k} must be a positive number`);
    return n;
  };
  const maxTools = num('max-tools', quick ? 10_000 : 100_000);
  const sizes = [1_000, 10_000, 100_000].filter((s) => s <= maxTools);
  if (!sizes.length) throw new Error('--max-tools must be at least 1000');
  const only = flags.get('only');
  return {
    quick,
    only: only ? new Set(only.split(',').map((s) => s.trim()).filter(Boolean)) : null,
    warmupMs: num('warmup', quick ? 300 : 1_000),
    durationMs: num('duration', quick ? 1_500 : 5_000),
    concurrency: num('concurrency', 10),
    rounds: num('rounds', quick ? 1 : 3),
    maxRequests: 500_000,
    sizes,
    latWarmupMs: quick ? 200 : 500,
    latDurationMs: quick ? 1_000 : 3_000,
    profileDir: flags.has('profile') ? mkdtempSync(join(os.tmpdir(), 'toolcat-bench-prof-')) : null,
    postgresUrl: flags.has('no-postgres') ? null : (flags.get('postgres-url') ?? process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'),
    sequentialBuild: flags.has('sequential-build'),
    fullWarm: flags.has('full-warm'),
  };
}

export const log = (msg: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};

// ------------------------------------------------------------------------------------------ cleanups

const cleanups = new Set<() => Promise<void> | void>();

/** Registers something to undo (a worker, a database, a temp folder); returns a function that does it now. */
export function onCleanup(fn: () => Promise<void> | void): () => Promise<void> {
  const wrapped = async () => {
    if (!cleanups.delete(wrapped)) return;
    try {
      await fn();
    } catch (err) {
      log(`cleanup failed: ${(err as Error).message}`);
    }
  };
  cleanups.add(wrapped);
  return wrapped;
}

/** Everything still registered, newest first. */
export async function runCleanups(): Promise<void> {
  for (const c of [...cleanups].reverse()) await c();
}

// ------------------------------------------------------------------------------------------ clients

export const setupAgent = new http.Agent({ keepAlive: true, maxSockets: 16 });

export const get = (url: string, key: string, headers: Record<string, string> = {}) =>
  request(url, { agent: setupAgent, headers: { authorization: `Bearer ${key}`, ...headers } });

/** Admin calls over the public GraphQL API (as a host admin). */
export class Gql {
  constructor(
    readonly url: string,
    readonly adminKey: string,
  ) {}

  async run<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const r = await request(`${this.url}/graphql`, {
      method: 'POST',
      agent: setupAgent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.adminKey}` },
      body: JSON.stringify({ query, variables }),
    });
    const parsed = JSON.parse(r.body.toString('utf8')) as { data?: T; errors?: unknown[] };
    if (parsed.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(parsed.errors).slice(0, 500)}`);
    return parsed.data as T;
  }

  /** An MCP source that is never contacted (disabled): its listings are applied with snapshots.apply. */
  async simulatedSource(name: string): Promise<void> {
    await this.run('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
      i: { name, transport: 'stdio', command: 'simulated-not-run', enabled: false, syncIntervalSeconds: 0 },
    });
  }

  /** A tenant with one agent key and one tenant-wide grant; returns the key. */
  async tenantWithGrant(name: string, toolPattern: string): Promise<{ tenantId: string; key: string }> {
    const t = await this.run<{ createTenant: { id: string } }>('mutation($n: String!) { createTenant(name: $n) { id } }', { n: name });
    const p = await this.run<{ createPrincipal: { apiKey: string } }>(
      'mutation($i: CreatePrincipalInput!) { createPrincipal(input: $i) { apiKey } }',
      { i: { tenantId: t.createTenant.id, name: `${name}-agent`, role: 'agent' } },
    );
    await this.grant(t.createTenant.id, toolPattern);
    return { tenantId: t.createTenant.id, key: p.createPrincipal.apiKey };
  }

  async grant(tenantId: string, toolPattern: string): Promise<void> {
    await this.run('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId, toolPattern } });
  }

  async tenantId(name: string): Promise<string> {
    const r = await this.run<{ tenants: Array<{ id: string; name: string }> }>('{ tenants { id name } }');
    const t = r.tenants.find((x) => x.name === name);
    if (!t) throw new Error(`no tenant ${name}`);
    return t.id;
  }
}

// ------------------------------------------------------------------------------------------ workers

/** A server worker process (bench/worker.ts), stopped by the cleanups if nobody stops it first. */
export function startWorker(label: string, execArgv: readonly string[] = []): { worker: Worker; stop: () => Promise<void> } {
  const worker = Worker.start(label, [...execArgv, ...(process.env.BENCH_WORKER_EXEC_ARGV ? process.env.BENCH_WORKER_EXEC_ARGV.split(' ') : [])]);
  return { worker, stop: onCleanup(() => worker.stop()) };
}

/** With --profile: a CPU profile of the toolcat worker over exactly this phase, written to <profileDir>/<name>.cpuprofile. */
export async function profiled<T>(o: Options, worker: Worker, name: string, fn: () => Promise<T>): Promise<T> {
  if (!o.profileDir) return fn();
  await worker.call('profileStart');
  try {
    return await fn();
  } finally {
    await worker.call('profileStop', { file: join(o.profileDir, `${name}.cpuprofile`) });
  }
}

/** What the worker saw while a phase ran: GC pauses and event-loop delay. */
export interface Observed {
  readonly gcCount: number;
  readonly gcMajor: number;
  readonly gcTotalMs: number;
  readonly gcMaxMs: number;
  readonly loopDelayP50Ms: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

export async function observed<T>(worker: Worker, fn: () => Promise<T>): Promise<{ result: T; seen: Observed }> {
  await worker.call('observeStart');
  const result = await fn();
  const seen = await worker.call<Observed>('observeStop');
  return { result, seen };
}

// ------------------------------------------------------------------------------------------ measuring

export interface Measured {
  readonly load: LoadResult;
  /** CPU of the serving process (percent of one core) over warm-up + measurement. */
  readonly serverCpu: number;
  /** CPU of the generator's process. */
  readonly clientCpu: number;
}

/** Runs the generator here (or, for the layout comparison, inside the server process) and accounts CPU. */
export async function measure(spec: LoadSpec, serverPid: number, inProcess?: Worker): Promise<Measured> {
  const s0 = cpuSecondsOf(serverPid);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const load = inProcess ? await inProcess.call<LoadResult>('load', spec) : await runLoad(spec);
  const wall = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const serverCpu = ((cpuSecondsOf(serverPid) - s0) / wall) * 100;
  const clientCpu = inProcess ? NaN : ((c.user + c.system) / 1e6 / wall) * 100;
  if (load.errors) log(`  ${load.errors} errors; first: ${load.firstError}`);
  return { load, serverCpu, clientCpu };
}

export async function sequentialLatency(fn: (i: number) => Promise<number>, n: number): Promise<LatencySummary> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push(await fn(i));
  return summarize(xs);
}

export function median(xs: readonly number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
