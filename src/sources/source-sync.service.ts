import type { DataSource } from 'typeorm';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import type { Logger } from '../shared/logger';
import { nowIso } from '../shared/clock';
import { type McpSession, openSession } from './mcp/mcp-session';
import { sanitizeError } from './mcp/sanitize-error';
import type { SyncLimits } from './mcp/sync-limits';
import type { SourceSnapshotService } from './source-snapshot.service';
import { loadSource, secretValues } from './source-store';

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

/**
 * Syncs MCP sources. One sync per source at a time (concurrent requests share it). A live session is kept
 * per source so `notifications/tools/list_changed` can trigger a sync; a broken one is replaced on the next
 * sync. Any failure leaves the source's last good snapshot serving and is recorded, sanitised, as its status:
 *   ok        last sync succeeded, nothing quarantined
 *   degraded  last sync succeeded, some tools quarantined
 *   failing   last sync failed (the last good snapshot, if any, keeps serving)
 */
export class SourceSyncService {
  private readonly inFlight = new Map<string, Promise<SyncResult>>();
  private readonly sessions = new Map<string, McpSession>();
  private readonly changeTimers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly snapshots: SourceSnapshotService,
    private readonly log: Logger,
    private readonly opts: {
      limits: SyncLimits;
      env: Readonly<Record<string, string | undefined>>;
      version: string;
      keepSessions: boolean;
      onResult?: (r: { source: string; status: SourceStatus }) => void;
    },
  ) {}

  /**
   * Syncs one source. Across replicas on PostgreSQL an advisory lock lets one replica at a time sync a source:
   * on demand (`wait`) the call queues behind the other replica; a scheduled or notified sync that finds the
   * lock held is skipped (null), since the holder is doing the same work.
   */
  sync(name: string, opts: { wait: boolean } = { wait: true }): Promise<SyncResult> {
    const running = this.inFlight.get(name);
    if (running) return running;
    const p = this.locked(name, opts.wait).finally(() => this.inFlight.delete(name));
    this.inFlight.set(name, p);
    return p;
  }

  private async locked(name: string, wait: boolean): Promise<SyncResult> {
    if (this.ds.options.type !== 'postgres') return this.run(name);
    const qr = this.ds.createQueryRunner();
    await qr.connect();
    try {
      const key = `toolcat-sync:${name}`;
      if (wait) await qr.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
      else if (!(await qr.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]))[0].ok) return this.current(name, Date.now());
      try {
        return await this.run(name);
      } finally {
        await qr.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined);
      }
    } finally {
      await qr.release();
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

  /** Closes a source's session (after removal or reconfiguration); the next sync opens a fresh one. */
  async drop(name: string): Promise<void> {
    clearTimeout(this.changeTimers.get(name));
    this.changeTimers.delete(name);
    const s = this.sessions.get(name);
    this.sessions.delete(name);
    await s?.close();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled([...this.inFlight.values()]);
    await Promise.all([...this.sessions.keys()].map((n) => this.drop(n)));
  }

  private async run(name: string): Promise<SyncResult> {
    const started = Date.now();
    const loaded = await loadSource(this.ds, name);
    if (!loaded) throw new Error(`no source named ${name}`);
    const { spec, secrets } = loaded;
    let session: McpSession | null = null;
    try {
      session = this.sessions.get(name) ?? null;
      if (!session || session.closed) {
        session = await openSession(spec, secrets, this.opts.env, this.opts.limits, {
          version: this.opts.version,
          onToolsChanged: this.opts.keepSessions ? () => this.onToolsChanged(name) : undefined,
          onClosed: () => {
            if (this.sessions.get(name) === session) this.sessions.delete(name);
          },
        });
        if (this.opts.keepSessions && !this.stopped) this.sessions.set(name, session);
      }
      const raw = await session.listAllTools(this.opts.limits, AbortSignal.timeout(this.opts.limits.syncTimeoutMs));
      const out = await this.snapshots.apply(name, raw);
      const status: SourceStatus = out.quarantined > 0 ? 'degraded' : 'ok';
      const now = nowIso();
      await this.ds.getRepository(McpSourceEntity).update({ name }, { status, lastError: null, lastSyncAt: now, lastSuccessAt: now });
      const result = { source: name, status, toolCount: out.served, quarantinedCount: out.quarantined, added: out.added, changed: out.changed, removed: out.removed, durationMs: Date.now() - started, error: null };
      this.log.info(result, 'source synced');
      this.opts.onResult?.(result);
      return result;
    } catch (err) {
      const error = sanitizeError(err, secretValues(secrets, this.opts.env));
      await this.drop(name);
      await this.ds.getRepository(McpSourceEntity).update({ name }, { status: 'failing', lastError: error, lastSyncAt: nowIso() });
      const row = await this.ds.getRepository(McpSourceEntity).findOne({ where: { name } });
      this.log.warn({ source: name, error }, 'source sync failed; its last good snapshot keeps serving');
      this.opts.onResult?.({ source: name, status: 'failing' });
      return { source: name, status: 'failing', toolCount: row?.toolCount ?? 0, quarantinedCount: row?.quarantinedCount ?? 0, added: 0, changed: 0, removed: 0, durationMs: Date.now() - started, error };
    } finally {
      if (session && !this.opts.keepSessions) await session.close();
    }
  }

  /** list_changed can arrive in bursts: coalesce them into one sync shortly after the last. */
  private onToolsChanged(name: string): void {
    if (this.stopped) return;
    clearTimeout(this.changeTimers.get(name));
    const timer = setTimeout(() => {
      this.changeTimers.delete(name);
      void this.sync(name, { wait: false }).catch((err) => this.log.error({ err, source: name }, 'sync after list_changed failed'));
    }, 200);
    timer.unref();
    this.changeTimers.set(name, timer);
  }
}
