import type { SpanHooks } from '../ops/tracing-hooks';
import type { DataSource } from 'typeorm';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import type { Logger } from '../shared/logger';
import { nowIso } from '../shared/clock';
import { type ListProgress, type McpSession, openSession } from './mcp/mcp-session';
import { sanitizeError } from './mcp/sanitize-error';
import { DEFAULT_SYNC_POLICY, type SyncLimits, type SyncPolicy } from '../config/sync-settings';
import { FLOOD_SECONDS, NotificationGate } from './mcp/notification-gate';
import type { SourceSnapshotService } from './source-snapshot.service';
import { loadSource, secretValues } from './source-store';
import { type SyncLease, SyncLockService } from './sync-lock.service';
import { SyncQueue } from './sync-queue';

export type SourceStatus = 'never-synced' | 'ok' | 'degraded' | 'failing';

export interface SyncResult {
  readonly source: string;
  readonly status: SourceStatus;
  readonly toolCount: number;
  readonly quarantinedCount: number;
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  readonly durationMs: number;
  readonly error: string | null;
}

/** A sync in progress: when it started, what it has read so far (issue 12 defect 6). */
export interface SyncProgress extends ListProgress {
  readonly source: string;
  readonly startedAt: string;
  readonly updatedAt: string;
}

/** What this replica saw of a source's notifications since it started (issue 12 defect 4). */
export interface NotificationStats {
  readonly source: string;
  readonly received: number;
  readonly dropped: number;
  /** Epoch ms; null when not throttled now. */
  readonly throttledUntil: number | null;
}

/** Progress is written to the database at most this often (plus at start and end). */
const PROGRESS_WRITE_MS = 1000;
/** The first notification-triggered sync waits this long, so a burst is read before the listing. */
const NOTIFY_DELAY_MS = 200;

/**
 * Syncs MCP sources. One sync per source at a time (concurrent requests share it). A live session is kept
 * per source so `notifications/tools/list_changed` can trigger a sync; a broken one is replaced on the next
 * sync. Any failure leaves the source's last good snapshot serving and is recorded, sanitised, as its status:
 *   ok        last sync succeeded, nothing quarantined
 *   degraded  last sync succeeded, some tools quarantined
 *   failing   last sync failed (the last good snapshot, if any, keeps serving)
 *
 * Issue 12: while a sync waits on a server it holds no pooled database connection (the cross-replica lock is on
 * a dedicated connection; the pool is used only around database work). At most `maxConcurrentSyncs` run at once
 * (SyncQueue). Notifications are budgeted per source (NotificationGate), the syncs they trigger are coalesced
 * with a minimum interval, and a source that keeps flooding is throttled (persisted, shown in GraphQL, counted
 * in metrics). Progress (pages, tools read) is kept in memory and written to the source's row while it runs.
 */
