import type { IncomingMessage } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { CatalogCache } from '../cache/catalog-cache';
import { containsCredential } from '../catalog/credentials';
import { splitTarget } from '../shared/request-target';
import { type DbHealth, poolOf } from './db-health';

/**
 * Prometheus metrics (issue 7): request rate and latency per route, cache hits and misses, sync results per
 * source, database pool use. Route labels are the route patterns, never raw paths (bounded cardinality).
 */
export interface Metrics {
  readonly registry: Registry;
  /** Sync results by source and status. A source name that looks like a credential is counted as `[redacted]`. */
  readonly syncResults: { inc(labels: { source: string; status: string }): void };
  /** Counts a request whose response has been handed to the OS, and its latency (the listener times it). */
  /** `req`: the method and target as received (not as a router rewrote them). */
  requestFinished(req: Pick<IncomingMessage, 'method' | 'url'>, status: number, seconds: number): void;
  /** Tool calls by source, tool and outcome (issue 14 item 7). */
  readonly callResults: { observe(f: { source: string; toolId: string; outcome: string; durationMs: number }): void };
  /** Budget checks decided by the replica's own budget because Redis did not answer (issue 19). */
  readonly rateLimitFallbacks: { inc(): void };
  /** REST and MCP catalog reads answered from the decision memo (issue 21: the GraphQL outcome kept for the generation). */
  readonly decisionMemoHits: { inc(): void };
}

/** Request label sets kept for reuse (routes × methods × statuses seen; past it a request makes its own). */
const MAX_REQUEST_LABEL_SETS = 512;

/** Distinct tool labels kept before the rest are counted as `_other` (bounded cardinality at 100,000 tools). */
const MAX_TOOL_LABELS = 1000;

/**
 * What the metrics read of the sync service (the source layer sits above ops/, so metrics depend on this shape, not
 * on the service: issue 13). SourceSyncService satisfies it.
 */
export interface SyncStats {
  queueStats(): { readonly running: number; readonly queued: number; readonly refused: number };
  notificationStats(): ReadonlyArray<{ readonly source: string; readonly received: number; readonly dropped: number; readonly throttledUntil: number | null }>;
}

/** What the metrics read of the optional embedding stage of tool search (EmbeddingSync satisfies it). */
export interface EmbeddingStats {
  stats(): { readonly vectors: number; readonly pending: number; readonly embedded: number; readonly reused: number; readonly passFailures: number; readonly fusedQueries: number; readonly lexicalFallbacks: number };
}

