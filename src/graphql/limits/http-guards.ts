import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { MAX_BODY_NESTING, jsonDepthExceeds } from '../../shared/json-body';

/**
 * HTTP-level limits for /graphql (issue 5): body size and batching are refused before Apollo sees the request,
 * with the GraphQL error shape clients already parse:
 * `{ "errors": [{ "message": "…", "extensions": { "code": "BAD_REQUEST" } }] }`.
 */
function refuse(res: Response, status: number, message: string): void {
  res.status(status).type('application/json').end(JSON.stringify({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] }));
}

/**
 * Replaces `express.json()` on /graphql: parses JSON bodies up to `maxRequestBytes` and answers 413 beyond it
 * (a declared Content-Length is refused before reading; a chunked body is cut off at the limit) and 400 for a
 * body that is not JSON. Errors are ours, not the generic app error handler's.
 */
export function graphqlJsonBody(maxRequestBytes: number): RequestHandler {
  // Nesting is checked on the raw bytes before JSON.parse runs (body-parser's verify hook): a 1 MB body of nested
  // brackets would otherwise hold the event loop for ~0.5 s (the red-team finding on /mcp, same here).
  const parse = express.json({
    limit: maxRequestBytes,
    verify: (_req, _res, buf) => {
      if (jsonDepthExceeds(buf, MAX_BODY_NESTING)) throw Object.assign(new Error('nested too deeply'), { status: 400, type: 'entity.too.deep' });
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    parse(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { status?: number; type?: string };
      if (e.status === 413 || e.type === 'entity.too.large') return refuse(res, 413, `The request body is larger than ${maxRequestBytes} bytes.`);
      if (e.type === 'entity.too.deep') return refuse(res, 400, `The request body is nested more than ${MAX_BODY_NESTING} levels deep.`);
      if (e.status !== undefined && e.status >= 400 && e.status < 500) return refuse(res, e.status === 415 ? 415 : 400, 'The request body is not valid JSON.');
      next(err);
    });
  };
}

/**
 * Batched requests (a JSON array of operations) multiply the work of one HTTP request past every per-operation
 * limit. With `maxBatch` 1 (the default) arrays are refused outright; otherwise arrays up to `maxBatch` pass
 * (Apollo's own `allowBatchedHttpRequests` must then be on as well).
 */
export function rejectBatchedRequests(maxBatch: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const body: unknown = req.body;
    if (!Array.isArray(body)) return next();
    if (maxBatch <= 1) return refuse(res, 400, 'Batched GraphQL requests are not accepted: send one operation per request.');
    if (body.length === 0 || body.length > maxBatch) return refuse(res, 400, `A batched request must hold 1 to ${maxBatch} operations; it held ${body.length}.`);
    next();
  };
}
