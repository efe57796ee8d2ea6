import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DataSource } from 'typeorm';

/** How often the checkpointer copies the WAL back (a WAL of a busy second stays a few MB). */
const DEFAULT_INTERVAL_MS = 500;

/**
 * WAL checkpoints of a SQLite catalog file off the event loop (issue 14; the thread is sqlite-checkpoint.worker.ts).
 * Started by the server's composition root for a file database; the main connection's autocheckpoint is turned off
 * only once the thread runs, and turned back on by stop(), so a WAL is never left without a checkpointer. Short CLI
 * commands do not start one: they keep SQLite's own autocheckpoint.
 */
export class SqliteCheckpointer {
  private stopping = false;

  private constructor(
    private readonly ds: DataSource,
    private readonly worker: Worker,
  ) {}

  /** A checkpointer for `ds`, or null when it is not a SQLite file (PostgreSQL, an in-memory database). */
  static async start(ds: DataSource, intervalMs = DEFAULT_INTERVAL_MS): Promise<SqliteCheckpointer | null> {
    const o = ds.options as { type: string; database?: string };
    if (o.type !== 'better-sqlite3' || !o.database || o.database === ':memory:') return null;
    const worker = new Worker(join(__dirname, 'sqlite-checkpoint.worker.js'), { workerData: { path: o.database, intervalMs } });
    await new Promise<void>((resolve, reject) => {
      worker.once('online', resolve);
      worker.once('error', reject);
    });
    worker.unref();
    // From now on every checkpoint is the thread's. A thread that dies on its own hands them back to SQLite's
    // autocheckpoint, so the WAL never grows without a checkpointer.
    await ds.query('PRAGMA wal_autocheckpoint = 0');
    const checkpointer = new SqliteCheckpointer(ds, worker);
    worker.once('exit', () => {
      if (!checkpointer.stopping && ds.isInitialized) void ds.query('PRAGMA wal_autocheckpoint = 1000').catch(() => undefined);
    });
    return checkpointer;
  }

  /** A last checkpoint on the thread, then the main connection's autocheckpoint is back (its default, 1000 pages). */
  async stop(): Promise<void> {
    this.stopping = true;
    const closed = new Promise<void>((resolve) => {
      this.worker.once('message', () => resolve());
      this.worker.once('exit', () => resolve());
    });
    this.worker.postMessage({ op: 'close' });
    await closed;
    await this.worker.terminate();
    if (this.ds.isInitialized) await this.ds.query('PRAGMA wal_autocheckpoint = 1000');
  }
}