export function createMetrics(opts: { cache: CatalogCache; dataSource: DataSource; health?: DbHealth; sync?: SyncStats; embeddings?: EmbeddingStats }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'toolcat_' });
  const requests = new Counter({ name: 'toolcat_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'toolcat_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const callCounter = new Counter({ name: 'toolcat_tool_calls_total', help: 'Tool calls by source, tool and outcome', labelNames: ['source', 'tool', 'outcome'], registers: [registry] });
  const callLatency = new Histogram({
    name: 'toolcat_tool_call_duration_seconds',
    help: 'Tool call duration by source (retries included)',
    labelNames: ['source'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [registry],
  });
  // Label values worked out once per tool and source (the credential scan of each is not free: it ran on every call),
  // and the counter's child bound once per label set, so a call costs a map lookup and two increments (bench i).
  const toolLabels = new Map<string, string>();
  const routeLabels = new Map<string, { route: string }>();
  const requestLabels = new Map<string, { route: string; method: string; status: string }>();
  const sourceLabels = new Map<string, string>();
  const callChildren = new Map<string, { readonly count: { inc(): void }; readonly time: { observe(v: number): void } }>();
  const labelOf = (cache: Map<string, string>, value: string, bound: number): string => {
    let label = cache.get(value);
    if (label === undefined) {
      if (cache.size >= bound) return '_other';
      label = containsCredential(value) ? '[redacted]' : value;
      cache.set(value, label);
    }
    return label;
  };
  const callResults = {
    observe(f: { source: string; toolId: string; outcome: string; durationMs: number }): void {
      const source = labelOf(sourceLabels, f.source, MAX_TOOL_LABELS);
      const tool = labelOf(toolLabels, f.toolId, MAX_TOOL_LABELS);
      const key = `${source}\u0000${tool}\u0000${f.outcome}`;
      let child = callChildren.get(key);
      if (!child) {
        child = { count: callCounter.labels({ source, tool, outcome: f.outcome }), time: callLatency.labels({ source }) };
        callChildren.set(key, child);
      }
      child.count.inc();
      child.time.observe(f.durationMs / 1000);
    },
  };
  const syncResults = new Counter({ name: 'toolcat_source_sync_total', help: 'MCP source syncs by source and resulting status', labelNames: ['source', 'status'], registers: [registry] });
  new Gauge({
    name: 'toolcat_cache_hits_total',
    help: 'Catalog documents served from the cache (monotonic)',
    registers: [registry],
    collect() {
      this.set(opts.cache.stats().hits);
    },
  });
  new Gauge({
    name: 'toolcat_cache_misses_total',
    help: 'Catalog documents built because the cache had none (monotonic)',
    registers: [registry],
    collect() {
      this.set(opts.cache.stats().misses);
    },
  });
  new Gauge({
    name: 'toolcat_cache_bytes',
    help: 'Bytes held by the response cache, by layer',
    labelNames: ['layer'],
    registers: [registry],
    collect() {
      const s = opts.cache.stats();
      this.set({ layer: 'documents' }, s.documentBytes);
      this.set({ layer: 'descriptors' }, s.descriptorBytes);
    },
  });
  new Gauge({
    name: 'toolcat_db_pool_connections',
    help: 'Database pool connections by state (PostgreSQL; SQLite has one embedded connection)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pool = poolOf(opts.dataSource);
      if (pool) {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      } else {
        this.set({ state: 'total' }, opts.dataSource.isInitialized ? 1 : 0);
      }
    },
  });
  // Issue 12 defect 2: a full pool is told apart from an outage.
  new Gauge({
    name: 'toolcat_db_state',
    help: 'The database as the health probe sees it: 1 for the current state (up, saturated: every pooled connection busy, down)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const state = opts.health?.state ?? 'up';
      for (const s of ['up', 'saturated', 'down']) this.set({ state: s }, s === state ? 1 : 0);
    },
  });
  if (opts.sync) addSyncMetrics(registry, opts.sync);
  if (opts.embeddings) addEmbeddingMetrics(registry, opts.embeddings);
  const rateLimitFallbacks = new Counter({ name: 'toolcat_rate_limit_fallbacks_total', help: 'Rate-limit checks decided by this replica alone because the shared budgets (Redis) did not answer in time', registers: [registry] });
  return {
    registry,
    callResults,
    rateLimitFallbacks,
    decisionMemoHits: new Counter({ name: 'toolcat_decision_memo_hits_total', help: 'Catalog reads (REST, MCP face) answered with the GraphQL outcome kept for this catalog generation and principal, without executing again', registers: [registry] }),
    // Label values are scraped by anyone who can read /metrics (open unless TOOLCAT_METRICS_TOKEN is set): a
    // source named like a token (registered before validateSource refused such names) is not one of them (issue 11).
    syncResults: {
      inc: ({ source, status }) => syncResults.inc({ source: sourceLabel(source), status }),
    },
    requestFinished(req, status, seconds) {
      const route = routeOf(req);
      // The method label is bounded: node's HTTP parser accepts only its fixed list of methods. The label objects are
      // made once per route (and method and status), not per request: prom-client only reads them (issue 21).
      let byRoute = routeLabels.get(route);
      if (!byRoute) routeLabels.set(route, (byRoute = { route }));
      latency.observe(byRoute, seconds);
      const key = `${route} ${req.method ?? 'GET'} ${status}`;
      let labels = requestLabels.get(key);
      if (!labels) {
        labels = { route, method: req.method ?? 'GET', status: String(status) };
        if (requestLabels.size < MAX_REQUEST_LABEL_SETS) requestLabels.set(key, labels);
      }
      requests.inc(labels);
    },
  };
}

