import 'reflect-metadata';
import type { Server } from 'node:http';
import type { RequestListener } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { GraphQLContext } from './graphql/context';
import { buildApollo } from './graphql/apollo';
import { agentSchemaOf, publicSchemaOf } from './graphql/agent-schema';
import { makeFormatError } from './graphql/format-error';
import { buildCatalogSchema } from './graphql/schema';
import { terminationsSettled } from './sources/mcp/http-client.transport';
import { PreparedExecutor } from './rest/graphql-executor';
import { buildRequestListener } from './http/request-listener';
import { DbHealth } from './ops/db-health';
import { HttpServer } from './ops/http-server';
import { createMetrics } from './ops/metrics';
import { CatalogListener } from './ops/pg-notify';
import type { DataSource } from 'typeorm';
import { CatalogCache } from './cache/catalog-cache';
import { CatalogGeneration } from './cache/catalog-generation';
import { deriveCapabilities } from './catalog/capabilities';
import { refreshDerivedRows } from './services/derived-refresh';
import type { Config } from './config/config';
import { loadConfigFile } from './config/config-file';
import { ConfigApplyService as ConfigApply, OtherConfigAppliedError, planLines } from './services/config-apply.service';
import { createIdentity } from './auth/authenticator';
import { AuditQueryService } from './audit/audit-query.service';
import type { AppServices } from './graphql/services';
import { applyMigrations, createDataSource } from './persistence/data-source';
import { ToolRepository } from './persistence/tool.repository';
import { CatalogReadService } from './services/catalog-read.service';
import { SearchIndexSync } from './services/search-index-sync.service';
import { EmbeddingSync } from './services/embedding-sync.service';
import { ToolEmbeddingStore } from './persistence/tool-embedding.store';
import { ToolSearchService } from './services/tool-search.service';
import { CeilingService } from './services/ceiling.service';
import { type CallFinished, InvocationService } from './invocation/invocation.service';
import { createUpstreams } from './invocation/upstreams';
import { ExtensionImplementationStore } from './persistence/extension-implementation.store';
import { ToolCallStore } from './persistence/tool-call.store';
import { GrantService } from './services/grant.service';
import { TenancyService } from './services/tenancy.service';
import { ToolAdminService } from './services/tool-admin.service';
import { SourceAdminService } from './sources/source-admin.service';
import { SourceScheduler } from './sources/source-scheduler';
import { SourceSnapshotService } from './sources/source-snapshot.service';
import { type IngestPoolOptions, IngestPool } from './sources/ingest-pool';
import { WriteGate, useImmediateTransactions } from './persistence/sqlite-immediate';
import { createSnapshotStore } from './sources/snapshot-store';
import { SqliteCheckpointer } from './persistence/sqlite-checkpointer';
import { SourceSyncService } from './sources/source-sync.service';
import { type Logger, createLogger } from './shared/logger';
import type { Tracing } from './ops/tracing';
import type { SharedBudgets } from './rest/rate-limit-shared';

export interface App {
  /** The whole HTTP surface as a node:http request listener (REST facade, events, MCP face, then Express). */
  readonly handler: RequestListener;
  readonly apollo: ApolloServer<GraphQLContext>;
  readonly dataSource: DataSource;
  readonly services: AppServices;
  readonly cache: CatalogCache;
  readonly generation: CatalogGeneration;
  /** PostgreSQL's LISTEN on the catalog channel (null on SQLite): what it heard, for tests and diagnostics. */
  readonly catalogListener: CatalogListener | null;
  /** The tool-search index and its maintenance (issue 18): stats and first-load figures for the bench. */
  readonly searchIndex: SearchIndexSync;
  readonly log: Logger;
  readonly health: DbHealth;
  listen(port?: number, host?: string): Promise<{ server: Server; url: string }>;
  /** Graceful: stop accepting, let in-flight requests finish (up to drainMs), then close sources and pools. */
  close(drainMs?: number): Promise<void>;
}

