/**
 * Error codes are the public contract (docs/errors.md, test/pins/error-surface.pin.test.ts); the class is
 * internal. There is deliberately no TOOL_NOT_FOUND and no FORBIDDEN for catalog reads: an unknown or
 * invisible tool is a normal `null` result of a tenant-scoped query (TC-CAT-4).
 */
export const CatalogErrorCode = {
  Unauthenticated: 'UNAUTHENTICATED',
  Forbidden: 'FORBIDDEN',
  InvalidArgument: 'BAD_USER_INPUT',
  NotFound: 'NOT_FOUND',
  Conflict: 'CONFLICT',
  InvariantViolation: 'INVARIANT_VIOLATION',
  /** A grant that would allow more than the tenant's ceiling (issue 11 defect 6). */
  CeilingExceeded: 'CEILING_EXCEEDED',
  Internal: 'INTERNAL_SERVER_ERROR',
} as const;
export type CatalogErrorCode = (typeof CatalogErrorCode)[keyof typeof CatalogErrorCode];

export class CatalogError extends Error {
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    readonly opts: { level?: 'info' | 'warn' | 'error'; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'CatalogError';
  }
}
