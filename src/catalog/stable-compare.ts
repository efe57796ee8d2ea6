/**
 * Code-unit order (TC-CAT-7). Not localeCompare and not SQL ORDER BY: SQLite compares text as BINARY and
 * PostgreSQL by the database collation, so only an in-code sort gives the same bytes on both drivers.
 */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
