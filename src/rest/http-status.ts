import type { ServerResponse } from 'node:http';
import { JSON_CONTENT_TYPE, errorBody } from '../shared/transport-answers';

/**
 * The literal mapping from a GraphQL outcome to HTTP (docs/errors.md). Catalog reads never answer 403:
 * an invisible tool is `null`, which is 404 exactly like an unknown one (TC-CAT-4).
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<string, number>> = Object.freeze({
  UNAUTHENTICATED: 401,
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  GRAPHQL_PARSE_FAILED: 400,
  SERVICE_UNAVAILABLE: 503,
});

/**
 * Issue 14: a call's outcome to HTTP (docs/errors.md). An unknown or invisible tool is the catalog's own 404 (null),
 * never one of these.
 */
export const CALL_STATUS_BY_CODE: Readonly<Record<string, number>> = Object.freeze({
  UNAUTHENTICATED: 401,
  BAD_USER_INPUT: 400,
  GRAPHQL_VALIDATION_FAILED: 400,
  INVALID_ARGUMENTS: 400,
  CONFLICT: 409,
  IDEMPOTENCY_KEY_REUSED: 422,
  SOURCE_OVERLOADED: 429,
  NOT_IMPLEMENTED: 501,
  UPSTREAM_UNAVAILABLE: 502,
  RESULT_TOO_LARGE: 502,
  SOURCE_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
});

export function statusForErrors(codes: readonly string[]): number {
  for (const c of codes) if (HTTP_STATUS_BY_CODE[c] !== undefined) return HTTP_STATUS_BY_CODE[c];
  return 500;
}

export const NOT_FOUND_TOOL_BODY = errorBody('NOT_FOUND', 'No tool with this id is available to you.');
export const METHOD_NOT_ALLOWED_BODY = errorBody('METHOD_NOT_ALLOWED', 'This resource is read-only: only GET is allowed.');
export const CALLS_METHOD_NOT_ALLOWED_BODY = errorBody('METHOD_NOT_ALLOWED', 'A tool is called with POST /tools/{toolId}/calls; a past call is read with GET /tools/{toolId}/calls/{callId}.');

/**
 * Sends a whole JSON body with its Content-Length (a body after a bare writeHead goes out chunked: slower, and
 * some clients count on the length; a HEAD answer carries the length its GET would have).
 */
export function sendJson(res: ServerResponse, status: number, body: string | Buffer, headers?: Readonly<Record<string, string>>): void {
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(body);
}
