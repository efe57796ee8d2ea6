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
 * Each flow its own query runner (test/persistence/flow-isolation.test.ts). The driver hands every caller the same
 * runner on the one connection, so a statement another flow issued while a transaction was open (between two of its
 * awaited statements) ran inside it: a read saw its uncommitted rows (a call was allowed by a grants preview's draft
 * grant), an autocommit write joined it and vanished with its ROLLBACK, a transaction became a savepoint of it. Here
 * every `createQueryRunner()` returns a runner of its own (TypeORM's, on the same connection, with its own transaction
 * state, marks and event broadcaster). Only the runner that began the open transaction runs statements while it is
 * open; any other runner's statement waits until it ended (checked in the same synchronous step that runs the
 * statement, so nothing can begin in between), and transactions begin one after another: the next BEGIN is issued
 * only after the previous transaction's COMMIT or ROLLBACK. A transaction callback must therefore use its own manager
 * for every statement (one that awaited a statement of another runner would wait for itself), and wait for nothing but
 * the database: while it is open every other flow's statements wait, so the ingest work of a sync (pool, staging,
 * swap) never runs inside a TypeORM transaction.
 */
export function useImmediateTransactions(ds: DataSource, gate: WriteGate = new WriteGate()): void {
  if (ds.options.type !== 'better-sqlite3') return;
  const driver = ds.driver as unknown as { createQueryRunner(mode?: string): QueryRunner; immediate?: boolean; databaseConnection: SqliteConnection };
  if (driver.immediate) return;
  driver.immediate = true;
  // TypeORM's one runner (a new one after a reconnect), used only as the prototype of each flow's runner: its methods,
  // its statement cache (statements of the current connection), its driver.
  const sharedRunner = driver.createQueryRunner.bind(driver, 'master') as () => Runner;
  const proto = Object.getPrototypeOf(sharedRunner()) as { query(this: Runner, sql: string, parameters?: unknown[], structured?: boolean): Promise<unknown>; getStmt(this: Runner, sql: string): Promise<Stmt> };
  const connection = () => driver.databaseConnection;
  /** The runner whose transaction is open (or beginning) on the connection. */
  let owner: Runner | null = null;
  let tail: Promise<void> = Promise.resolve();
  let release: (() => void) | null = null;
  let ended = deferred();
  /** A transaction is open that `r` did not begin (`null`: any transaction). */
  const foreign = (r: Runner | null) => (owner !== null ? owner !== r : connection().inTransaction);
  const endTransaction = () => {
    owner = null;
    const e = ended;
    ended = deferred();
    e.resolve();
    const r = release;
    release = null;
    r?.();
  };
  /**
   * Until no transaction but `r`'s own is open: the one wait of every statement outside a transaction (a runner's, the
   * call log's, a committed read) and of every BEGIN. Another flow's transaction: until it ended. Open though no runner
   * of this process began it: a turn of the event loop before looking again, so the wait never spins on microtasks.
   */
  const untilFree = async (r: Runner | null) => {
    while (foreign(r)) await (owner !== null ? ended.promise : new Promise<void>((res) => setImmediate(res)));
  };

  const query = async function (this: Runner, sql: string, parameters?: unknown[], structured?: boolean): Promise<unknown> {
    if (sql === 'BEGIN TRANSACTION') {
      const previous = tail;
      let done!: () => void;
      tail = new Promise<void>((r) => (done = r));
      await previous;
      await gate.idle();
      await untilFree(this);
      owner = this;
      try {
        const out = await proto.query.call(this, 'BEGIN IMMEDIATE TRANSACTION', parameters, structured);
        release = done;
        return out;
      } catch (err) {
        release = done;
        // BEGIN ran though the call failed after it (a subscriber threw): the transaction stays this runner's until
        // TypeORM's ROLLBACK ends it. Else it never began: whoever waited for it is woken now, not at the next one's end.
        if (!connection().inTransaction) endTransaction();
        throw err;
      }
    }
    if (owner === this) {
      if (sql === 'COMMIT') {
        const out = await proto.query.call(this, sql, parameters, structured); // a failed COMMIT is followed by TypeORM's ROLLBACK
        endTransaction();
        return out;
      }
      if (sql === 'ROLLBACK') {
        try {
          return await proto.query.call(this, sql, parameters, structured);
        } finally {
          endTransaction();
        }
      }
      return proto.query.call(this, sql, parameters, structured);
    }
    for (;;) {
      await untilFree(this);
      if (WRITE.test(sql)) await gate.idle(); // an autocommit write: the lock is taken by it
      try {
        return await proto.query.call(this, sql, parameters, structured);
      } catch (err) {
        // A transaction began between the wait and the statement (getStmt below refused to run it inside): again.
        // TypeORM reports the refused attempt as a failed query (its logger, afterQuery subscribers): none listens.
        if ((err as { driverError?: unknown }).driverError === FOREIGN_TRANSACTION) continue;
        throw err;
      }
    }
  };
  const getStmt = async function (this: Runner, sql: string): Promise<Stmt> {
    const stmt = await proto.getStmt.call(this, sql);
    const check = () => {
      if (foreign(this)) throw FOREIGN_TRANSACTION;
    };
    return { reader: stmt.reader, all: (...p: unknown[]) => (check(), stmt.all(...p)), run: (...p: unknown[]) => (check(), stmt.run(...p)) };
  };
  driver.createQueryRunner = () => {
    const shared = sharedRunner();
    const sqlInMemory = shared.sqlInMemory.constructor as new () => object;
    const broadcaster = shared.broadcaster.constructor as new (r: QueryRunner) => object;
    const r = Object.create(shared) as Runner;
    Object.assign(r, { isTransactionActive: false, transactionDepth: 0, transactionPromise: null, data: {}, loadedTables: [], loadedViews: [], cachedTablePaths: {}, sqlMemoryMode: false, sqlInMemory: new sqlInMemory(), query, getStmt });
    Object.assign(r, { broadcaster: new broadcaster(r) });
    return r;
  };
  outsideByDataSource.set(ds, async <T>(fn: (db: SqliteConnection) => T, opts: { readonly readOnly?: boolean } = {}): Promise<T> => {
    // A reader needs no lock, only no open transaction. Checked in the step that runs `fn`: a transaction may have
    // begun while the gate was awaited, and then the wait starts again. Nothing open and no swap: now (the common
    // case, without waiting a turn).
    for (;;) {
      if ((opts.readOnly === true || gate.isIdle) && !foreign(null)) return fn(connection());
      await untilFree(null);
      if (!opts.readOnly) await gate.idle();
    }
  });
}

type Stmt = { readonly reader: boolean; all(...params: unknown[]): unknown; run(...params: unknown[]): unknown };
type Runner = QueryRunner & { isTransactionActive: boolean; transactionDepth: number; sqlInMemory: object; broadcaster: object };

/** Thrown by a statement of one runner that would have run inside another runner's open transaction. */
const FOREIGN_TRANSACTION = new Error("a statement would have run inside another flow's transaction");

function deferred(): { readonly promise: Promise<void>; readonly resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