function routeOf(req: Pick<IncomingMessage, 'url'>): string {
  const p = splitTarget(req.url).path;
  if (p === '/tools') return '/tools';
  if (p.startsWith('/tools/')) {
    const parts = p.split('/');
    if (parts.length === 4 && parts[3].toLowerCase() === 'calls') return '/tools/:toolId/calls';
    if (parts.length === 5 && parts[3].toLowerCase() === 'calls') return '/tools/:toolId/calls/:callId';
    return '/tools/:toolId';
  }
  if (p === '/graphql' || p === '/capabilities' || p === '/healthz' || p === '/readyz' || p === '/metrics') return p;
  return 'other';
}

/** A source name as a label value: one that looks like a credential is `[redacted]` (issue 11). */
function sourceLabel(source: string): string {
  return containsCredential(source) ? '[redacted]' : source;
}

/**
 * Issue 18: the optional embedding stage of tool search. `lexical_fallback` counts searches answered without the
 * vector ranking because the endpoint failed, was too slow or rests after a failure: the operator's signal that
 * search is degraded (it never fails because of it).
 */
function addEmbeddingMetrics(registry: Registry, e: EmbeddingStats): void {
  new Gauge({
    name: 'toolcat_search_embedding_queries_total',
    help: 'Tool searches with the embedding stage on, by outcome: fused, or lexical_fallback when the endpoint failed or was too slow (monotonic)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      const s = e.stats();
      this.set({ outcome: 'fused' }, s.fusedQueries);
      this.set({ outcome: 'lexical_fallback' }, s.lexicalFallbacks);
    },
  });
  new Gauge({
    name: 'toolcat_search_embedding_tools',
    help: 'Tool vectors of the embedding stage: held in memory, waiting to be computed, computed through the endpoint and reused from storage since start (monotonic for the last two)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const s = e.stats();
      this.set({ state: 'held' }, s.vectors);
      this.set({ state: 'pending' }, s.pending);
      this.set({ state: 'embedded' }, s.embedded);
      this.set({ state: 'reused' }, s.reused);
    },
  });
  new Gauge({
    name: 'toolcat_search_embedding_pass_failures_total',
    help: 'Background passes of the embedding stage that failed (endpoint or storage) and were retried later (monotonic)',
    registers: [registry],
    collect() {
      this.set(e.stats().passFailures);
    },
  });
}

/**
 * Issue 12: syncs running and waiting (defect 2), and per source the notifications received and dropped and
 * whether it is throttled now (defect 4). Read from the sync service at each scrape.
 */
function addSyncMetrics(registry: Registry, sync: SyncStats): void {
  new Gauge({
    name: 'toolcat_sync_slots',
    help: 'MCP syncs of this replica running now and waiting for a place (TOOLCAT_SYNC_MAX_CONCURRENT, TOOLCAT_SYNC_MAX_QUEUED)',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const q = sync.queueStats();
      this.set({ state: 'running' }, q.running);
      this.set({ state: 'queued' }, q.queued);
    },
  });
  new Gauge({
    name: 'toolcat_sync_refused_total',
    help: 'On-demand MCP syncs refused because as many were already waiting (monotonic)',
    registers: [registry],
    collect() {
      this.set(sync.queueStats().refused);
    },
  });
  new Gauge({
    name: 'toolcat_source_notifications_total',
    help: 'Notifications received from an MCP source by this replica, and those dropped unparsed (over the per-second cap or throttled; monotonic)',
    labelNames: ['source', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const n of sync.notificationStats()) {
        this.set({ source: sourceLabel(n.source), outcome: 'received' }, n.received);
        this.set({ source: sourceLabel(n.source), outcome: 'dropped' }, n.dropped);
      }
    },
  });
  new Gauge({
    name: 'toolcat_source_throttled',
    help: '1 while an MCP source is throttled for flooding notifications',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      this.reset();
      for (const n of sync.notificationStats()) this.set({ source: sourceLabel(n.source) }, n.throttledUntil === null ? 0 : 1);
    },
  });
}
