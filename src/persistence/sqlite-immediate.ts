import type { DataSource, QueryRunner } from 'typeorm';

/**
 * A process-local signal that another connection of this process (the SQLite snapshot writer thread) is holding, or
 * about to take, the catalog file's write lock for a swap (issue 12 defect 1). Writers on the main connection wait
 * for it asynchronously instead of in SQLite's busy handler, which sleeps on the calling thread: a mutation arriving
 * during a swap would otherwise stop the whole event loop, every other tenant's reads included, for as long as the
 * swap takes.
 */
export class WriteGate {
  private held = 0;
  private waiters: Array<() => void> = [];

  async hold<T>(fn: () => Promise<T>): Promise<T> {
    this.held++;
    try {
      return await fn();
    } finally {
      if (--this.held === 0) for (const w of this.waiters.splice(0)) w();
    }
  }

  idle(): Promise<void> {
    return this.held === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }

  get isIdle(): boolean {
    return this.held === 0;
  }
}

const WRITE = /^\s*(INSERT|UPDATE|DELETE|REPLACE)\b/i;

/** The part of a better-sqlite3 connection the call log uses (typed here: the driver's own types are not a dependency). */
export interface SqliteConnection {
  readonly inTransaction: boolean;
  prepare(sql: string): { run(...params: unknown[]): { changes: number } };
}

type Outside = <T>(fn: (db: SqliteConnection) => T, opts?: { readonly readOnly?: boolean }) => Promise<T>;
const outsideByDataSource = new WeakMap<DataSource, Outside>();

/**
 * Runs `fn` (synchronous statements on the raw connection) at a moment when no transaction is open on the process's
 * one SQLite connection and the snapshot writer holds no lock. A statement run while another flow's transaction is
 * open (between two of its awaited statements) would run inside it and be undone by its ROLLBACK: the call log lost
 * a call that way (test/persistence/tool-call-store.test.ts). `fn` runs in one synchronous step after the checks, so
 * nothing can open a transaction in between.
 */
export function outsideTransactions<T>(ds: DataSource, fn: (db: SqliteConnection) => T): Promise<T> {
  const outside = outsideByDataSource.get(ds);
  if (!outside) throw new Error('outsideTransactions: useImmediateTransactions was not applied to this data source');
  return outside(fn);
}

/**
 * Runs `fn`, synchronous reads on the raw connection, when no transaction is open on the process's one SQLite
 * connection, so that they see committed data only: another flow's open transaction would show its uncommitted
 * writes. Unlike outsideTransactions it does not wait for the snapshot writer's lock (a WAL reader never needs it,
 * and every call would otherwise wait for a sync's swap). On a data source opened without useImmediateTransactions
 * (a one-shot CLI or test connection, nothing else running on it) `fn` runs now.
 */
export function committedReads<T>(ds: DataSource, fn: (db: SqliteConnection) => T): Promise<T> {
  const outside = outsideByDataSource.get(ds);
  if (outside) return outside(fn, { readOnly: true });
  return Promise.resolve(fn((ds.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection));
}

/**
 * SQLite transactions of this process start with BEGIN IMMEDIATE (issue 12 defect 1). TypeORM's better-sqlite3
 * driver starts every transaction with a deferred `BEGIN TRANSACTION` on its one shared connection: the first read
 * takes a WAL snapshot and the first write then asks for the write lock. If any other connection committed in between
 * (the CLI in another process, the snapshot writer thread, another `toolcat` command), that upgrade fails at once with
 * SQLITE_BUSY_SNAPSHOT ("database is locked") without waiting: the busy timeout only helps a writer that has not read
 * yet. With BEGIN IMMEDIATE the write lock is taken (waiting up to busy_timeout) before anything is read, so a
 * read-then-write transaction such as `tenants create` cannot see stale data and cannot fail that way.
 *
 * Two `ds.transaction` calls on that one connection are not isolated from each other: one started while another is
 * open becomes a SAVEPOINT inside it. That cannot happen while no transaction callback waits for anything but the
 * database (better-sqlite3 answers synchronously, so such a transaction never lets another one start); the ingest
 * work of a sync (pool, staging, swap) therefore never runs inside a TypeORM transaction. The one wait added here,
 * for the WriteGate before BEGIN, is made safe by serialising transaction starts: the next BEGIN is issued only after
 * the previous transaction's COMMIT or ROLLBACK.
 */
export function useImmediateTransactions(ds: DataSource, gate: WriteGate = new WriteGate()): void {
  if (ds.options.type !== 'better-sqlite3') return;
  const runner = ds.driver.createQueryRunner('master') as QueryRunner & { immediate?: boolean; transactionDepth?: number; isTransactionActive: boolean };
  if (runner.immediate) return;
  const query = runner.query.bind(runner) as (sql: string, parameters?: unknown[], structured?: boolean) => Promise<unknown>;
  let tail: Promise<void> = Promise.resolve();
  let release: (() => void) | null = null;
  runner.query = (async (sql: string, parameters?: unknown[], structured?: boolean) => {
    if (sql === 'BEGIN TRANSACTION') {
      const previous = tail;
      let done!: () => void;
      tail = new Promise<void>((r) => (done = r));
      await previous;
      await gate.idle();
      try {
        const out = await query('BEGIN IMMEDIATE TRANSACTION', parameters, structured);
        // A transaction that waited above may find the flag cleared by the COMMIT of the one before it.
        runner.isTransactionActive = true;
        release = done;
        return out;
      } catch (err) {
        done();
        throw err;
      }
    }
    const next = () => {
      const r = release;
      release = null;
      r?.();
    };
    if (sql === 'COMMIT') {
      const out = await query(sql, parameters, structured); // a failed COMMIT is followed by TypeORM's ROLLBACK
      next();
      return out;
    }
    if (sql === 'ROLLBACK') {
      try {
        return await query(sql, parameters, structured);
      } finally {
        next();
      }
    }
    if (!runner.transactionDepth && WRITE.test(sql)) await gate.idle(); // an autocommit write: the lock is taken by it
    return query(sql, parameters, structured);
  }) as QueryRunner['query'];
  runner.immediate = true;
  const connection = () => (ds.driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection;
  outsideByDataSource.set(ds, async <T>(fn: (db: SqliteConnection) => T, opts: { readonly readOnly?: boolean } = {}): Promise<T> => {
    // A reader needs no lock, only no open transaction.
    const unlocked = () => opts.readOnly === true || gate.isIdle;
    // Nothing open and no swap: now (the common case, without waiting a turn).
    if (unlocked() && !connection().inTransaction) return fn(connection());
    for (;;) {
      await tail; // every transaction started so far has ended (a later one may start meanwhile: checked again below)
      if (!opts.readOnly) await gate.idle();
      const db = connection();
      if (!db.inTransaction) return fn(db);
      // Open though the last transaction started here has ended: one this code did not start. A turn of the event
      // loop before looking again, so the wait never spins on microtasks.
      await new Promise<void>((r) => setImmediate(r));
    }
  });
}
