import type { DataSource } from 'typeorm';
import type { IngestBounds } from '../catalog/ingest-bounds';
import type { Logger } from '../shared/logger';
import { nowIso } from '../shared/clock';
import { IngestPool } from './ingest-pool';
import { type SnapshotOutcome, SnapshotSession } from './snapshot-session';
import { type SnapshotStore, createSnapshotStore } from './snapshot-store';

export type { SnapshotOutcome } from './snapshot-session';

/** How many times a listing is applied again when the source was projected during the attempt (see commit()). */
const ATTEMPTS = 5;
/** A stored listing is read back this many tools at a time when a source is projected again. */
const STORED_PAGE = 200;

/** A paged snapshot was not published because the source was projected while it was fed (see SnapshotWriter). */
export class StaleSnapshotError extends Error {
  constructor(readonly source: string) {
    super(`the source "${source}" was projected while its listing was being applied; nothing was published, list it again`);
    this.name = 'StaleSnapshotError';
  }
}

/**
 * A listing applied page by page, as the pages arrive (issue 12: a page is examined while the next is fetched, and
 * the caller need not hold the whole listing). commit() publishes it atomically like apply(), or throws
 * StaleSnapshotError when the source was projected meanwhile (the caller lists again: the pages are gone).
 */
export interface SnapshotWriter {
  add(page: readonly unknown[]): Promise<void>;
  commit(): Promise<SnapshotOutcome>;
  abort(): Promise<void>;
}

export interface SnapshotServiceOptions {
  readonly pool?: IngestPool;
  readonly store?: SnapshotStore;
  /**
   * Called after a swap that changed served rows committed, with the catalog version it wrote when known (the
   * in-process cache generation takes it, so the next version poll does not see the same change again).
   */
  readonly onCatalogChanged?: (version: number | undefined) => void;
}

/**
 * Applies one complete tool listing of a source: upstream tools as received, quarantine, change history and the
 * served projection, published atomically. A failed sync never calls this, so the last good snapshot keeps serving.
 * Nothing here can touch another source's rows.
 *
 * Issue 12 defect 1: the listing is examined in the bounded ingest pool (off the event loop), planned against small
 * stamps of what is stored, staged in bounded batches (short transactions that yield in between) and published by
 * one swap transaction that only copies staged rows (SnapshotSession, snapshot-sql.ts). Readers see the old snapshot
 * until the swap commits; a crash before it leaves nothing but staging rows.
 */
export class SourceSnapshotService {
  readonly pool: IngestPool;
  readonly store: SnapshotStore;
  private readonly onCatalogChanged: (version: number | undefined) => void;

  constructor(
    ds: DataSource,
    private readonly log: Logger,
    private readonly bounds?: IngestBounds,
    opts: SnapshotServiceOptions = {},
  ) {
    this.pool = opts.pool ?? new IngestPool();
    this.store = opts.store ?? createSnapshotStore(ds);
    this.onCatalogChanged = opts.onCatalogChanged ?? (() => undefined);
  }

  /** The listing as received (all pages). The same signature as before issue 12; internally staged and pooled. */
  async apply(sourceName: string, rawTools: readonly unknown[]): Promise<SnapshotOutcome> {
    return this.attempt(sourceName, (s) => s.add(rawTools));
  }

  /**
   * A listing streamed page by page (issue 12: a sync never holds the whole listing): `list` fetches it and hands each
   * page to `eachPage`, which examines, plans and stages it while the next one is fetched. `beforeCommit` may refuse
   * to publish (throws; nothing is published). When the source was projected meanwhile (`stale`), the listing is
   * fetched again from the start (the pages are gone), as apply() plans it again.
   */
  async applyListed(sourceName: string, list: (eachPage: (page: readonly unknown[]) => Promise<void>) => Promise<unknown>, beforeCommit?: () => void): Promise<SnapshotOutcome> {
    return this.attempt(sourceName, async (s) => {
      await list((page) => s.add(page));
      beforeCommit?.();
    });
  }

  /** Starts a paged snapshot of a source (see SnapshotWriter). */
  async begin(sourceName: string): Promise<SnapshotWriter> {
    const session = await SnapshotSession.open(this.deps(), sourceName, nowIso());
    return {
      add: (page) => session.add(page),
      commit: async () => {
        const out = await session.commit(this.onCatalogChanged);
        if (out === 'stale') throw new StaleSnapshotError(sourceName);
        return out.outcome;
      },
      abort: () => session.discard(),
    };
  }

  /**
   * Projects a source again from its stored listing, as a snapshot of that same listing (derived refresh at start:
   * a new gate or compactor version re-derives every row). Staged and swapped like a sync, so 100,000 stored tools
   * are re-derived in the pool, a bounded batch at a time, each source published atomically.
   */
  async reproject(sourceName: string): Promise<SnapshotOutcome> {
    return this.attempt(sourceName, async (s) => {
      for (let after = ''; ; ) {
        const page = await this.store.storedListing(sourceName, after, STORED_PAGE);
        if (!page.length) return;
        await s.addTexts(page.length, (i) => page[i].raw);
        after = page[page.length - 1].key;
      }
    });
  }

  private deps() {
    return { store: this.store, pool: this.pool, log: this.log, bounds: this.bounds };
  }

  async close(): Promise<void> {
    await this.pool.close();
    await this.store.close();
  }

  /**
   * One session per attempt. `stale` means the source was projected (classified, approved, updated, synced elsewhere)
   * while this attempt planned: nothing was published, and the listing is planned again against the new state, so a
   * decision made during a sync is never overwritten by one read before it (issue 12 defect 3). Only host-side writes
   * make an attempt stale (a server cannot), so a few attempts always suffice in practice.
   */
  private async attempt(sourceName: string, feed: (s: SnapshotSession) => Promise<void>): Promise<SnapshotOutcome> {
    for (let n = 1; ; n++) {
      const session = await SnapshotSession.open(this.deps(), sourceName, nowIso());
      let out: Awaited<ReturnType<SnapshotSession['commit']>>;
      try {
        await feed(session);
        out = await session.commit(this.onCatalogChanged);
      } catch (err) {
        await session.discard().catch(() => undefined);
        throw err;
      }
      if (out !== 'stale') return out.outcome;
      if (n >= ATTEMPTS) throw new Error(`the source "${sourceName}" was changed by other writers during ${ATTEMPTS} attempts to apply its listing; its last snapshot keeps serving`);
      this.log.info({ source: sourceName, attempt: n }, 'source projected during the sync; applying the listing again');
    }
  }
}
