/**
 * The catalog version's statement and its NOTIFY, in one place for every writer: TypeORM's transactions
 * (catalog-version.ts) and the snapshot swap, which also runs on the SQLite writer thread (sources/snapshot-sql.ts).
 * No imports, so that thread loads nothing else.
 */

/** The one statement that moves the catalog version (TypeORM writers and the snapshot swap alike). */
export const BUMP_VERSION = 'UPDATE catalog_state SET version = version + 1 WHERE id = 1 RETURNING version';
/** The PostgreSQL channel every replica LISTENs on (ops/pg-notify.ts). */
export const CATALOG_CHANNEL = 'toolcat_catalog';

/** A NOTIFY's payload: the version its transaction committed, in decimal ('' if unknown: every listener then re-reads). */
export const notifyPayload = (version: number | undefined): string => (version === undefined ? '' : String(version));

/** The committed version a NOTIFY carried, or null when it carried none (an older replica's, or not a version). */
export function versionOfPayload(payload: string | undefined): number | null {
  if (!payload || !/^[0-9]{1,15}$/.test(payload)) return null;
  return Number(payload);
}
