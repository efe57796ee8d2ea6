import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import { decisionKey } from '../catalog/principal';
import { AUTHENTICATION_REQUIRED } from '../catalog/admin-scope';
import { CatalogErrorCode } from '../catalog/catalog.errors';
import type { SecurityConfig } from '../config/security-config';
import { type Authenticate, type GraphQLContext, buildContext } from '../graphql/context';
import { graphqlHttpGuards } from '../graphql/limits';
import { maySeeAdminSchema } from '../graphql/limits/schema-visibility.plugin';
import { ServiceUnavailableError, isDatabaseUnavailable } from '../ops/db-errors';
import type { DbHealth } from '../ops/db-health';
import type { Metrics } from '../ops/metrics';
import { runInRequest } from '../shared/request-scope';
import type { GraphQLExecutor } from '../rest/graphql-executor';
import { sendJson } from '../rest/http-status';
import { JSON_CONTENT_TYPE, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS, bearerChallenge, errorBody } from '../shared/transport-answers';
import { createRateLimiter } from '../rest/rate-limit';
import type { SharedBudgets } from '../rest/rate-limit-shared';
import type { TraceRequest } from '../ops/tracing-hooks';
import { createRestFacade } from '../rest/rest-facade';
import { DecisionMemo } from '../rest/decision-memo';
import { DECISION_MEMO_LIMITS } from '../config/cache-settings';
import { CatalogWatch } from '../rest/catalog-watch';
import { createCatalogEvents } from '../rest/catalog-events';
import { createMcpFace } from '../mcp-face/mcp-face';
import type { McpSettings } from '../config/mcp-settings';
import type { Principal } from '../catalog/principal';
import type { Logger } from '../shared/logger';
import { splitTarget } from '../shared/request-target';
import { createPublishedDocuments } from './published-documents';
import { createAdminConsole } from './admin-console';
import { sha256Bytes } from '../shared/sha256';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The id the listener gave this request (from a valid X-Request-Id, or generated). */
function requestIdOf(req: IncomingMessage): string {
  return String((req as IncomingMessage & { id?: string }).id);
}

/**
 * The HTTP surface, as one node:http request listener. Every request first gets its id, access log line,
 * metrics and in-flight tracking; then the REST facade answers its endpoints directly (see rest-facade.ts for
 * why it is not an Express router) and Express serves the rest: /graphql (Apollo), health, metrics, 404.
 * Identity is decided once per request, by one function shared by the REST facade (which also rate-limits by
 * it) and GraphQL.
 */
