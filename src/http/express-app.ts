import { randomUUID } from 'node:crypto';
import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GraphQLError } from 'graphql';
import type { SecurityConfig } from '../config/security-config';
import { type Authenticate, type GraphQLContext, buildContext } from '../graphql/context';
import { graphqlHttpGuards } from '../graphql/limits';
import { ServiceUnavailableError, isDatabaseUnavailable } from '../ops/db-errors';
import type { DbHealth } from '../ops/db-health';
import type { Metrics } from '../ops/metrics';
import { runInRequest } from '../ops/request-scope';
import { apolloExecutor } from '../rest/graphql-executor';
import { errorBody } from '../rest/http-status';
import { createRateLimiter, rateLimitMiddleware } from '../rest/rate-limit';
import { createRestRouter } from '../rest/router';
import type { Logger } from '../shared/logger';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The id the first middleware gave this request (from a valid X-Request-Id, or generated). */
function requestIdOf(req: Request): string {
  return String((req as Request & { id?: string }).id);
}
const UNAVAILABLE_BODY = errorBody('SERVICE_UNAVAILABLE', 'The catalog database is unavailable; retry shortly.');

/**
 * The HTTP surface: request ids and access logs, metrics, health, the GraphQL endpoint and the REST facade.
 * Identity is decided once per request (shared by rate limiter, REST and GraphQL).
 */
export function buildExpressApp(deps: {
  apollo: ApolloServer<GraphQLContext>;
  authenticate: Authenticate;
  security: SecurityConfig;
  health: DbHealth;
  metrics: Metrics;
  log: Logger;
  /** In-flight tracking for graceful shutdown; installed before anything else. */
  track: (req: Request, res: Response, next: NextFunction) => void;
}): express.Express {
  const { apollo, security, health, metrics, log } = deps;
  const contexts = new WeakMap<Request, Promise<GraphQLContext>>();
  const contextFor = (req: Request): Promise<GraphQLContext> => {
    let ctx = contexts.get(req);
    if (!ctx) {
      ctx = buildContext(deps.authenticate, req.headers, requestIdOf(req)).catch((err: unknown) => {
        if (!isDatabaseUnavailable(err)) throw err;
        health.markDown();
        throw new ServiceUnavailableError(err);
      });
      contexts.set(req, ctx);
    }
    return ctx;
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(deps.track);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    (req as { id?: string }).id = id;
    res.setHeader('X-Request-Id', id);
    runInRequest(id, next);
  });
  // Access log: one line per request, built only when its level is enabled (the bench measured a generic
  // HTTP logger at 16% of CPU per request even with logging off).
  app.use((req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'info' : 'debug';
      if (!log.isLevelEnabled(level)) return;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      log[level]({ requestId: requestIdOf(req), method: req.method, path: req.path.slice(0, 300), status: res.statusCode, durationMs }, 'request completed');
    });
    next();
  });

  app.use(metrics.middleware);
  app.get('/healthz', (_req, res) => void res.status(200).type('application/json').end('{"status":"alive"}'));
  app.get('/readyz', (_req, res) => {
    const ready = health.isReady;
    res.status(ready ? 200 : 503).type('application/json').end(JSON.stringify({ status: ready ? 'ready' : 'not-ready', database: health.isUp ? 'up' : 'down' }));
  });
  app.get('/metrics', async (_req, res) => {
    res.status(200).type(metrics.registry.contentType).end(await metrics.registry.metrics());
  });
  // While the database is known to be down, fail fast instead of queueing on the pool (issue 7).
  app.use(['/tools', '/capabilities', '/graphql'], (_req: Request, res: Response, next: NextFunction) => {
    if (health.isUp) return next();
    res.status(503).set({ 'Retry-After': '2', 'Content-Type': 'application/json; charset=utf-8' }).end(UNAVAILABLE_BODY);
  });
  app.use(
    '/graphql',
    ...graphqlHttpGuards(security.graphqlLimits),
    expressMiddleware(apollo, {
      context: async ({ req }) =>
        contextFor(req).catch((err: unknown) => {
          if (err instanceof ServiceUnavailableError) {
            throw new GraphQLError(err.message, { extensions: { code: 'SERVICE_UNAVAILABLE', http: { status: 503, headers: new Map([['retry-after', '2']]) } } });
          }
          throw err;
        }),
    }),
  );
  const limiter = createRateLimiter(security.rateLimit);
  app.use(['/tools', '/capabilities'], rateLimitMiddleware(limiter, async (req) => (await contextFor(req)).principal?.id ?? null));
  app.use(createRestRouter(apolloExecutor(apollo), contextFor));
  app.use((_req: Request, res: Response) => {
    res.status(404).type('application/json').end(errorBody('NOT_FOUND', 'No such route.'));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ServiceUnavailableError || isDatabaseUnavailable(err)) {
      health.markDown();
      res.status(503).set({ 'Retry-After': '2', 'Content-Type': 'application/json; charset=utf-8' }).end(UNAVAILABLE_BODY);
      return;
    }
    const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
    if (status >= 500) log.error({ err }, 'unhandled error in HTTP handler');
    const clientError = status >= 400 && status < 500;
    res
      .status(clientError ? status : 500)
      .type('application/json')
      .end(clientError ? errorBody('BAD_REQUEST', 'The request could not be understood.') : errorBody('INTERNAL_SERVER_ERROR', 'Internal server error.'));
  });
  return app;
}