export class PendingMigrationsError extends Error {
  constructor() {
    super('The database has pending migrations. Run `toolcat migrate` first, or start with TOOLCAT_MIGRATE=true.');
    this.name = 'PendingMigrationsError';
  }
}

/**
 * The composition root: wires config -> database -> services -> GraphQL -> REST. Never listens by itself.
 * Fails whole (and closes what it opened) when anything is misconfigured: no half-configured service.
 */
export async function createApp(config: Config, opts: { log?: Logger; ingest?: Partial<IngestPoolOptions>; tracing?: Tracing } = {}): Promise<App> {
  const log = opts.log ?? createLogger(config.logLevel);
  // Issue 19: OpenTelemetry is loaded only when tracing is configured (or a test passes its own); null costs nothing.
  const ownTracing = !opts.tracing && config.tracing !== null;
  const tracing: Tracing | null = opts.tracing ?? (config.tracing ? (await import('./ops/tracing')).startTracing(config.tracing) : null);
  const dataSource = createDataSource(config.db);
  await dataSource.initialize();
  // Issue 12: SQLite writers of this process take the write lock before they read, and wait (asynchronously) for the
  // snapshot writer thread's swaps instead of sleeping in SQLite's busy handler on the event loop; each flow has a
  // query runner of its own. Before tracing, which wraps every runner the driver hands out.
  const writeGate = new WriteGate();
  useImmediateTransactions(dataSource, writeGate);
  tracing?.instrumentDataSource(dataSource);
  let checkpointer: SqliteCheckpointer | null = null;
  let snapshots: SourceSnapshotService | null = null;
  let searchIndex: SearchIndexSync | null = null;
  try {
    if (await dataSource.showMigrations()) {
      if (!config.migrateOnStart) throw new PendingMigrationsError();
      await applyMigrations(dataSource, config.db);
    }
    const generation = new CatalogGeneration();
    dataSource.subscribers.push(generation);
    await generation.watch(dataSource, config.versionPollMs);
    const toolRepository = new ToolRepository(dataSource);
    const cache = new CatalogCache(toolRepository, generation, config.cache, config.streamListMinTools);
    // Issue 12: listings are examined in a bounded worker pool and published by staged snapshots; a swap committed
    // outside TypeORM (the SQLite writer thread) advances the in-process generation through this callback.
    snapshots = new SourceSnapshotService(dataSource, log, undefined, {
      pool: new IngestPool(opts.ingest), store: createSnapshotStore(dataSource, writeGate), onCatalogChanged: (version) => generation.seen(version),
    });
    if (config.db.type === 'postgres') await snapshots.store.discardOlderThan(new Date(Date.now() - STAGING_MAX_AGE_MS).toISOString());
    await refreshDerivedRows(dataSource, log, snapshots);
    const tenancy = new TenancyService(dataSource, generation, config.tenantDefaultCeiling);
    const identity = createIdentity(config, tenancy, log);
    const toolAdmin = new ToolAdminService(dataSource, log);
    const metricsHook: { current?: (r: { source: string; status: string }) => void } = {};
    const sync = new SourceSyncService(dataSource, snapshots, log, {
      limits: config.syncLimits,
      env: config.secretEnv,
      version: config.hostVersion,
      keepSessions: config.startSources,
      policy: config.syncPolicy,
      onResult: (r) => metricsHook.current?.(r),
      trace: tracing,
    });
    const scheduler = new SourceScheduler(dataSource, sync, log);
    const catalog = new CatalogReadService(cache, { compactView: config.compactView });
    // Issue 18: the search index follows the catalog generation (this replica's writes and every other's); a small
    // catalog is indexed before serving, a large one in the background (search answers 503 until it is).
    // The optional embedding stage (TOOLCAT_EMBEDDINGS_URL): vectors in tool_embedding, computed in the background.
    const embeddings = config.search.embeddings ? new EmbeddingSync(new ToolEmbeddingStore(dataSource), config.search.embeddings, log) : null;
    searchIndex = new SearchIndexSync(dataSource, generation, log, embeddings);
    await searchIndex.start();
    const search = new ToolSearchService(cache, generation, searchIndex, { compactView: config.compactView });
    // Issue 14: calls go through the catalog's own decision, then to the tool's source or implementation.
    checkpointer = await SqliteCheckpointer.start(dataSource);
    const calls = new ToolCallStore(dataSource);
    const implementations = new ExtensionImplementationStore(dataSource, config.secretEnv);
    const upstream = createUpstreams({
      dataSource,
      env: config.secretEnv,
      version: config.hostVersion,
      resolveExtension: (toolId) => implementations.resolve(toolId),
      limits: {
        maxConcurrentPerSource: config.calls.concurrencyPerSource,
        maxQueuedPerSource: config.calls.queuePerSource,
        breakerFailureThreshold: config.calls.breakerFailures,
        breakerOpenMs: config.calls.breakerOpenSeconds * 1000,
      },
      connectTimeoutMs: config.syncLimits.connectTimeoutMs,
      maxMessageBytes: config.calls.maxResultBytes + 64 * 1024,
      log,
      traceMeta: tracing ? () => tracing.traceMeta() : undefined,
    });
    const callsHook: { current?: (f: CallFinished) => void } = {};
    const invocation = new InvocationService({
      ds: dataSource, generation, catalog, upstream, store: calls, settings: config.calls, log,
      onFinished: (f) => callsHook.current?.(f),
      principalActive: (p) => tenancy.stillActive(p),
      trace: tracing,
    });
    // Calls left running by a replica that died mid-call are closed (at start, then every few minutes).
    await invocation.closeAbandoned().catch((err: unknown) => log.warn({ err }, 'could not close abandoned calls'));
    const abandonedSweep = setInterval(() => void invocation.closeAbandoned().catch(() => undefined), 5 * 60_000);
    abandonedSweep.unref();
    const sources = new SourceAdminService(dataSource, log);
    const services: AppServices = {
      tenancy,
      grants: new GrantService(dataSource),
      ceilings: new CeilingService(dataSource),
      identity,
      toolAdmin,
      sources,
      config: new ConfigApply(dataSource, toolAdmin, sources),
      snapshots,
      sync,
      scheduler,
      audit: new AuditQueryService(dataSource),
      catalog,
      search,
      invocation,
      calls,
      callSessions: { drop: (source, opts) => upstream.pool.drop(source, opts) },
      capabilities: deriveCapabilities({ hostVersion: config.hostVersion, compactView: config.compactView, sources: ['host-extension', 'mcp'] }),
    };
    if (config.configFile) await applyConfigFile(services.config, config.configFile, config.configApply, log);
    // Sync at start runs in the background: a slow or broken server never delays serving the catalog.
    if (config.startSources) void scheduler.start();

    const health = new DbHealth(dataSource, log);
    await health.check();
    health.start(config.healthProbeMs);
    const listener = config.db.type === 'postgres' ? new CatalogListener(config.db.url, (version) => (version === null ? void generation.poll(dataSource).catch(() => undefined) : generation.seen(version)), log) : null;
    await listener?.start();

    const schema = buildCatalogSchema(services, log);
    const apollo = buildApollo(publicSchemaOf(schema), config.security, log);
    const agentApollo = buildApollo(agentSchemaOf(schema), config.security, log);
    tracing?.instrumentApollo(apollo);
    tracing?.instrumentApollo(agentApollo);
    await apollo.start();
    await agentApollo.start();
    const metrics = createMetrics({ cache, dataSource, health, sync, embeddings: embeddings ?? undefined });
    metricsHook.current = (r) => metrics.syncResults.inc({ source: r.source, status: r.status });
    callsHook.current = (f) => metrics.callResults.observe(f);
    // Issue 19: budgets shared by the replicas through Redis when REDIS_URL is set (rest/rate-limit-shared.ts).
    const sharedBudgets: SharedBudgets | null = config.sharedLimits
      ? new (await import('./rest/rate-limit-shared')).SharedBudgets({ ...config.sharedLimits, ...config.security.rateLimit, log, onFallback: () => metrics.rateLimitFallbacks.inc() })
      : null;
    const restExecutor = new PreparedExecutor(schema, makeFormatError(log));
    let httpServer: HttpServer | null = null;
    const handler = buildRequestListener({
      apollo,
      agentApollo,
      rest: tracing ? tracing.tracedExecutor(restExecutor) : restExecutor,
      calls: { maxRequestBytes: config.calls.maxRequestBytes, heartbeatMs: 15_000, bodyDeadlineMs: config.mcp.bodyDeadlineMs },
      mcp: config.mcp,
      hostVersion: config.hostVersion,
      onCatalogChange: (l) => generation.onChange(l),
      catalogGeneration: () => generation.current,
      principalActive: (p) => tenancy.stillActive(p),
      authenticate: identity.authenticate,
      security: config.security,
      health,
      metrics,
      log,
      track: (req, res) => httpServer?.track(req, res),
      sharedBudgets,
      traceRequest: tracing?.traceRequest ?? null,
    });
    httpServer = new HttpServer(handler, (err) => log.error({ err }, 'HTTP server error'));
    const server = httpServer;

    let closing: Promise<void> | null = null;
    return {
      handler,
      apollo,
      cache,
      generation,
      catalogListener: listener,
      searchIndex,
      dataSource,
      services,
      health,
      log,
      listen: (port = config.http.port, host = config.http.host) => server.listen(port, host),
      close(drainMs = 0) {
        closing ??= (async () => {
          // Open event streams and MCP sessions never finish by themselves: they end first, then requests drain.
          await handler.close();
          await server.drain(drainMs);
          generation.stop();
          await searchIndex!.stop();
          health.stop();
          scheduler.stop();
          clearInterval(abandonedSweep);
          await invocation.stop();
          await sync.stop();
          await terminationsSettled(); // the DELETEs that end upstream sessions leave before the process does (each cut at 2 s)
          await snapshots!.close();
          await listener?.stop();
          await apollo.stop();
          await agentApollo.stop();
          await checkpointer?.stop();
          await dataSource.destroy();
          await sharedBudgets?.close();
          if (ownTracing) await tracing?.shutdown();
        })();
        return closing;
      },
    };
  } catch (err) {
    await searchIndex?.stop();
    await snapshots?.close().catch(() => undefined);
    await checkpointer?.stop().catch(() => undefined);
    await dataSource.destroy().catch(() => undefined);
    if (ownTracing) await tracing?.shutdown().catch(() => undefined);
    throw err;
  }
}

