import type { DataSource } from 'typeorm';
import type { Logger } from '../shared/logger';

/**
 * Watches the database with a cheap query. While it is down every catalog request fails fast with 503 instead
 * of waiting on the pool; when it is back, service resumes by itself (the pool reconnects on demand).
 */
export class DbHealth {
  private up = true;
  private pendingMigrations = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(up: boolean) => void>();

  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
    private readonly timeoutMs = 1500,
  ) {}

  get isUp(): boolean {
    return this.up;
  }

  /** Ready: database reachable and no pending migrations. */
  get isReady(): boolean {
    return this.up && !this.pendingMigrations;
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
  }

  /** Runs one probe now; also re-reads the migration state, so /readyz reflects a `toolcat migrate` elsewhere. */
  async check(): Promise<boolean> {
    let ok: boolean;
    try {
      await withTimeout(this.ds.query('SELECT 1'), this.timeoutMs);
      this.pendingMigrations = await withTimeout(this.ds.showMigrations(), this.timeoutMs);
      ok = true;
    } catch {
      ok = false;
    }
    this.set(ok);
    return ok;
  }

  /** A request saw the database fail: mark it down at once (the next probe brings it back). */
  markDown(): void {
    this.set(false);
  }

  private set(ok: boolean): void {
    if (ok === this.up) return;
    this.up = ok;
    this.log[ok ? 'info' : 'warn']({ database: ok ? 'up' : 'down' }, ok ? 'database reachable again' : 'database unreachable: answering 503');
    for (const l of this.listeners) l(ok);
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error('database probe timed out')), ms)))]).finally(() => clearTimeout(t));
}
