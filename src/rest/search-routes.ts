import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import { CachedBody } from '../cache/cached-body';
import type { GraphQLContext } from '../graphql/context';
import { MAX_QUERY_CHARS } from '../search/query';
import { MAX_BODY_NESTING, readJsonBody } from '../shared/json-body';
import { UNAVAILABLE_HEADERS, bearerChallenge, errorBody } from '../shared/transport-answers';
import { sendRevalidatable } from './conditional';
import { SEARCH_TOOLS } from './documents';
import type { ExecutionOutcome, GraphQLExecutor } from './graphql-executor';
import { HTTP_STATUS_BY_CODE, sendJson, statusForErrors } from './http-status';

/**
 * Tool search over REST (issue 18), translated onto the GraphQL layer's `searchToolsDocument` like every other read:
 *   GET  /tools?q=<text>[&limit=<k>][&view=compact]   (without q, GET /tools is unchanged)
 *   POST /tools/search  { "query": "...", "limit": k, "view": "..." }   for task texts too long for a URL; read-only
 * Both answer the same bytes and ETag for the same catalog, query, limit and view: the list's shape in the applied
 * view, in relevance order. Authorization, visibility and the query's checks are the GraphQL layer's.
 */
export interface SearchInput {
  readonly query: unknown;
  readonly limit: number | null;
  readonly view: string | null;
  /** Issue 16: a provider profile of the compact view (unknown or absent: the neutral compact view). */
  readonly profile: string | null;
}

/** A request refused here, before anything runs. */
export interface SearchRefusal {
  readonly status: number;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Largest POST body: a query of MAX_QUERY_CHARS UTF-16 units is at most 6 bytes a unit in JSON (`\u0001`), plus
 * the other fields. A larger body is refused with 413 before it is parsed; a smaller one whose query is still too
 * long is the GraphQL layer's 400 (query_too_long).
 */
export const MAX_SEARCH_BODY_BYTES = 6 * MAX_QUERY_CHARS + 1024;
/** Decimal digits of a limit worth parsing (anything longer is out of range anyway). */
const MAX_LIMIT_DIGITS = 6;

/** The search of GET /tools?…, or null when the query string has no `q` (then GET /tools is what it always was). */
export function searchOfQueryString(query: string): SearchInput | SearchRefusal | null {
  const params = parseQueryString(query);
  if (params.q === undefined) return null;
  if (typeof params.q !== 'string') return badInput('query_not_text', 'Send one q parameter.');
  const limit = limitOf(params.limit);
  if (limit === 'bad') return badInput('limit_out_of_range', 'limit must be one integer from 1 to 100.');
  return { query: params.q, limit, view: typeof params.view === 'string' ? params.view : null, profile: typeof params.profile === 'string' ? params.profile : null };
}

/** The search of POST /tools/search: a JSON object { query, limit?, view? }. */
export async function searchOfBody(req: IncomingMessage, bodyDeadlineMs: number): Promise<SearchInput | SearchRefusal> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') return { status: 415, body: errorBody('BAD_REQUEST', 'The request body must be JSON (Content-Type: application/json).') };
  // Bounded in bytes, time and nesting before anything is parsed (shared/json-body.ts, as on /mcp and the calls).
  const read = await readJsonBody(req, { maxBytes: MAX_SEARCH_BODY_BYTES, deadlineMs: bodyDeadlineMs, maxDepth: MAX_BODY_NESTING });
  if (!read.ok && read.why === 'too-large') {
    return { status: 413, body: errorBody('BAD_REQUEST', `The request body is larger than ${MAX_SEARCH_BODY_BYTES} bytes (the query is at most ${MAX_QUERY_CHARS} characters).`), headers: { Connection: 'close' } };
  }
  if (!read.ok && read.why === 'too-slow') return { status: 408, body: errorBody('BAD_REQUEST', `The request body did not arrive within ${bodyDeadlineMs} ms.`), headers: { Connection: 'close' } };
  if (!read.ok && read.why === 'too-deep') return { status: 400, body: errorBody('BAD_REQUEST', `The request body is nested more than ${MAX_BODY_NESTING} levels deep.`) };
  if (!read.ok || read.empty) return { status: 400, body: errorBody('BAD_REQUEST', 'The request body is not JSON.') };
  const parsed = read.value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { status: 400, body: errorBody('BAD_REQUEST', 'The request body must be a JSON object: { "query": "…", "limit": 10 }.') };
  const o = parsed as Record<string, unknown>;
  const unknownKeys = Object.keys(o).filter((k) => k !== 'query' && k !== 'limit' && k !== 'view' && k !== 'profile');
  if (unknownKeys.length) return { status: 400, body: errorBody('BAD_REQUEST', `Unknown field${unknownKeys.length > 1 ? 's' : ''} in the request body: ${unknownKeys.slice(0, 5).join(', ')}. The body is { "query", "limit", "view", "profile" }.`) };
  if (typeof o.query !== 'string') return badInput(o.query === undefined ? 'query_empty' : 'query_not_text', 'query must be a non-empty string.');
  if (o.limit !== undefined && o.limit !== null && (typeof o.limit !== 'number' || !Number.isInteger(o.limit) || Math.abs(o.limit) > 1e6)) {
    return badInput('limit_out_of_range', 'limit must be an integer from 1 to 100.');
  }
  if (o.view !== undefined && o.view !== null && typeof o.view !== 'string') return { status: 400, body: errorBody('BAD_REQUEST', 'view must be a string.') };
  if (o.profile !== undefined && o.profile !== null && typeof o.profile !== 'string') return { status: 400, body: errorBody('BAD_REQUEST', 'profile must be a string.') };
  return { query: o.query, limit: (o.limit as number | null | undefined) ?? null, view: (o.view as string | null | undefined) ?? null, profile: (o.profile as string | null | undefined) ?? null };
}

