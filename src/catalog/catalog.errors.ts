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
  // Calls (issue 14). An unknown or invisible tool is never an error: the catalog's own `null` (404).
  /** The arguments do not match the tool's inputSchema; `details.problems` lists each (pointer, message). */
  InvalidArguments: 'INVALID_ARGUMENTS',
  /** An Idempotency-Key used again for another tool or other arguments. */
  IdempotencyKeyReused: 'IDEMPOTENCY_KEY_REUSED',
  /** The tool did not answer within the call's bound. */
  UpstreamTimeout: 'UPSTREAM_TIMEOUT',
  /** The tool's server could not be reached, failed mid-call or answered something that is not a result. */
  UpstreamUnavailable: 'UPSTREAM_UNAVAILABLE',
  /** The tool's result is larger than TOOLCAT_CALL_MAX_RESULT_BYTES. */
  ResultTooLarge: 'RESULT_TOO_LARGE',
  /** The source's call queue is full; `details.retryAfterSeconds`. */
  SourceOverloaded: 'SOURCE_OVERLOADED',
  /** The source failed repeatedly and is given a rest; `details.retryAfterSeconds`. */
  SourceUnavailable: 'SOURCE_UNAVAILABLE',
  /** A host extension without a declared implementation. */
  NotImplemented: 'NOT_IMPLEMENTED',
  Internal: 'INTERNAL_SERVER_ERROR',
} as const;
export type CatalogErrorCode = (typeof CatalogErrorCode)[keyof typeof CatalogErrorCode];

export class CatalogError extends Error {
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    /** `details`: structured, non-secret data for the caller (e.g. argument problems, Retry-After seconds). */
    readonly opts: { level?: 'info' | 'warn' | 'error'; cause?: unknown; details?: Readonly<Record<string, unknown>> } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'CatalogError';
  }
}
