import type { DataSource } from 'typeorm';
import type { Logger } from '../shared/logger';
import { DedicatedConnection } from './dedicated-connection';

/**
 * What /readyz says about the database (issue 12 defect 2):
 *   up         the probe answers and the pool has room
 *   saturated  the probe answers, but every pooled connection is busy and requests wait for one; still ready
 *              (the database is fine; requests wait up to the pool's 2 s acquisition bound, then answer 503)
 *   down       the probe itself fails: catalog requests answer 503 at once until it succeeds again
 */
export type DbState = 'up' | 'saturated' | 'down';

interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/**
 * Watches the database with a cheap query. While it is down every catalog request fails fast with 503 instead
 * of waiting on the pool; when it is back, service resumes by itself (the pool reconnects on demand).
 *
 * On PostgreSQL the probe runs on a connection of its own, outside the pool: a pool that is merely exhausted
 * (every connection busy, clients waiting) used to make the probe wait, time out, and report an outage, so a
 * replica with a healthy database answered 503 (issue 12 defect 2). Only a failing probe means down; a request
 * that gave up waiting for a pooled connection while the pool is saturated only asks for a probe.
 */
export class DbHealth {
  private up = true;
  private pendingMigrations = false;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<boolean> | null = null;
  private readonly listeners = new Set<(up: boolean) => void>();
  private readonly probe: DedicatedConnection | null;

  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
    private readonly timeoutMs = 1500,
  ) {
    this.probe = ds.options.type === 'postgres' ? new DedicatedConnection(DedicatedConnection.configOf(ds), timeoutMs) : null;
  }

  get isUp(): boolean {
    return this.up;
  }

  /** Ready: database reachable and no pending migrations (a saturated pool is still ready). */
  get isReady(): boolean {
    return this.up && !this.pendingMigrations;
  }

  /** The state now: down from the last probe, saturated read live from the pool. */
  get state(): DbState {
    if (!this.up) return 'down';
    return this.poolSaturated() ? 'saturated' : 'up';
  }

  onChange(fn: (up: boolean) => void): void {
    this.listeners.add(fn);
  }

  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => void this.check(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    void this.probe?.close();
  }

  /** Runs one probe now (joins one already running); also re-reads the migration state, so /readyz reflects a `toolcat migrate` elsewhere. */
  check(): Promise<boolean> {
    this.probing ??= this.runProbe().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  /**
   * A request saw the database fail. With room in the pool that is the database: down at once (fast 503s), and a
   * probe to bring it back. With the pool saturated it may only have waited too long for a connection: the probe
   * on its own connection decides.
   */
  markDown(): void {
    if (!this.poolSaturated()) this.set(false);
    void this.check();
  }

  private async runProbe(): Promise<boolean> {
    let ok: boolean;
    try {
      if (this.probe) {
        // Once more on a fresh connection: the kept one may have been cut while the database restarted.
        const probe = this.probe;
        await probe.query('SELECT 1').catch(() => probe.query('SELECT 1'));
        this.pendingMigrations = await this.pendingOnProbe(probe);
      } else {
        await withTimeout(this.ds.query('SELECT 1'), this.timeoutMs);
        this.pendingMigrations = await withTimeout(this.ds.showMigrations(), this.timeoutMs);
      }
      ok = true;
    } catch {
      ok = false;
    }
    this.set(ok);
    return ok;
  }

  /** showMigrations' answer, read on the probe's connection (TypeORM's own reads a pooled one). */
  private async pendingOnProbe(probe: DedicatedConnection): Promise<boolean> {
    const table = (this.ds.options as { migrationsTableName?: string }).migrationsTableName ?? 'migrations';
    let rows: Array<{ name: string }>;
    try {
      rows = await probe.query<{ name: string }>(`SELECT name FROM "${table.replace(/"/g, '""')}"`);
    } catch (err) {
      if ((err as { code?: string }).code === '42P01') return true; // no migrations table yet: everything is pending
      throw err;
    }
    const done = new Set(rows.map((r) => r.name));
    return this.ds.migrations.some((m) => !done.has(m.name ?? m.constructor.name));
  }

  private poolSaturated(): boolean {
    const pool = poolOf(this.ds);
    return pool !== null && pool.waitingCount > 0 && pool.idleCount === 0;
  }

  private set(ok: boolean): void {
    if (ok === this.up) return;
    this.up = ok;
    this.log[ok ? 'info' : 'warn']({ database: ok ? 'up' : 'down' }, ok ? 'database reachable again' : 'database unreachable: answering 503');
    for (const l of this.listeners) l(ok);
  }
}

/** The pg pool behind TypeORM's PostgreSQL driver (null on SQLite, or before it is initialised). */
export function poolOf(ds: DataSource): PoolCounts | null {
  const driver = ds.driver as unknown as { master?: PoolCounts };
  return ds.options.type === 'postgres' && driver?.master ? driver.master : null;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error('database probe timed out')), ms)))]).finally(() => clearTimeout(t));
}