export function isRefusal(x: SearchInput | SearchRefusal): x is SearchRefusal {
  return 'status' in x;
}

export function sendRefusal(res: ServerResponse, r: SearchRefusal): void {
  sendJson(res, r.status, r.body, r.headers);
}

/** Runs the search document and answers it (ETag, 304 on If-None-Match) or its error (with details.reason). */
export async function sendSearch(exec: GraphQLExecutor, req: IncomingMessage, res: ServerResponse, ctx: GraphQLContext, input: SearchInput): Promise<void> {
  const out = await exec.execute(SEARCH_TOOLS, { query: input.query, limit: input.limit, view: input.view, profile: input.profile }, ctx);
  if (out.errorCodes.length) return sendSearchError(res, ctx, out);
  sendRevalidatable(req, res, out.data?.document as { body: CachedBody | string; etag: string });
}

function sendSearchError(res: ServerResponse, ctx: GraphQLContext, out: ExecutionOutcome): void {
  const status = statusForErrors(out.errorCodes);
  if (status === 503) for (const [k, v] of Object.entries(UNAVAILABLE_HEADERS)) res.setHeader(k, v);
  if (status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
  if (status === 500) return sendJson(res, 500, errorBody('INTERNAL_SERVER_ERROR', 'Internal server error.'));
  const i = Math.max(0, out.errorCodes.findIndex((c) => HTTP_STATUS_BY_CODE[c] === status));
  const details = out.errorDetails?.[i];
  sendJson(res, status, JSON.stringify({ error: { code: out.errorCodes[i], message: out.errorMessages[i], ...(details ? { details } : {}) } }));
}

function badInput(reason: string, message: string): SearchRefusal {
  return { status: 400, body: JSON.stringify({ error: { code: 'BAD_USER_INPUT', message, details: { reason } } }) };
}

function limitOf(v: string | string[] | undefined): number | null | 'bad' {
  if (v === undefined) return null;
  if (typeof v !== 'string' || !/^[0-9]+$/.test(v)) return 'bad';
  return v.length > MAX_LIMIT_DIGITS ? 'bad' : Number(v);
}
