import 'reflect-metadata';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { DataSource } from 'typeorm';
import { CatalogCache } from './cache/catalog-cache';
import { CatalogGeneration } from './cache/catalog-generation';
import { deriveCapabilities } from './catalog/capabilities';
import { refreshCompactForms } from './persistence/compact-refresh';
import { CatalogError } from './catalog/catalog.errors';
import type { Config } from './config/config';
import { ConfigFileError, loadConfigFile } from './config/config-file';
import { type GraphQLContext, buildContext } from './graphql/context';
import { makeFormatError } from './graphql/format-error';
import { complexityLimitPlugin, graphqlHttpGuards, parseOptionsFor, validationRulesFor } from './graphql/limits';
import { createAuthenticator } from './auth/authenticator';
import { AuditQueryService } from './audit/audit-query.service';
import { createRateLimiter, rateLimitMiddleware } from './rest/rate-limit';
import { buildCatalogSchema } from './graphql/schema';
import type { AppServices } from './graphql/services';
import { createDataSource } from './persistence/data-source';
import { ToolRepository } from './persistence/tool.repository';
import { apolloExecutor } from './rest/graphql-executor';
import { errorBody } from './rest/http-status';
import { createRestRouter } from './rest/router';
import { CatalogReadService } from './services/catalog-read.service';
import { GrantService } from './services/grant.service';
import { TenancyService } from './services/tenancy.service';
import { ToolAdminService } from './services/tool-admin.service';
import { toSourceInput } from './sources/config-sources';
import { SourceAdminService } from './sources/source-admin.service';
import { SourceScheduler } from './sources/source-scheduler';
import { SourceSnapshotService } from './sources/source-snapshot.service';
import { SourceSyncService } from './sources/source-sync.service';
import { type Logger, createLogger } from './shared/logger';

export interface App {
  readonly express: express.Express;
  readonly apollo: ApolloServer<GraphQLContext>;
  readonly dataSource: DataSource;
  readonly services: AppServices;
  readonly cache: CatalogCache;
  readonly generation: CatalogGeneration;
  readonly log: Logger;
  listen(port?: number, host?: string): Promise<{ server: Server; url: string }>;
  close(): Promise<void>;
}

