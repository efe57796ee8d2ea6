import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { CachedBody, StreamedBody } from '../cache/cached-body';
import type { GraphQLContext } from '../graphql/context';
import { sendRevalidatable } from './conditional';
import { CAPABILITIES, GET_TOOL, LIST_TOOLS, SEARCH_TOOLS } from './documents';
import type { ExecutionOutcome, GraphQLExecutor } from './graphql-executor';
import type { DecisionMemo } from './decision-memo';
import { splitTarget } from '../shared/request-target';
import { type CallRouteDeps, getCall, postCall, prepareCallDocuments } from './call-routes';
import { CALLS_METHOD_NOT_ALLOWED_BODY, HTTP_STATUS_BY_CODE, METHOD_NOT_ALLOWED_BODY, NOT_FOUND_TOOL_BODY, sendJson, statusForErrors } from './http-status';
import { AUTHENTICATION_REQUIRED_TEXT, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS, bearerChallenge, errorBody } from '../shared/transport-answers';
import { type RateLimiter, admitOrRefuse } from './rate-limit';
import { type SearchInput, type SearchRefusal, isRefusal, searchOfBody, searchOfQueryString, sendRefusal, sendSearch } from './search-routes';

export interface RestFacadeDeps {
  readonly exec: GraphQLExecutor;
  /** The list and tool reads' outcomes, once per catalog generation and decision key (issue 21). */
  readonly decisions: DecisionMemo;
  /** Identity, decided once per request (shared with /graphql). */
  readonly contextFor: (req: IncomingMessage) => Promise<GraphQLContext>;
  readonly limiter: RateLimiter;
  /** The call endpoints' bounds (issue 14). */
  readonly calls: Omit<CallRouteDeps, 'exec'>;
  /** The rate-limit bucket of an authenticated request: everything the principal's identity depends on. */
  readonly budgetKey: (ctx: GraphQLContext) => string;
  /** While the database is known to be down, answer 503 at once instead of queueing on the pool (issue 7). */
  readonly databaseUp: () => boolean;
  /** Everything thrown on the way (an outage while authenticating, a bug) ends here, as for the rest of the app. */
  readonly onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

/** The facade's answer to one request; false when the path is not one of its endpoints. */
export type RestFacade = (req: IncomingMessage, res: ServerResponse) => boolean;


/**
 * The REST facade (RFC 0078): parse the request, run a fixed GraphQL document in-process, map the outcome.
 * It holds no authorization or view logic; everything it sends comes from the GraphQL layer.
 *
 * It is a plain node:http handler in front of Express, not an Express router: agents fetch the catalog on
 * every turn, and Express's per-request work (request/response prototype swaps, its router) measured 0.1 to
 * 0.25 ms of CPU per request on this machine, as much as writing a 1.5 MB body (`npm run bench`, issue 6).
 * Its paths are `/tools`, `/tools/{toolId}` and `/capabilities` (see matchRoute); anything else goes on to Express.
 */
export function createRestFacade(deps: RestFacadeDeps): RestFacade {
  const { exec } = deps;
  for (const doc of [LIST_TOOLS, GET_TOOL, CAPABILITIES, SEARCH_TOOLS]) exec.prepare(doc);
  prepareCallDocuments(exec);
  const callDeps: CallRouteDeps = { exec, ...deps.calls };

  return (req, res) => {
    const { path, query } = splitTarget(req.url);
    const route = matchRoute(path);
    if (!route) return false;
    let toolId: string | null = null;
    if (route.rawToolId !== undefined) {
      try {
        toolId = decodeURIComponent(route.rawToolId);
      } catch {
        // Malformed percent-encoding is a malformed request, not an unknown tool.
        sendJson(res, 400, errorBody('BAD_REQUEST', 'The request could not be understood.'));
        return true;
      }
    }
    let callId: string | null = null;
    if (route.rawCallId !== undefined) {
      try {
        callId = decodeURIComponent(route.rawCallId);
      } catch {
        sendJson(res, 400, errorBody('BAD_REQUEST', 'The request could not be understood.'));
        return true;
      }
    }
    // Issue 18: POST /tools/search is the read-only search with a body (task texts too long for a URL). Every other
    // method on /tools/search is that of /tools/{toolId} for the toolId "search".
    if (route.kind === 'tools' && toolId === 'search' && req.method === 'POST') {
      if (!deps.databaseUp()) {
        sendJson(res, 503, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS);
        return true;
      }
      serveSearch(deps, req, res, () => searchOfBody(req, deps.calls.bodyDeadlineMs)).catch((err: unknown) => deps.onError(err, req, res));
      return true;
    }
    // TC-CAT-2: the catalog is read-only; a tool's calls are POSTed to /tools/{toolId}/calls (issue 14), a past call
    // is read with GET. Any other method answers 405 before anything runs.
    const allowed = route.kind === 'calls' ? (callId === null ? ['POST'] : ['GET', 'HEAD']) : ['GET', 'HEAD'];
    if (!allowed.includes(req.method ?? '')) {
      sendJson(res, 405, route.kind === 'calls' && callId === null ? CALLS_METHOD_NOT_ALLOWED_BODY : METHOD_NOT_ALLOWED_BODY, { Allow: allowed.join(', ') });
      return true;
    }
    if (!deps.databaseUp()) {
      sendJson(res, 503, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS);
      return true;
    }
    if (route.kind === 'calls') {
      serveCall(deps, callDeps, req, res, toolId!, callId).catch((err: unknown) => deps.onError(err, req, res));
      return true;
    }
    if (route.kind === 'tools' && toolId === null && query !== null) {
      const search = searchOfQueryString(query);
      if (search) {
        serveSearch(deps, req, res, () => Promise.resolve(search)).catch((err: unknown) => deps.onError(err, req, res));
        return true;
      }
    }
    const view = query === null ? null : viewParam(query);
    const profile = query === null ? null : viewParam(query, 'profile'); // issue 16: same parsing rule as `view`
    serve(deps, req, res, route.kind === 'capabilities' ? null : toolId === null ? { view, profile } : { toolId, view, profile }).catch((err: unknown) => deps.onError(err, req, res));
    return true;
  };
}

async function serve(deps: RestFacadeDeps, req: IncomingMessage, res: ServerResponse, args: { view: string | null; profile: string | null; toolId?: string } | null): Promise<void> {
  const ctx = await deps.contextFor(req);
  // Per principal; unauthenticated requests are not limited here: they are answered 401.
  // Keyed by the whole decision key (issue 11 defect 1): one subject in two tenants has two budgets.
  if (ctx.principal && !admitOrRefuse(deps.limiter, deps.budgetKey(ctx), res)) return;
  if (!args) {
    const out = await deps.exec.execute(CAPABILITIES, {}, ctx);
    if (out.errorCodes.length) return sendError(res, ctx, out);
    return sendJson(res, 200, JSON.stringify(out.data?.capabilities));
  }
  const out =
    args.toolId === undefined
      ? await deps.decisions.execute(deps.exec, 'list', LIST_TOOLS, { view: args.view, profile: args.profile }, { ...ctx, streamBodies: true })
      : await deps.decisions.execute(deps.exec, 'tool', GET_TOOL, { toolId: args.toolId, view: args.view, profile: args.profile }, ctx);
  sendDocument(req, res, ctx, out);
}

/** Identity and budget first (a refused caller's body is never read), then the search's input, then the search. */
async function serveSearch(deps: RestFacadeDeps, req: IncomingMessage, res: ServerResponse, input: () => Promise<SearchInput | SearchRefusal>): Promise<void> {
  const ctx = await deps.contextFor(req);
  if (ctx.principal && !admitOrRefuse(deps.limiter, deps.budgetKey(ctx), res)) return;
  if (!ctx.principal) {
    res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
    return sendJson(res, 401, errorBody('UNAUTHENTICATED', AUTHENTICATION_REQUIRED_TEXT));
  }
  const got = await input();
  if (isRefusal(got)) return sendRefusal(res, got);
  return sendSearch(deps.exec, req, res, ctx, got);
}

async function serveCall(deps: RestFacadeDeps, callDeps: CallRouteDeps, req: IncomingMessage, res: ServerResponse, toolId: string, callId: string | null): Promise<void> {
  const ctx = await deps.contextFor(req);
  if (!ctx.principal) return sendCallUnauthenticated(res, ctx);
  if (!admitOrRefuse(deps.limiter, deps.budgetKey(ctx), res)) return;
  if (callId === null) return postCall(callDeps, req, res, ctx, toolId);
  return getCall(callDeps, res, ctx, toolId, callId);
}

function sendCallUnauthenticated(res: ServerResponse, ctx: GraphQLContext): void {
  res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
  sendJson(res, 401, errorBody('UNAUTHENTICATED', AUTHENTICATION_REQUIRED_TEXT));
}

interface DocumentData {
  /** The cached bytes in-process (CachedBody; a StreamedBody for a large list, issue 21), or their text. */
  readonly body: CachedBody | StreamedBody | string;
  readonly etag: string;
}

function sendDocument(req: IncomingMessage, res: ServerResponse, ctx: GraphQLContext, out: ExecutionOutcome): void {
  if (out.errorCodes.length) return sendError(res, ctx, out);
  const doc = out.data?.document as DocumentData | null | undefined;
  // Unknown and not-yours are the same null, so the same bytes and headers (TC-CAT-4).
  if (!doc) return sendJson(res, 404, NOT_FOUND_TOOL_BODY);
  sendRevalidatable(req, res, doc);
}

function sendError(res: ServerResponse, ctx: GraphQLContext, out: ExecutionOutcome): void {
  const status = statusForErrors(out.errorCodes);
  if (status === 503) for (const [k, v] of Object.entries(UNAVAILABLE_HEADERS)) res.setHeader(k, v);
  if (status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
  const code = status === 500 ? 'INTERNAL_SERVER_ERROR' : (out.errorCodes.find((c) => HTTP_STATUS_BY_CODE[c] === status) ?? out.errorCodes[0]);
  const message = status === 500 ? 'Internal server error.' : out.errorMessages[out.errorCodes.indexOf(code)];
  sendJson(res, status, errorBody(code, message));
}

/**
 * The facade's paths, matched as the Express router they replace did (case-insensitive, one optional trailing
 * slash), except that the toolId segment keeps its case: `/tools`, `/tools/{toolId}`, `/capabilities`.
 */
function matchRoute(path: string): { kind: 'tools' | 'capabilities' | 'calls'; rawToolId?: string; rawCallId?: string } | null {
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (p.length < 6) return null;
  const head = p.slice(0, 7).toLowerCase();
  if (head === '/tools' && p.length === 6) return { kind: 'tools' };
  if (head === '/tools/' && p.length > 7 && p.indexOf('/', 7) < 0) return { kind: 'tools', rawToolId: p.slice(7) };
  if (head === '/tools/' && p.length > 7) {
    // /tools/{toolId}/calls and /tools/{toolId}/calls/{callId} (issue 14).
    const [rawToolId, calls, rawCallId, ...more] = p.slice(7).split('/');
    if (rawToolId && calls?.toLowerCase() === 'calls' && more.length === 0 && rawCallId !== '') return { kind: 'calls', rawToolId, rawCallId };
  }
  if (p.length === 13 && p.toLowerCase() === '/capabilities') return { kind: 'capabilities' };
  return null;
}

/**
 * `view` as Express's default ("simple", node:querystring) parser read it: a repeated parameter is not a view
 * name, so it falls back to the standard view (TC-VIEW-4) like any unknown value. `profile` (issue 16) is read alike:
 * a repeated one is no profile name, so the neutral compact view.
 */
function viewParam(query: string, name: 'view' | 'profile' = 'view'): string | null {
  const v = parseQuery(query)[name];
  return typeof v === 'string' ? v : null;
}
