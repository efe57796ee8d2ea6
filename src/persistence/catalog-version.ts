import type { EntityManager } from 'typeorm';
import { BUMP_VERSION, CATALOG_CHANNEL, notifyPayload } from './catalog-version-sql';
import { committedReads } from './sqlite-immediate';

/**
 * Bumps the catalog version inside the caller's transaction (see CatalogStateEntity) and notes the version written on
 * the query runner, so the in-process cache generation takes it right after the commit (cache/catalog-generation.ts)
 * and neither the next version poll nor the NOTIFY echo of this very write is taken for another change.
 */
export async function bumpCatalogVersion(m: EntityManager): Promise<void> {
  // A structured result: its `records` are the RETURNING rows on both backends, where a plain query's UPDATE result is
  // [rows, count] on PostgreSQL and the rows on SQLite. Outside a transaction (no runner), the plain result.
  const rows = m.queryRunner ? ((await m.queryRunner.query(BUMP_VERSION, [], true)) as { records: unknown[] }).records : ((r: unknown[]) => (Array.isArray(r[0]) ? r[0] : r))(await m.query(BUMP_VERSION));
  const row = rows[0] as { version?: number | string } | undefined;
  const version = row?.version === undefined ? undefined : Number(row.version);
  // PostgreSQL delivers the notification to every listening replica when (and only if) this transaction commits.
  if (m.connection.options.type === 'postgres') await m.query('SELECT pg_notify($1, $2)', [CATALOG_CHANNEL, notifyPayload(version)]);
  if (m.queryRunner) Object.assign(m.queryRunner.data as object, { catalogChanged: true, catalogVersion: version });
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
 *
 * Outside a transaction it is the committed version. On SQLite that one connection also carries every other flow's
 * open transaction, and a read there would see its uncommitted bump: the generation would take a number that a
 * rollback then frees, and the real change that next writes it would look already seen (a revoked key kept
 * authenticating: test/integration/catalog-generation.test.ts). So the read waits until no transaction is open
 * (committedReads; no wait in the common case, and never for a sync's swap).
 */
export async function readCatalogVersion(m: EntityManager): Promise<number> {
  if (m.connection.options.type === 'better-sqlite3' && !m.queryRunner) {
    return committedReads(m.connection, (conn) => {
      const db = conn as unknown as SqliteReader;
      let read = sqliteVersionReads.get(db);
      if (read === undefined) {
        read = db.prepare(READ_VERSION);
        sqliteVersionReads.set(db, read);
      }
      const row = read.get();
      return row ? Number(row.version) : 0;
    });
  }
  const rows = (await m.query(READ_VERSION)) as Array<{ version: number | string }>;
  return rows.length ? Number(rows[0].version) : 0;
}
