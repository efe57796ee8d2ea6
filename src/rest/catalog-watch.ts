import type { GraphQLContext } from '../graphql/context';
import type { Logger } from '../shared/logger';
import { LIST_TOOLS } from './documents';
import type { GraphQLExecutor } from './graphql-executor';

/** Someone who wants to hear when *their own* view of the catalog changes (an MCP session, a /catalog/events stream). */
export interface CatalogWatcher {
  readonly ctx: GraphQLContext;
  /** The view they list in (as asked: the GraphQL layer resolves it). */
  readonly view: string | null;
  /** Issue 16: the compact view's provider profile, if any (its list has its own ETag). */
  readonly profile?: string | null;
  /** The list ETag they last saw. */
  etag: string | null;
  /** Their view changed: its new list ETag. */
  changed(etag: string): void;
  /** Their credential no longer holds (key revoked, principal or tenant deleted): end the stream. */
  gone(): void;
}

export interface CatalogWatchDeps {
  readonly exec: GraphQLExecutor;
  /** Subscribes to catalog generation changes (local writes, other replicas' via polling and NOTIFY). */
  readonly onGeneration: (listener: () => void) => () => void;
  /** The principal's decision key (every cache key uses it): watchers with equal keys and views see equal lists. */
  readonly keyOf: (ctx: GraphQLContext) => string;
  readonly stillActive: (ctx: GraphQLContext) => Promise<boolean>;
  readonly debounceMs: number;
  readonly log: Logger;
}

/**
 * Change notifications that leak nothing (issue 15 item 4): after any catalog change (coalesced over `debounceMs`)
 * each watcher's own list ETag is recomputed through the very read path of GET /tools (the LIST_TOOLS document), and
 * a watcher hears `changed` only when its ETag differs from the one it last saw. The ETag covers exactly the
 * caller's visible set and descriptors, so a change to tools it cannot see changes nothing it hears, and what it
 * hears carries nothing but its own ETag.
 *
 * Cost: one list read per distinct (decision key, view) per change burst, not per watcher; reads run one at a time
 * so a burst of changes with many watchers never floods the database or the event loop.
 */
export class CatalogWatch {
  private readonly watchers = new Set<CatalogWatcher>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private dirty = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly deps: CatalogWatchDeps) {}

  get size(): number {
    return this.watchers.size;
  }

  /** Starts watching; the returned function stops. */
  add(w: CatalogWatcher): () => void {
    this.watchers.add(w);
    this.unsubscribe ??= this.deps.onGeneration(() => this.schedule());
    return () => {
      this.watchers.delete(w);
      if (this.watchers.size === 0 && this.unsubscribe) {
        this.unsubscribe();
        this.unsubscribe = null;
      }
    };
  }

  /** The caller's current list ETag, through the read path of GET /tools; null when it cannot be read now. */
  async currentEtag(ctx: GraphQLContext, view: string | null, profile: string | null = null): Promise<string | null> {
    const out = await this.deps.exec.execute(LIST_TOOLS, { view, profile }, ctx);
    const doc = out.data?.document as { etag?: string } | null | undefined;
    return out.errorCodes.length || !doc?.etag ? null : doc.etag;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.watchers.clear();
  }

  /** Waits for the comparison in progress (tests and shutdown). */
  async settled(): Promise<void> {
    while (this.timer || this.running) await (this.running ?? new Promise((r) => setTimeout(r, this.deps.debounceMs)));
  }

  private schedule(): void {
    if (this.running) {
      this.dirty = true;
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.compare().finally(() => {
        this.running = null;
        if (this.dirty) {
          this.dirty = false;
          this.schedule();
        }
      });
    }, this.deps.debounceMs);
    this.timer.unref();
  }

  private async compare(): Promise<void> {
    const groups = new Map<string, CatalogWatcher[]>();
    for (const w of this.watchers) {
      const key = `${this.deps.keyOf(w.ctx)}\u0000${w.view ?? ''}\u0000${w.profile ?? ''}`;
      const g = groups.get(key);
      if (g) g.push(w);
      else groups.set(key, [w]);
    }
    for (const group of groups.values()) {
      const { ctx, view, profile } = group[0];
      try {
        if (!(await this.deps.stillActive(ctx))) {
          for (const w of group) w.gone();
          continue;
        }
        const etag = await this.currentEtag(ctx, view, profile ?? null);
        if (etag === null) continue;
        for (const w of group) {
          if (w.etag === etag || !this.watchers.has(w)) continue;
          w.etag = etag;
          w.changed(etag);
        }
      } catch (err) {
        // A database blip: the next change (or the next poll of the stored version) compares again.
        this.deps.log.warn({ err }, 'could not compare a watcher\'s catalog view');
      }
    }
  }
}
