import type { EntityManager } from 'typeorm';

/**
 * Bumps the catalog version inside the caller's transaction (see CatalogStateEntity) and marks the query
 * runner, so the in-process cache generation advances right after the commit (cache/catalog-generation.ts).
 */
export async function bumpCatalogVersion(m: EntityManager): Promise<void> {
  await m.query('UPDATE catalog_state SET version = version + 1 WHERE id = 1');
  // PostgreSQL delivers the notification to every listening replica when (and only if) this transaction commits.
  if (m.connection.options.type === 'postgres') await m.query("SELECT pg_notify('toolcat_catalog', '')");
  if (m.queryRunner) (m.queryRunner.data as { catalogChanged?: boolean }).catalogChanged = true;
}

const READ_VERSION = 'SELECT version FROM catalog_state WHERE id = 1';

/** The part of a better-sqlite3 connection read here (the driver's own types are not a dependency). */
interface SqliteReader {
  prepare(sql: string): { get(): { version: number } | undefined };
}
/** One prepared statement per SQLite connection: a reconnected data source gets a new connection and statement. */
const sqliteVersionReads = new WeakMap<SqliteReader, ReturnType<SqliteReader['prepare']>>();

/**
 * The stored catalog version. Every call's decision reads it (issue 14: a change made on any replica or by the CLI
 * applies to the next call), so on SQLite it is one prepared statement on the process's one connection, as
 * TypeORM's `query` would run it on that same connection, without the query runner's path around it: ~55 -> ~32 µs
 * of a call's wall time on one connection (bench scenario i, measured stage by stage). PostgreSQL goes through the pool.
 */
export async function readCatalogVersion(m: EntityManager): Promise<number> {
  if (m.connection.options.type === 'better-sqlite3' && !m.queryRunner) {
    const db = (m.connection.driver as unknown as { databaseConnection: SqliteReader }).databaseConnection;
    let read = sqliteVersionReads.get(db);
    if (read === undefined) {
      read = db.prepare(READ_VERSION);
      sqliteVersionReads.set(db, read);
    }
    const row = read.get();
    return row ? Number(row.version) : 0;
  }
  const rows = (await m.query(READ_VERSION)) as Array<{ version: number | string }>;
  return rows.length ? Number(rows[0].version) : 0;
}
