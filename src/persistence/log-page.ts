import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';

/** Rows an admin log page returns at most (the call log, the audit log, the tool changes). */
export const MAX_LOG_PAGE = 500;
/**
 * How deep an offset may reach. A database reads every skipped row (SQLite on the serving thread), so an unbounded
 * offset let one admin stall every other caller of the process for as long as the log is long (~1-2 µs a row on
 * SQLite: 10,000 rows is a few ms). Deeper history is reached by narrowing the filter (tenant, tool, action, source).
 */
export const MAX_LOG_OFFSET = 10_000;

/**
 * The one paging rule of the admin logs: `first` clamped to 1..MAX_LOG_PAGE, a negative offset read as 0, an offset
 * past MAX_LOG_OFFSET refused with BAD_USER_INPUT (said, not silently cut: the admin would page in circles).
 */
export function logPage(first: number, offset: number): { take: number; skip: number } {
  if (offset > MAX_LOG_OFFSET) {
    throw new CatalogError(CatalogErrorCode.InvalidArgument, `offset may be at most ${MAX_LOG_OFFSET}; narrow the filter to reach older rows.`, {
      details: { reason: 'offset_out_of_range', maxOffset: MAX_LOG_OFFSET },
    });
  }
  return { take: Math.min(Math.max(first, 1), MAX_LOG_PAGE), skip: Math.max(offset, 0) };
}
