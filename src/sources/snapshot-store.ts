import type { DataSource, QueryRunner } from 'typeorm';
import type { WriteGate } from '../persistence/sqlite-immediate';
import { type Dialect, SnapshotSql, type SqlRunner, stagingDdl } from './snapshot-sql';
import { SqliteThreadStore } from './sqlite-snapshot-store';

/**
 * Where a staged snapshot is read, staged and swapped (issue 12 defect 1). The operations are SnapshotSql's; what
 * differs is the connection they run on:
 *   - PostgreSQL: the TypeORM pool. Statements are asynchronous, so the event loop stays free, and staging goes to
 *     UNLOGGED tables (migration 1764520000000) that hold no lock anyone else needs.
 *   - SQLite on a file: a writer thread with its own connection (SqliteThreadStore). better-sqlite3 is synchronous:
 *     on the main thread a swap copying thousands of heavy rows would stop every request for its duration; in the
 *     thread, readers keep reading the last committed snapshot (WAL) and only other writers wait, for the swap alone
 *     (staging goes to that connection's TEMP tables, which never lock the catalog file).
 *   - SQLite in memory (tests, embedding): the one TypeORM connection, TEMP tables on it.
 */
export type SnapshotStore = Pick<SnapshotSql, 'sourceState' | 'upstreamStamps' | 'storedListing' | 'rawOf' | 'toolStamps' | 'decisions' | 'stage' | 'quarantineStaged' | 'swap' | 'discard' | 'discardOlderThan'> & {
  close(): Promise<void>;
};

export function createSnapshotStore(ds: DataSource, gate: WriteGate | null = null): SnapshotStore {
  const o = ds.options as { type: string; database?: string };
  if (o.type === 'better-sqlite3' && o.database && o.database !== ':memory:') return new SqliteThreadStore(o.database, gate);
  return typeormStore(ds);
}

function typeormStore(ds: DataSource): SnapshotStore {
  const dialect: Dialect = ds.options.type === 'postgres' ? 'postgres' : 'sqlite';
  let ready: Promise<void> | null = null;
  const runner = typeormRunner(ds, dialect);
  const sql = new SnapshotSql(runner);
  // SQLite keeps staging in TEMP tables of its single connection: created once, gone with the connection.
  const ensure = () => (ready ??= dialect === 'sqlite' ? stagingDdl('sqlite').reduce((p, ddl) => p.then(() => runner.run(ddl).then(() => undefined)), Promise.resolve()) : Promise.resolve());
  const wrap = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
    await ensure();
    return f(...a);
  };
  return {
    sourceState: wrap(sql.sourceState.bind(sql)),
    upstreamStamps: wrap(sql.upstreamStamps.bind(sql)),
    storedListing: wrap(sql.storedListing.bind(sql)),
    rawOf: wrap(sql.rawOf.bind(sql)),
    toolStamps: wrap(sql.toolStamps.bind(sql)),
    decisions: wrap(sql.decisions.bind(sql)),
    stage: wrap(sql.stage.bind(sql)),
    quarantineStaged: wrap(sql.quarantineStaged.bind(sql)),
    swap: wrap(sql.swap.bind(sql)),
    discard: wrap(sql.discard.bind(sql)),
    discardOlderThan: wrap(sql.discardOlderThan.bind(sql)),
    close: async () => undefined,
  };
}

/** SqlRunner over TypeORM: pooled statements outside transactions, the transaction's own runner inside one. */
export function typeormRunner(ds: DataSource, dialect: Dialect, tx?: QueryRunner): SqlRunner {
  const exec = async (sql: string, params: readonly unknown[]) => {
    const text = dialect === 'postgres' ? numbered(sql) : sql;
    if (tx) return tx.query(text, [...params], true);
    const qr = ds.createQueryRunner();
    try {
      return await qr.query(text, [...params], true);
    } finally {
      await qr.release();
    }
  };
  return {
    dialect,
    all: async (sql, params = []) => ((await exec(sql, params)).records ?? []) as Array<Record<string, unknown>>,
    run: async (sql, params = []) => Number((await exec(sql, params)).affected ?? 0),
    transaction: (fn) => (tx ? fn(typeormRunner(ds, dialect, tx)) : ds.transaction((m) => fn(typeormRunner(ds, dialect, m.queryRunner!)))),
  };
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the snapshot SQL has no `?` inside literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
