/**
 * The SQLite writer thread of staged snapshots (issue 12 defect 1; see snapshot-store.ts for why it exists). It owns
 * one better-sqlite3 connection to the catalog file and runs SnapshotSql operations one at a time, in the order they
 * arrive. Staging goes to this connection's TEMP tables, so a staged batch never takes the catalog file's write lock;
 * the swap is the one transaction here that does (BEGIN IMMEDIATE: the lock is taken before anything is read, so a
 * concurrent writer can never make its reads stale). Imports the snapshot SQL and better-sqlite3 only.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SnapshotSql, type SqlRunner, stagingDdl } from './snapshot-sql';

/** The part of better-sqlite3 used here (the package ships no types; TypeORM's driver loads the same module). */
interface Statement {
  readonly reader: boolean;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): { changes: number };
}
interface Database {
  readonly inTransaction: boolean;
  pragma(source: string): unknown;
  exec(source: string): void;
  prepare(source: string): Statement;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const openDatabase = require('better-sqlite3') as new (path: string) => Database;

type Call = { id: number; op: string; args: unknown[] };

const db = new openDatabase((workerData as { path: string }).path);
// The same pragmas as the main connection (data-source.ts), and foreign keys on as TypeORM sets them.
db.pragma('busy_timeout = 5000');
db.pragma('foreign_keys = ON');
db.pragma('case_sensitive_like = ON');
// Staging is scratch: kept in a temporary file of this connection, never in memory as a whole.
db.pragma('temp_store = FILE');
// A swap's commit does not checkpoint the WAL (issue 12: copying a 5,000-heavy-tool swap back into the database file
// was ~40% of the time the swap held the write gate). The checkpoint runs after the answer is sent (see below): it
// takes no write lock, so writers and readers go on meanwhile.
db.pragma('wal_autocheckpoint = 0');
for (const ddl of stagingDdl('sqlite')) db.exec(ddl);

const statements = new Map<string, Statement>();
function prepared(sql: string): Statement {
  let s = statements.get(sql);
  if (!s) {
    s = db.prepare(sql);
    statements.set(sql, s);
    if (statements.size > 200) statements.delete(statements.keys().next().value as string);
  }
  return s;
}
const bind = (params: readonly unknown[]) => params.map((p) => (typeof p === 'boolean' ? (p ? 1 : 0) : p));

const runner: SqlRunner = {
  dialect: 'sqlite',
  all: async (sql, params = []) => {
    const s = prepared(sql);
    if (s.reader) return s.all(...bind(params)) as Array<Record<string, unknown>>;
    s.run(...bind(params));
    return [];
  },
  run: async (sql, params = []) => prepared(sql).run(...bind(params)).changes,
  async transaction(fn) {
    db.exec('BEGIN IMMEDIATE');
    try {
      const out = await fn(runner);
      db.exec('COMMIT');
      return out;
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  },
};
const sql = new SnapshotSql(runner) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;

let queue = Promise.resolve();
parentPort!.on('message', (m: Call) => {
  queue = queue.then(async () => {
    try {
      if (m.op === 'close') {
        db.close();
        parentPort!.postMessage({ id: m.id, ok: true, result: null });
        return;
      }
      const result = await sql[m.op](...m.args);
      parentPort!.postMessage({ id: m.id, ok: true, result });
      if (m.op === 'swap') checkpoint();
    } catch (err) {
      const e = err as { message?: string; code?: string };
      parentPort!.postMessage({ id: m.id, ok: false, error: { message: e.message ?? String(err), code: e.code } });
    }
  });
});

/**
 * The WAL pages a swap left, copied back into the database file right after its answer was sent. PASSIVE: it waits
 * for no one and blocks no one (writers append to the WAL meanwhile, readers read), and a main-thread commit arriving
 * meanwhile finds the checkpoint busy and skips its own autocheckpoint instead of doing this copy on the event loop.
 */
function checkpoint(): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    /* an optimisation only: the next checkpoint (this one's or an autocheckpoint) catches up */
  }
}
