import { type Request, type Response, Router } from 'express';
import { CachedBody } from '../cache/cached-body';
import type { GraphQLContext } from '../graphql/context';
import { ifNoneMatchHits } from './conditional';
import { CAPABILITIES, GET_TOOL, LIST_TOOLS } from './documents';
import type { ExecutionOutcome, GraphQLExecutor } from './graphql-executor';
import { HTTP_STATUS_BY_CODE, METHOD_NOT_ALLOWED_BODY, NOT_FOUND_TOOL_BODY, errorBody, statusForErrors } from './http-status';

/**
 * The REST facade (RFC 0078): parse the request, run a fixed GraphQL document in-process, map the outcome.
 * It holds no authorization or view logic; everything it sends comes from the GraphQL layer.
 */
export function createRestRouter(exec: GraphQLExecutor, contextFor: (req: Request) => Promise<GraphQLContext>): Router {
  const router = Router();

  router.get('/tools', async (req, res) => {
    const ctx = await contextFor(req);
    const out = await exec.execute(LIST_TOOLS, { view: stringParam(req.query.view) }, ctx);
    sendDocument(req, res, ctx, out);
  });

  router.get('/tools/:toolId', async (req, res) => {
    const ctx = await contextFor(req);
    const out = await exec.execute(GET_TOOL, { toolId: req.params.toolId, view: stringParam(req.query.view) }, ctx);
    sendDocument(req, res, ctx, out);
  });

  router.get('/capabilities', async (req, res) => {
    const ctx = await contextFor(req);
    const out = await exec.execute(CAPABILITIES, {}, ctx);
    if (out.errorCodes.length) return sendError(res, ctx, out);
    sendJson(res, ctx, 200, JSON.stringify(out.data?.capabilities));
  });

  // TC-CAT-2: the catalog is read-only. Any other method answers 405 before anything runs.
  router.all(['/tools', '/tools/:toolId', '/capabilities'], (_req, res) => {
    res.status(405).set({ Allow: 'GET', 'Content-Type': 'application/json; charset=utf-8' }).end(METHOD_NOT_ALLOWED_BODY);
  });

  return router;
}

interface DocumentData {
  /** The cached bytes in-process (CachedBody), or their text. */
  readonly body: CachedBody | string;
  readonly etag: string;
}

function sendDocument(req: Request, res: Response, ctx: GraphQLContext, out: ExecutionOutcome): void {
  if (out.errorCodes.length) return sendError(res, ctx, out);
  const doc = out.data?.document as DocumentData | null | undefined;
  if (!doc) {
    // Unknown and not-yours are the same null, so the same bytes and headers (TC-CAT-4).
    sendJson(res, ctx, 404, NOT_FOUND_TOOL_BODY);
    return;
  }
  res.set({ ETag: doc.etag, 'Cache-Control': 'private, no-cache', Vary: 'Authorization' });
  if (ifNoneMatchHits(req.get('if-none-match'), doc.etag)) {
    res.status(304).set('X-Request-Id', ctx.requestId).end();
    return;
  }
  sendJson(res, ctx, 200, doc.body instanceof CachedBody ? doc.body.bytes : doc.body);
}

function sendError(res: Response, ctx: GraphQLContext, out: ExecutionOutcome): void {
  const status = statusForErrors(out.errorCodes);
  if (status === 503) res.set('Retry-After', '2');
  if (status === 401) {
    res.set('WWW-Authenticate', ctx.credentialRejected ? 'Bearer realm="toolcat", error="invalid_token"' : 'Bearer realm="toolcat"');
  }
  const code = status === 500 ? 'INTERNAL_SERVER_ERROR' : (out.errorCodes.find((c) => HTTP_STATUS_BY_CODE[c] === status) ?? out.errorCodes[0]);
  const message = status === 500 ? 'Internal server error.' : out.errorMessages[out.errorCodes.indexOf(code)];
  sendJson(res, ctx, status, errorBody(code, message));
}

function sendJson(res: Response, ctx: GraphQLContext, status: number, body: string | Buffer): void {
  res.status(status).set({ 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': ctx.requestId }).end(body);
}

/** A repeated or nested query parameter is not a view name: it falls back to the standard view. */
function stringParam(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