/** Staging rows older than this were left by a process that died mid-sync (PostgreSQL; SQLite stages per connection). */
const STAGING_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * Start-up applies the config file the way `toolcat config apply` does (issue 19) and logs the same diff. A file
 * other than the one the database has applied is not applied (another replica or operator applied that one):
 * warned, and this replica serves what the database has, unless forced.
 */
async function applyConfigFile(config: ConfigApply, file: string, configApply: Config['configApply'], log: Logger): Promise<void> {
  const loaded = loadConfigFile(file);
  try {
    const { plan, pruned, written } = await config.apply(loaded, { ...configApply, by: 'start-up' });
    // With its diff either way: drift (an API classification the file disagrees with) is reported on every start.
    log.info({ file, hash: plan.hash, diff: planLines(plan, { prune: pruned }) }, written ? 'config file applied' : 'config file: already applied, unchanged; nothing written');
    if (plan.remove.length && !pruned) log.warn({ file, kept: plan.remove.map((r) => r.id) }, 'config file: what it no longer declares is kept; start with --config-prune (TOOLCAT_CONFIG_PRUNE=true) or run `toolcat config apply --prune` to remove it');
  } catch (err) {
    if (!(err instanceof OtherConfigAppliedError)) throw err;
    log.warn({ file, hash: err.plan.hash, applied: err.plan.applied, diff: planLines(err.plan) }, err.message);
  }
}