export class PendingMigrationsError extends Error {
  constructor() {
    super('The database has pending migrations. Run `toolcat migrate` first, or start with TOOLCAT_MIGRATE=true.');
    this.name = 'PendingMigrationsError';
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The composition root: wires config -> database -> services -> GraphQL -> REST. Never listens by itself.
 * Fails whole (and closes what it opened) when anything is misconfigured: no half-configured service.
 */
export async function createApp(config: Config, opts: { log?: Logger } = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  const dataSource = createDataSource(config.db);
  await dataSource.initialize();
  try {
    if (await dataSource.showMigrations()) {
      if (!config.migrateOnStart) throw new PendingMigrationsError();
      await dataSource.runMigrations({ transaction: 'all' });
    }
    const generation = new CatalogGeneration();
    dataSource.subscribers.push(generation);
    await generation.watch(dataSource, config.versionPollMs);
    const toolRepository = new ToolRepository(dataSource);
    const cache = new CatalogCache(toolRepository, generation, config.cache);
    await refreshCompactForms(dataSource, log);
    const tenancy = new TenancyService(dataSource, generation);
    const toolAdmin = new ToolAdminService(dataSource, log);
    const snapshots = new SourceSnapshotService(dataSource, log);
    const sync = new SourceSyncService(dataSource, snapshots, log, {
      limits: config.syncLimits,
      env: config.secretEnv,
      version: config.hostVersion,
      keepSessions: config.startSources,
    });
    const scheduler = new SourceScheduler(dataSource, sync, log);
    const services: AppServices = {
      tenancy,
      grants: new GrantService(dataSource),
      toolAdmin,
      sources: new SourceAdminService(dataSource),
      snapshots,
      sync,
      scheduler,
      audit: new AuditQueryService(dataSource),
      catalog: new CatalogReadService(toolRepository, cache, { compactView: config.compactView }),
      capabilities: deriveCapabilities({ hostVersion: config.hostVersion, compactView: config.compactView, sources: ['host-extension', 'mcp'] }),
    };
    if (config.configFile) await applyConfigFile(services, config.configFile);
    // Sync at start runs in the background: a slow or broken server never delays serving the catalog.
    if (config.startSources) void scheduler.start();

    const sec = config.security;
    const apollo = new ApolloServer<GraphQLContext>({
      schema: buildCatalogSchema(services, log),
      formatError: makeFormatError(log),
      introspection: sec.introspection,
      csrfPrevention: true,
      allowBatchedHttpRequests: sec.graphqlLimits.maxBatch > 1,
      validationRules: validationRulesFor(sec.graphqlLimits),
      parseOptions: parseOptionsFor(sec.graphqlLimits),
      plugins: [
        ApolloServerPluginCacheControlDisabled(),
        complexityLimitPlugin({ maximumComplexity: sec.graphqlLimits.maxComplexity }),
        sec.landingPage ? ApolloServerPluginLandingPageLocalDefault({ embed: true }) : ApolloServerPluginLandingPageDisabled(),
      ],
    });
    await apollo.start();

    const authenticate = createAuthenticator(config, tenancy, log);
    // One context per request, whichever layer asks first (rate limiter, REST facade, GraphQL).
    const contexts = new WeakMap<Request, Promise<GraphQLContext>>();
    const contextFor = (req: Request): Promise<GraphQLContext> => {
      let ctx = contexts.get(req);
      if (!ctx) {
        const incoming = req.get('x-request-id');
        ctx = buildContext(authenticate, req.headers, incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID());
        contexts.set(req, ctx);
      }
      return ctx;
    };
    const app = express();
    app.disable('x-powered-by');
    app.set('etag', false);
    app.use('/graphql', ...graphqlHttpGuards(sec.graphqlLimits), expressMiddleware(apollo, { context: async ({ req }) => contextFor(req) }));
    const limiter = createRateLimiter(sec.rateLimit);
    app.use(['/tools', '/capabilities'], rateLimitMiddleware(limiter, async (req) => (await contextFor(req)).principal?.id ?? null));
    app.use(createRestRouter(apolloExecutor(apollo), contextFor));
    app.use((_req: Request, res: Response) => {
      res.status(404).type('application/json').end(errorBody('NOT_FOUND', 'No such route.'));
    });
    app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
      const status = typeof (err as { status?: unknown }).status === 'number' ? (err as { status: number }).status : 500;
      if (status >= 500) log.error({ err }, 'unhandled error in HTTP handler');
      const clientError = status >= 400 && status < 500;
      res
        .status(clientError ? status : 500)
        .type('application/json')
        .end(clientError ? errorBody('BAD_REQUEST', 'The request could not be understood.') : errorBody('INTERNAL_SERVER_ERROR', 'Internal server error.'));
    });

    let server: Server | null = null;
    return {
      express: app,
      apollo,
      cache,
      generation,
      dataSource,
      services,
      log,
      listen(port = config.http.port, host = config.http.host) {
        return new Promise((resolve, reject) => {
          const s = app.listen(port, host, (err?: Error) => {
            if (err) return reject(err);
            server = s;
            const addr = s.address();
            const p = typeof addr === 'object' && addr ? addr.port : port;
            resolve({ server: s, url: `http://${host.includes(':') ? `[${host}]` : host}:${p}` });
          });
        });
      },
      async close() {
        generation.stop();
        scheduler.stop();
        await sync.stop();
        if (server) await new Promise<void>((r) => server!.close(() => r()));
        await apollo.stop();
        await dataSource.destroy();
      },
    };
  } catch (err) {
    await dataSource.destroy().catch(() => undefined);
    throw err;
  }
}

async function applyConfigFile(services: AppServices, file: string): Promise<void> {
  const loaded = loadConfigFile(file);
  try {
    await services.toolAdmin.replaceConfigExtensions(loaded.extensions);
  } catch (err) {
    if (err instanceof CatalogError && Array.isArray(err.cause)) {
      const problems = err.cause as Array<{ index: number; problem: string }>;
      throw new ConfigFileError(file, problems.map((p) => ({ at: `/extensions/${p.index}`, problem: p.problem })));
    }
    throw err;
  }
  const problems: Array<{ at: string; problem: string }> = [];
  const inputs = [];
  for (const [i, s] of loaded.mcpServers.entries()) {
    let tenantId: string | null = null;
    if (s.tenant) {
      tenantId = (await services.tenancy.findTenantByName(s.tenant))?.id ?? null;
      if (!tenantId) problems.push({ at: `/mcpServers/${i}/tenant`, problem: `no tenant named "${s.tenant}"` });
    }
    inputs.push(toSourceInput(s, () => tenantId));
  }
  if (problems.length) throw new ConfigFileError(file, problems);
  try {
    await services.sources.replaceConfigSources(inputs);
  } catch (err) {
    if (err instanceof CatalogError) throw new ConfigFileError(file, [{ at: '/mcpServers', problem: err.message }]);
    throw err;
  }
}