export function buildRequestListener(deps: {
  apollo: ApolloServer<GraphQLContext>;
  /** /graphql for callers who may not see the admin schema (graphql/agent-schema.ts). */
  agentApollo: ApolloServer<GraphQLContext>;
  /** Runs the REST facade's fixed documents on the same schema as `apollo`. */
  rest: GraphQLExecutor;
  authenticate: Authenticate;
  security: SecurityConfig;
  health: DbHealth;
  metrics: Metrics;
  log: Logger;
  /** In-flight tracking for graceful shutdown. */
  track: (req: IncomingMessage, res: ServerResponse) => void;
  /** The call endpoints' bounds (issue 14). */
  calls: { readonly maxRequestBytes: number; readonly heartbeatMs: number; readonly bodyDeadlineMs: number };
  /** The MCP face and /catalog/events (issue 15). */
  mcp: McpSettings;
  hostVersion: string;
  /** Subscribes to catalog changes (the CatalogGeneration). */
  onCatalogChange: (listener: () => void) => () => void;
  /** The current catalog generation (opaque; equal values mean nothing visible changed). */
  catalogGeneration: () => string;
  /** Whether a principal's credential still holds (a revoked key ends its streams and sessions). */
  principalActive: (p: Principal) => Promise<boolean>;
  /** Issue 19: rate-limit budgets shared through Redis (REDIS_URL); absent: each replica has its own. */
  sharedBudgets?: SharedBudgets | null;
  /** Issue 19: runs the request inside its HTTP span; absent when tracing is off. */
  traceRequest?: TraceRequest | null;
}): RequestListener & { close(): Promise<void> } {
  const { apollo, security, health, metrics, log } = deps;
  // Identity, once per request: the facade and /graphql each call this once for the requests they serve.
  const contextFor = (req: IncomingMessage): Promise<GraphQLContext> =>
    buildContext(deps.authenticate, req.headers, requestIdOf(req)).catch((err: unknown) => {
      if (!isDatabaseUnavailable(err)) throw err;
      health.markDown();
      throw new ServiceUnavailableError(err);
    });
  const onError = (err: unknown, res: ServerResponse): void => {
    if (res.headersSent) {
      log.error({ err }, 'error after the response started');
      res.destroy();
      return;
    }
    if (err instanceof ServiceUnavailableError || isDatabaseUnavailable(err)) {
      health.markDown();
      sendJson(res, 503, UNAVAILABLE_BODY, UNAVAILABLE_HEADERS);
      return;
    }
    const declared = err !== null && typeof err === 'object' ? (err as { status?: unknown }).status : undefined;
    const status = typeof declared === 'number' ? declared : 500;
    if (status >= 500) log.error({ err }, 'unhandled error in HTTP handler');
    const clientError = status >= 400 && status < 500;
    sendJson(res, clientError ? status : 500, clientError ? errorBody('BAD_REQUEST', 'The request could not be understood.') : errorBody('INTERNAL_SERVER_ERROR', 'Internal server error.'));
  };

  // Issue 19: with shared budgets the token is taken from Redis as soon as the principal is known, and the key
  // function names the context of the facade's next (synchronous) take (rest/rate-limit-shared.ts says why).
  const shared = deps.sharedBudgets ?? null;
  const restLimiter = shared === null ? createRateLimiter(security.rateLimit) : shared.limiter;
  const limitedContextFor = shared === null ? contextFor : async (req: IncomingMessage): Promise<GraphQLContext> => {
    const ctx = await contextFor(req);
    if (ctx.principal) await shared.admit(ctx, decisionKey(ctx.principal));
    return ctx;
  };
  const keyOf = shared === null ? (ctx: GraphQLContext): string => decisionKey(ctx.principal!) : (ctx: GraphQLContext): string => {
    shared.forContext(ctx);
    return decisionKey(ctx.principal!);
  };
  // Issue 21: the catalog reads' decisions, once per catalog generation and decision key (REST and the MCP face).
  const decisions = new DecisionMemo((ctx) => decisionKey(ctx.principal!), deps.catalogGeneration, deps.onCatalogChange, DECISION_MEMO_LIMITS, () => metrics.decisionMemoHits.inc());
  const rest = createRestFacade({
    exec: deps.rest,
    decisions,
    contextFor: limitedContextFor,
    limiter: restLimiter,
    budgetKey: keyOf,
    calls: deps.calls,
    databaseUp: () => health.isUp,
    onError: (err, _req, res) => onError(err, res),
  });

  // Issue 15: change notifications (MCP list_changed, GET /catalog/events) and the MCP face, on the same identity,
  // rate limit and fixed GraphQL documents as the REST facade.
  const limiter = restLimiter;
  const watch = new CatalogWatch({
    exec: deps.rest,
    onGeneration: deps.onCatalogChange,
    keyOf,
    stillActive: (ctx) => deps.principalActive(ctx.principal!),
    debounceMs: deps.mcp.changeDebounceMs,
    log,
  });
  const events = createCatalogEvents({
    watch, contextFor: limitedContextFor, limiter, keyOf, origin: deps.mcp, databaseUp: () => health.isUp, heartbeatMs: deps.mcp.heartbeatMs,
    maxPerPrincipal: deps.mcp.maxSessionsPerPrincipal, maxPerTenant: deps.mcp.maxSessionsPerTenant, maxStreams: deps.mcp.maxSessions, onError: (err, _req, res) => onError(err, res),
  });
  const mcp = createMcpFace({
    exec: deps.rest, decisions, contextFor: limitedContextFor, limiter, keyOf, watch, settings: deps.mcp, hostVersion: deps.hostVersion,
    resource: { publicUrl: deps.mcp.publicUrl, issuer: security.jwt?.config.issuer ?? null },
    databaseUp: () => health.isUp, log, onError: (err, _req, res) => onError(err, res),
  });

  // GET /openapi.json and the schemas it references (issue 17): static, no credential.
  const published = createPublishedDocuments();
  // The admin console at /admin and, when configured, GraphiQL at GET /graphql for browsers (issue 20): static files.
  const adminConsole = createAdminConsole({ ide: security.graphqlIde, oidc: security.adminOidc });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', (_req, res) => void res.status(200).type('application/json').end('{"status":"alive"}'));
  // database: up | saturated (every pooled connection busy, the database fine: still ready) | down (issue 12 defect 2).
  app.get('/readyz', (_req, res) => {
    const ready = health.isReady;
    res.status(ready ? 200 : 503).type('application/json').end(JSON.stringify({ status: ready ? 'ready' : 'not-ready', database: health.state }));
  });
  const metricsAllowed = metricsGate(security.metricsToken);
  app.get('/metrics', async (req, res) => {
    if (!metricsAllowed(req.headers.authorization)) {
      res.status(401).set('WWW-Authenticate', 'Bearer realm="toolcat-metrics"').type('application/json').end(errorBody('UNAUTHENTICATED', 'GET /metrics needs the metrics token.'));
      return;
    }
    res.status(200).type(metrics.registry.contentType).end(await metrics.registry.metrics());
  });
  // While the database is known to be down, fail fast instead of queueing on the pool (issue 7).
  app.use('/graphql', (_req: Request, res: Response, next: NextFunction) => {
    if (health.isUp) return next();
    res.status(503).set({ ...UNAVAILABLE_HEADERS, 'Content-Type': JSON_CONTENT_TYPE }).end(UNAVAILABLE_BODY);
  });
  // One Apollo instance per schema a caller may see (issue 11, defect 4): admins the whole schema, agents the
  // catalog reads only (graphql/agent-schema.ts). Who may see what is decided here, once, from the request's
  // identity; a caller without one learns nothing of any schema: 401 before parsing (the landing page aside).
  const serveAdmin = expressMiddleware(apollo, { context: async ({ req }) => contextOf(req) });
  const serveAgent = expressMiddleware(deps.agentApollo, { context: async ({ req }) => contextOf(req) });
  app.use('/graphql', ...graphqlHttpGuards(security.graphqlLimits), (req: Request, res: Response, next: NextFunction) => {
    contextFor(req).then(
      (ctx) => {
        (req as RequestWithContext)[CONTEXT] = ctx;
        if (ctx.principal) return (maySeeAdminSchema(ctx.principal) ? serveAdmin : serveAgent)(req, res, next);
        if (isLandingPageRequest(req)) return serveAdmin(req, res, next);
        res.status(401).set({ 'WWW-Authenticate': bearerChallenge(ctx.credentialRejected), 'Content-Type': JSON_CONTENT_TYPE }).end(GRAPHQL_UNAUTHENTICATED_BODY);
      },
      (err: unknown) => next(err),
    );
  });
  app.use((_req: Request, res: Response) => {
    res.status(404).type('application/json').end(errorBody('NOT_FOUND', 'No such route.'));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => onError(err, res));

  const route = (req: IncomingMessage, res: ServerResponse): void => {
    if (!rest(req, res) && !events(req, res) && !mcp.handle(req, res) && !published(req, res) && !adminConsole(req, res)) app(req, res);
  };
  const traced = deps.traceRequest ?? null; // issue 19: null when tracing is off (no span, no context)
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    deps.track(req, res);
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (req as { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    onFinish(req, res, id, log, metrics);
    runInRequest(id, traced === null ? () => route(req, res) : () => traced(req, res, route));
  };
  return Object.assign(listener, {
    async close() {
      events.closeAll();
      watch.stop();
      await mcp.close();
    },
  });
}

const CONTEXT = Symbol('toolcat.graphqlContext');
type RequestWithContext = Request & { [CONTEXT]?: GraphQLContext };

function contextOf(req: Request): GraphQLContext {
  const ctx = (req as RequestWithContext)[CONTEXT];
  if (!ctx) throw new Error('GraphQL context was not decided before Apollo ran');
  return ctx;
}

/** The same envelope Apollo answers a failed operation with; no path, no schema names. */
const GRAPHQL_UNAUTHENTICATED_BODY = JSON.stringify({ errors: [{ message: AUTHENTICATION_REQUIRED, extensions: { code: CatalogErrorCode.Unauthenticated } }] });

/** A browser opening /graphql (Apollo Sandbox, when enabled): a GET that prefers HTML and carries no operation. */
function isLandingPageRequest(req: Request): boolean {
  return req.method === 'GET' && req.query.query === undefined && /text\/html/.test(req.headers.accept ?? '');
}

/** Open when no token is configured; otherwise exactly `Bearer <token>`, compared in constant time. */
function metricsGate(token: string | null): (authorization: string | undefined) => boolean {
  if (token === null) return () => true;
  const want = sha256Bytes(`Bearer ${token}`);
  return (authorization) => authorization !== undefined && timingSafeEqual(sha256Bytes(authorization), want);
}

/**
 * The access log line and the request metrics, from one `finish` listener and one clock reading (issue 21: the fixed
 * cost of a request). The line is built only when its level is enabled (the bench measured a generic HTTP logger at
 * 16% of CPU per request even with logging off).
 */
function onFinish(req: IncomingMessage, res: ServerResponse, requestId: string, log: Logger, metrics: Metrics): void {
  const started = process.hrtime.bigint();
  // The target as the client sent it: while Express routes into a mounted router (/graphql) it strips the mount path
  // from req.url, and a request it answers there finishes with the stripped one.
  const target = { method: req.method, url: req.url };
  res.once('finish', () => {
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const status = res.statusCode;
    metrics.requestFinished(target, status, durationMs / 1000);
    const level = status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    if (!log.isLevelEnabled(level)) return;
    log[level]({ requestId, method: target.method, path: splitTarget(target.url).path.slice(0, 300), status, durationMs }, 'request completed');
  });
}
