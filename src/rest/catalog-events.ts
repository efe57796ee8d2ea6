import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLContext } from '../graphql/context';
import { type OriginPolicy, checkOrigin } from '../shared/origin-guard';
import { AUTHENTICATION_REQUIRED_TEXT, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS, bearerChallenge, errorBody } from '../shared/transport-answers';
import type { CatalogWatch } from './catalog-watch';
import { METHOD_NOT_ALLOWED_BODY, sendJson } from './http-status';
import { type RateLimiter, admitOrRefuse } from './rate-limit';
import { splitTarget } from '../shared/request-target';
import { parse as parseQuery } from 'node:querystring';

export interface CatalogEventsDeps {
  readonly watch: CatalogWatch;
  readonly contextFor: (req: IncomingMessage) => Promise<GraphQLContext>;
  readonly limiter: RateLimiter;
  readonly keyOf: (ctx: GraphQLContext) => string;
  readonly origin: OriginPolicy;
  readonly databaseUp: () => boolean;
  readonly heartbeatMs: number;
  /** Streams one principal may hold open, and this replica in all. */
  readonly maxPerPrincipal: number;
  readonly maxStreams: number;
  readonly onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

const CATALOG_EVENTS_PATH = '/catalog/events';

/**
 * GET /catalog/events (issue 15 item 4, the REST twin of MCP's list_changed): an SSE stream that sends
 *   id: <the caller's list ETag>
 *   event: catalog.changed
 *   data: {"etag": "<the same ETag>"}
 * whenever the caller's own `GET /tools` (in the view asked with ?view=) would answer a different ETag, and nothing
 * for changes it cannot see. The first event comes at once unless `Last-Event-ID` already names the current ETag, so
 * a client that reconnects with the id it last saw hears exactly whether it missed a change (resumption without any
 * server-side event log: the ETag is the state). An idle stream sends a `: keep-alive` comment every heartbeat.
 * The stream ends when the caller's credential stops holding (revoked key, deleted principal or tenant).
 */
export function createCatalogEvents(deps: CatalogEventsDeps): ((req: IncomingMessage, res: ServerResponse) => boolean) & { closeAll(): void } {
  const open = new Map<string, number>();
  const streams = new Set<ServerResponse>();
  let total = 0;
  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const { path, query } = splitTarget(req.url);
    if (path !== CATALOG_EVENTS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, METHOD_NOT_ALLOWED_BODY, { Allow: 'GET, HEAD' });
      return true;
    }
    const refused = checkOrigin(deps.origin, req.headers);
    if (refused) {
      sendJson(res, 403, errorBody('FORBIDDEN', refused === 'host' ? 'This Host is not served here.' : 'This Origin is not allowed.'));
      return true;
    }
    if (!deps.databaseUp()) {
      sendJson(res, 503, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS);
      return true;
    }
    const viewRaw = query === null ? undefined : parseQuery(query).view;
    const view = typeof viewRaw === 'string' ? viewRaw : null;
    void (async () => {
      const ctx = await deps.contextFor(req);
      if (!ctx.principal) {
        res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
        return sendJson(res, 401, errorBody('UNAUTHENTICATED', AUTHENTICATION_REQUIRED_TEXT));
      }
      const key = deps.keyOf(ctx);
      if (!admitOrRefuse(deps.limiter, key, res)) return;
      const mine = open.get(key) ?? 0;
      if (mine >= deps.maxPerPrincipal || total >= deps.maxStreams) {
        return sendJson(res, 429, errorBody('RATE_LIMITED', `Too many open event streams (at most ${deps.maxPerPrincipal} per principal).`), { 'Retry-After': '30' });
      }
      const current = await deps.watch.currentEtag(ctx, view);
      if (current === null) return sendJson(res, 503, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS);
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no', Vary: 'Authorization' });
      if (req.method === 'HEAD') return void res.end();
      open.set(key, mine + 1);
      total++;
      streams.add(res);
      const send = (etag: string): void => void res.write(`id: ${etag}\nevent: catalog.changed\ndata: ${JSON.stringify({ etag })}\n\n`);
      res.write('retry: 2000\n\n');
      const last = req.headers['last-event-id'];
      if (last !== current) send(current);
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), deps.heartbeatMs);
      heartbeat.unref();
      const stop = deps.watch.add({ ctx, view, etag: current, changed: send, gone: () => res.end() });
      res.once('close', () => {
        clearInterval(heartbeat);
        stop();
        streams.delete(res);
        total--;
        const n = (open.get(key) ?? 1) - 1;
        if (n <= 0) open.delete(key);
        else open.set(key, n);
      });
    })().catch((err: unknown) => deps.onError(err, req, res));
    return true;
  };
  return Object.assign(handle, {
    closeAll() {
      for (const res of streams) res.end();
    },
  });
}
