import { CatalogErrorCode } from '../catalog/catalog.errors';

/**
 * The one home of the answers every transport gives alike (issue 13): the error envelope, the 503 of a database
 * outage with its Retry-After, the RFC 6750 bearer challenge, and the list of codes a client may see. The REST
 * facade, the GraphQL layer and the request listener all answer through these, so a 503 or a 401 reads the same
 * everywhere (docs/errors.md; test/pins/error-surface.pin.test.ts).
 */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** Small JSON error envelope; no stack traces, same bytes for the same situation. */
export function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

export const SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE';
/** What every face says to a caller without an accepted credential (catalog/admin-scope.ts says it too). */
export { AUTHENTICATION_REQUIRED as AUTHENTICATION_REQUIRED_TEXT } from '../catalog/admin-scope';
/** How long a client should wait after a 503 (the health probe runs every second; two probes). */
const RETRY_AFTER_SECONDS = '2';
export const UNAVAILABLE_MESSAGE = 'The catalog database is unavailable; retry shortly.';
export const UNAVAILABLE_BODY = errorBody(SERVICE_UNAVAILABLE, UNAVAILABLE_MESSAGE);
export const UNAVAILABLE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'Retry-After': RETRY_AFTER_SECONDS });

/**
 * RFC 6750 section 3: the bare challenge when no credential came, `error="invalid_token"` when one came and was
 * refused (whatever the reason: the reason is logged, never answered).
 */
export function bearerChallenge(credentialRejected: boolean): string {
  return credentialRejected ? 'Bearer realm="toolcat", error="invalid_token"' : 'Bearer realm="toolcat"';
}

/** Codes graphql-js and Apollo give a request refused before any resolver ran. */
export const REQUEST_ERROR_CODES = [
  'GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_REQUEST', 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'OPERATION_RESOLUTION_FAILURE',
] as const;

/**
 * Every `extensions.code` a GraphQL client may see as it is, derived from the domain's code list (never re-listed):
 * the CatalogErrorCodes, the request-level codes and SERVICE_UNAVAILABLE. Anything else is masked as
 * INTERNAL_SERVER_ERROR by format-error.ts.
 */
export const PUBLIC_GRAPHQL_CODES: ReadonlySet<string> = new Set<string>([
  ...Object.values(CatalogErrorCode).filter((c) => c !== CatalogErrorCode.Internal),
  ...REQUEST_ERROR_CODES,
  SERVICE_UNAVAILABLE,
]);
