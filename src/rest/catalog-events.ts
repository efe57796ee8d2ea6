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
  /** Streams one principal, one tenant and this replica in all may hold open. */
  readonly maxPerPrincipal: number;
  readonly maxPerTenant: number;
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
function tooMany(res: ServerResponse, message: string): void {
  sendJson(res, 429, errorBody('RATE_LIMITED', message), { 'Retry-After': '30' });
}

export function createCatalogEvents(deps: CatalogEventsDeps): ((req: IncomingMessage, res: ServerResponse) => boolean) & { closeAll(): void } {
  const open = new Map<string, number>();
  const streams = new Set<ServerResponse>();
  /** How each open stream is ended by this side (its heartbeat stopped first). */
  const ending = new WeakMap<ServerResponse, () => void>();
  let total = 0;
  const inc = (k: string, by: number): void => {
    const n = (open.get(k) ?? 0) + by;
    if (n <= 0) open.delete(k);
    else open.set(k, n);
  };
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
    // `compact` asks for the compact view; anything else is the standard view (the spec's rule), one watch group.
    const params = query === null ? {} : parseQuery(query);
    const view = params.view === 'compact' ? 'compact' : null;
    const profile = view !== null && typeof params.profile === 'string' ? params.profile : null;
    void (async () => {
      const ctx = await deps.contextFor(req);
      if (!ctx.principal) {
        res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
        return sendJson(res, 401, errorBody('UNAUTHENTICATED', AUTHENTICATION_REQUIRED_TEXT));
      }
      const key = deps.keyOf(ctx);
      if (!admitOrRefuse(deps.limiter, key, res)) return;
      const tenantKey = `tenant\u0000${ctx.principal.tenantId}`;
      if ((open.get(key) ?? 0) >= deps.maxPerPrincipal) return tooMany(res, `Too many open event streams for this principal (at most ${deps.maxPerPrincipal}).`);
      if ((open.get(tenantKey) ?? 0) >= deps.maxPerTenant) return tooMany(res, `Too many open event streams for this tenant (at most ${deps.maxPerTenant}).`);
      if (total >= deps.maxStreams) return sendJson(res, 503, errorBody('SERVICE_UNAVAILABLE', 'Too many open event streams on this replica; retry shortly.'), { 'Retry-After': '30' });
      // The slot is taken before anything is awaited and given back on close, whenever that comes (red-team finding 9:
      // checked before an await and counted after it, concurrent opens passed the bound, and a caller gone during the
      // await leaked its slot).
      inc(key, 1);
      inc(tenantKey, 1);
      total++;
      let stop = (): void => undefined;
      let heartbeat: NodeJS.Timeout | null = null;
      res.once('close', () => {
        if (heartbeat) clearInterval(heartbeat);
        stop();
        streams.delete(res);
        total--;
        inc(key, -1);
        inc(tenantKey, -1);
      });
      const current = await deps.watch.currentEtag(ctx, view, profile);
      if (res.destroyed) return;
      if (current === null) return sendJson(res, 503, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS);
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no', Vary: 'Authorization' });
      if (req.method === 'HEAD') return void res.end();
      streams.add(res);
      // Ended by this side (gone, closeAll), the stream stays registered and its heartbeat runs until 'close', which
      // waits for the client to read what was sent: a write meanwhile would be a write after end, an 'error' event
      // that nobody listens to, and the process would exit. Every write checks; ending stops the heartbeat.
      const write = (chunk: string): void => void (res.writableEnded || res.write(chunk));
      const send = (etag: string): void => write(`id: ${etag}\nevent: catalog.changed\ndata: ${JSON.stringify({ etag })}\n\n`);
      write('retry: 2000\n\n');
      const last = req.headers['last-event-id'];
      if (last !== current) send(current);
      heartbeat = setInterval(() => write(': keep-alive\n\n'), deps.heartbeatMs);
      heartbeat.unref();
      ending.set(res, () => {
        if (heartbeat) clearInterval(heartbeat);
        if (!res.writableEnded) res.end();
      });
      stop = deps.watch.add({ ctx, view, profile, etag: current, changed: send, gone: () => ending.get(res)?.() });
    })().catch((err: unknown) => deps.onError(err, req, res));
    return true;
  };
  return Object.assign(handle, {
    closeAll() {
      for (const res of streams) ending.get(res)?.();
    },
  });
}