export class SourceSyncService {
  private readonly inFlight = new Map<string, Promise<SyncResult>>();
  private readonly sessions = new Map<string, McpSession>();
  private readonly changeTimers = new Map<string, NodeJS.Timeout>();
  private readonly lastStarted = new Map<string, number>();
  private readonly gates = new Map<string, NotificationGate>();
  private readonly progress = new Map<string, SyncProgress & { writtenAt: number }>();
  private readonly progressListeners = new Set<(p: SyncProgress) => void>();
  private readonly queue: SyncQueue;
  private readonly locks: SyncLockService | null;
  private readonly policy: SyncPolicy;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly snapshots: SourceSnapshotService,
    private readonly log: Logger,
    private readonly opts: {
      limits: SyncLimits;
      policy?: SyncPolicy;
      env: Readonly<Record<string, string | undefined>>;
      version: string;
      keepSessions: boolean;
      onResult?: (r: { source: string; status: SourceStatus }) => void;
      /** Issue 19: a span per sync (absent when tracing is off). */
      trace?: SpanHooks | null;
    },
  ) {
    this.policy = opts.policy ?? DEFAULT_SYNC_POLICY;
    this.queue = new SyncQueue(this.policy);
    this.locks = ds.options.type === 'postgres' ? new SyncLockService(ds) : null;
  }

  /**
   * Syncs one source. Across replicas on PostgreSQL an advisory lock lets one replica at a time sync a source:
   * on demand (`wait`) the call waits for the other replica (at most one sync's bound); a scheduled or notified
   * sync that finds the lock held is skipped, since the holder is doing the same work. An on-demand sync beyond
   * the queue's bound is refused (CatalogError CONFLICT).
   */
  sync(name: string, opts: { wait: boolean } = { wait: true }): Promise<SyncResult> {
    const running = this.inFlight.get(name);
    if (running) return running;
    const work = () => this.locked(name, opts.wait);
    const trace = this.opts.trace;
    const p = this.queue.run(trace ? () => trace.inSpan('toolcat.sync', { 'toolcat.source': name }, work) : work, opts.wait).finally(() => this.inFlight.delete(name));
    this.inFlight.set(name, p);
    return p;
  }

  /** Progress of each sync running now: this replica's own, else what the replica running it last wrote. */
  progressOf(row: McpSourceEntity): SyncProgress | null {
    const local = this.progress.get(row.name);
    if (local) return { source: local.source, startedAt: local.startedAt, updatedAt: local.updatedAt, pages: local.pages, toolsRead: local.toolsRead };
    if (!row.syncStartedAt || !row.syncProgressAt) return null;
    // A row a replica stopped updating (it died mid-sync) is not a sync in progress.
    if (Date.now() - Date.parse(row.syncProgressAt) > this.opts.limits.syncTimeoutMs + 2 * PROGRESS_WRITE_MS) return null;
    return { source: row.name, startedAt: row.syncStartedAt, updatedAt: row.syncProgressAt, pages: row.syncPages, toolsRead: row.syncToolsRead };
  }

  /** Called after each page of every sync of this replica (the CLI prints them). Returns the unsubscribe. */
  onProgress(fn: (p: SyncProgress) => void): () => void {
    this.progressListeners.add(fn);
    return () => this.progressListeners.delete(fn);
  }

  notificationStats(): NotificationStats[] {
    return [...this.gates].map(([source, g]) => ({ source, received: g.received, dropped: g.dropped, throttledUntil: g.throttledUntil }));
  }

  notificationStatsOf(name: string): NotificationStats {
    const g = this.gates.get(name);
    return { source: name, received: g?.received ?? 0, dropped: g?.dropped ?? 0, throttledUntil: g?.throttledUntil ?? null };
  }

  queueStats(): { running: number; queued: number; refused: number } {
    return { running: this.queue.running, queued: this.queue.queued, refused: this.queue.refused };
  }

  private async locked(name: string, wait: boolean): Promise<SyncResult> {
    if (!this.locks) return this.run(name, null);
    const since = Date.now();
    const lease = await this.locks.acquire(name, wait ? this.opts.limits.syncTimeoutMs + 5000 : null);
    if (!lease) return this.current(name, since);
    try {
      return await this.run(name, lease);
    } finally {
      await lease.release();
    }
  }

  /** The stored state of a source, as a result (used when another replica holds its sync). */
  private async current(name: string, since: number): Promise<SyncResult> {
    const row = await this.ds.getRepository(McpSourceEntity).findOne({ where: { name } });
    return {
      source: name, status: (row?.status ?? 'never-synced') as SourceStatus, toolCount: row?.toolCount ?? 0, quarantinedCount: row?.quarantinedCount ?? 0,
      added: 0, changed: 0, removed: 0, durationMs: Date.now() - since, error: row?.lastError ?? null,
    };
  }

  /**
   * Closes a source's session (after removal or reconfiguration); the next sync opens a fresh one. `endUpstream:
   * false` (an admin changed or removed the source): a Streamable HTTP session is not ended with a DELETE that would
   * carry the old secrets to the old URL once more.
   */
  async drop(name: string, opts: { readonly endUpstream?: boolean } = {}): Promise<void> {
    clearTimeout(this.changeTimers.get(name));
    this.changeTimers.delete(name);
    const s = this.sessions.get(name);
    this.sessions.delete(name);
    await s?.close(opts);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.queue.cancelWaiting(new Error('toolcat is shutting down'));
    await Promise.allSettled([...this.inFlight.values()]);
    await Promise.all([...this.sessions.keys()].map((n) => this.drop(n)));
    for (const t of this.changeTimers.values()) clearTimeout(t);
    this.changeTimers.clear();
    await this.locks?.stop();
  }

  private async run(name: string, lease: SyncLease | null): Promise<SyncResult> {
    const started = Date.now();
    this.lastStarted.set(name, started);
    // Database work is short and takes a pooled connection only for itself (issue 12 defect 2).
    const loaded = await loadSource(this.ds, name);
    if (!loaded) throw new Error(`no source named ${name}`);
    const { spec, secrets } = loaded;
    const deadline = AbortSignal.timeout(this.opts.limits.syncTimeoutMs);
    let session: McpSession | null = null;
    try {
      await this.startProgress(name, started);
      session = this.sessions.get(name) ?? null;
      if (!session || session.closed) {
        session = await openSession(spec, secrets, this.opts.env, this.opts.limits, {
          version: this.opts.version,
          gate: this.gateOf(name),
          signal: deadline,
          onToolsChanged: this.opts.keepSessions ? () => this.onToolsChanged(name) : undefined,
          onClosed: () => {
            if (this.sessions.get(name) === session) this.sessions.delete(name);
          },
        });
        if (this.opts.keepSessions && !this.stopped) this.sessions.set(name, session);
      }
      // Each page is examined and staged as it arrives (issue 12: a sync's memory is a window of pages, not the listing).
      const listing = session;
      const out = await this.snapshots.applyListed(
        name,
        (eachPage) => listing.listAllTools(this.opts.limits, deadline, (p) => this.pageRead(name, p), eachPage),
        () => {
          if (lease?.lost) throw new Error('the sync lock was lost (its database connection ended) before the listing could be applied; nothing was changed');
        },
      );
      const status: SourceStatus = out.quarantined > 0 ? 'degraded' : 'ok';
      const now = nowIso();
      await this.ds.getRepository(McpSourceEntity).update({ name }, { status, lastError: null, lastSyncAt: now, lastSuccessAt: now, ...NO_PROGRESS });
      const result = { source: name, status, toolCount: out.served, quarantinedCount: out.quarantined, added: out.added, changed: out.changed, removed: out.removed, durationMs: Date.now() - started, error: null };
      this.log.info(result, 'source synced');
      this.opts.onResult?.(result);
      return result;
    } catch (err) {
      const error = sanitizeError(err, secretValues(secrets, this.opts.env));
      await this.drop(name);
      await this.ds.getRepository(McpSourceEntity).update({ name }, { status: 'failing', lastError: error, lastSyncAt: nowIso(), ...NO_PROGRESS });
      const row = await this.ds.getRepository(McpSourceEntity).findOne({ where: { name } });
      this.log.warn({ source: name, error }, 'source sync failed; its last good snapshot keeps serving');
      this.opts.onResult?.({ source: name, status: 'failing' });
      return { source: name, status: 'failing', toolCount: row?.toolCount ?? 0, quarantinedCount: row?.quarantinedCount ?? 0, added: 0, changed: 0, removed: 0, durationMs: Date.now() - started, error };
    } finally {
      this.progress.delete(name);
      // A session is kept only while it is the source's stored one: one opened by a sync that finished after stop()
      // (a start-up sync racing shutdown) would otherwise outlive the service, and its server process with it.
      if (session && (!this.opts.keepSessions || this.stopped || this.sessions.get(name) !== session)) await session.close();
    }
  }

  private async startProgress(name: string, started: number): Promise<void> {
    const startedAt = new Date(started).toISOString();
    this.progress.set(name, { source: name, startedAt, updatedAt: startedAt, pages: 0, toolsRead: 0, writtenAt: started });
    await this.ds.getRepository(McpSourceEntity).update({ name }, { syncStartedAt: startedAt, syncPages: 0, syncToolsRead: 0, syncProgressAt: startedAt });
  }

  /** After each page: in memory at once (this replica's GraphQL, the CLI), in the row at most once a second. */
  private pageRead(name: string, p: ListProgress): void {
    const cur = this.progress.get(name);
    if (!cur) return;
    const now = Date.now();
    const next = { ...cur, pages: p.pages, toolsRead: p.toolsRead, updatedAt: new Date(now).toISOString() };
    this.progress.set(name, next);
    for (const l of this.progressListeners) l({ source: name, startedAt: next.startedAt, updatedAt: next.updatedAt, pages: next.pages, toolsRead: next.toolsRead });
    if (now - cur.writtenAt < PROGRESS_WRITE_MS) return;
    next.writtenAt = now;
    void this.ds
      .getRepository(McpSourceEntity)
      .update({ name }, { syncPages: p.pages, syncToolsRead: p.toolsRead, syncProgressAt: next.updatedAt })
      .catch((err: unknown) => this.log.debug({ err, source: name }, 'could not record sync progress'));
  }

  /** The notification budget of a source; it outlives sessions, so a reconnect does not reset a throttle. */
  private gateOf(name: string): NotificationGate {
    let g = this.gates.get(name);
    if (!g) {
      g = new NotificationGate({ maxPerSecond: this.policy.maxNotificationsPerSecond, onFlood: (perSecond) => this.throttle(name, perSecond) });
      this.gates.set(name, g);
    }
    return g;
  }

  /**
   * The source went over the notification cap FLOOD_SECONDS seconds in a row: nothing it sends is read as a
   * notification until the throttle ends (renewed each second it keeps on), and no sync comes of it. Its scheduled
   * and on-demand syncs go on. Recorded on the source's row (admins of every replica see it), logged once.
   */
  private throttle(name: string, perSecond: number): void {
    const g = this.gateOf(name);
    const wasUntil = g.throttledUntil;
    const until = Date.now() + this.policy.throttleMs;
    g.throttleUntil(until);
    clearTimeout(this.changeTimers.get(name));
    this.changeTimers.delete(name);
    // The row is written when the throttle starts and then about twice per throttle period while it is renewed.
    if (wasUntil !== null && wasUntil - Date.now() > this.policy.throttleMs / 2) return;
    const reason =
      `more than ${this.policy.maxNotificationsPerSecond} notifications per second for ${FLOOD_SECONDS} seconds in a row ` +
      `(${perSecond.toLocaleString('en-US')} in the last full second); its notifications are dropped until the throttle ends`;
    if (wasUntil === null) this.log.warn({ source: name, perSecond, throttleMs: this.policy.throttleMs }, 'source floods notifications: throttled');
    void this.ds
      .getRepository(McpSourceEntity)
      .update({ name }, { throttledUntil: new Date(until).toISOString(), throttleReason: reason })
      .catch((err: unknown) => this.log.debug({ err, source: name }, 'could not record the throttle'));
  }

  /**
   * list_changed: one sync per burst, and never sooner than `minSyncIntervalMs` after the source's last sync
   * started (issue 12 defect 4: the old debounce restarted its timer on every notification, so a steady flood
   * postponed the sync for ever while each pause in it triggered one more). Notifications while a sync is due
   * are merged into it; one that arrives while a sync runs schedules the next.
   */
  private onToolsChanged(name: string): void {
    if (this.stopped || this.changeTimers.has(name) || this.gates.get(name)?.throttledUntil) return;
    const sinceLast = Date.now() - (this.lastStarted.get(name) ?? 0);
    const delay = Math.max(NOTIFY_DELAY_MS, this.policy.minSyncIntervalMs - sinceLast);
    const timer = setTimeout(() => {
      this.changeTimers.delete(name);
      const running = this.inFlight.get(name);
      if (running) {
        // This sync may have listed before the change: look again once it is done.
        void running.finally(() => this.onToolsChanged(name)).catch(() => undefined);
        return;
      }
      void this.sync(name, { wait: false }).catch((err) => this.log.error({ err, source: name }, 'sync after list_changed failed'));
    }, delay);
    timer.unref();
    this.changeTimers.set(name, timer);
  }
}

const NO_PROGRESS = { syncStartedAt: null, syncPages: 0, syncToolsRead: 0, syncProgressAt: null };
