import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { ToolCallResult } from './invocation.service';
import type { UpstreamError, UpstreamErrorKind } from './upstream';

/**
 * What a call ended with, as it is recorded (and replayed for an Idempotency-Key): the result, or the error the
 * caller got. Transport-free: the REST facade and the GraphQL layer each map the code (rest/http-status.ts).
 */
export type CallAnswer =
  | { readonly result: ToolCallResult; readonly bytes: number }
  | { readonly error: { readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> } };

export function answerOfResult(result: ToolCallResult): CallAnswer & { bytes: number } {
  return { result, bytes: Buffer.byteLength(JSON.stringify(result)) };
}

export function answerOfError(err: CatalogError): CallAnswer {
  return { error: { code: err.code, message: err.message, ...(err.opts.details ? { details: err.opts.details } : {}) } };
}

export function errorOfAnswer(a: Extract<CallAnswer, { error: unknown }>): CatalogError {
  return new CatalogError(a.error.code as CatalogErrorCode, a.error.message, a.error.details ? { details: a.error.details } : {});
}

const CODE_BY_KIND: Readonly<Record<UpstreamErrorKind, CatalogErrorCode>> = {
  timeout: CatalogErrorCode.UpstreamTimeout,
  unavailable: CatalogErrorCode.UpstreamUnavailable,
  protocol: CatalogErrorCode.UpstreamUnavailable,
  'too-large': CatalogErrorCode.ResultTooLarge,
  overloaded: CatalogErrorCode.SourceOverloaded,
  'circuit-open': CatalogErrorCode.SourceUnavailable,
  'not-implemented': CatalogErrorCode.NotImplemented,
  cancelled: CatalogErrorCode.Conflict,
  // Asked again when it left the queue, the decision said no: the caller gets the catalog's own 404.
  revoked: CatalogErrorCode.NotFound,
};

/** The caller's view of an upstream failure: its code, a message without secrets, Retry-After where there is one. */
export function errorOfUpstream(e: UpstreamError): CatalogError {
  const message =
    e.kind === 'cancelled' ? 'The call was cancelled when its caller went away; call again with a new Idempotency-Key.' : e.kind === 'revoked' ? 'No tool with this id is available to you.' : e.message;
  const details = e.opts.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.opts.retryAfterSeconds } : undefined;
  return new CatalogError(CODE_BY_KIND[e.kind], message, details ? { details } : {});
}

/** The call log's outcome word for an upstream failure (its kind). */
export function outcomeOfUpstream(kind: UpstreamErrorKind): string {
  return kind;
}
