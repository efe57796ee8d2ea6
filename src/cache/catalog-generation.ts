import type { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { readCatalogVersion } from '../persistence/catalog-version';

/**
 * When may a cached catalog answer be reused? Every write that can change what a caller sees bumps
 * catalog_state.version inside its transaction (bumpCatalogVersion) and notes the version it wrote on the query
 * runner; after the commit this subscriber takes that version as seen, so the next request rebuilds (issue 6: "a
 * change is visible on the next request"). Writes by other processes (CLI, other replicas) are seen by polling the
 * stored version and, on PostgreSQL, by LISTEN/NOTIFY, whose payload is the version the writer committed.
 *
 * One change, one new generation: the commit, the poll that reads the same version afterwards and the NOTIFY echo of
 * this replica's own write are the same change seen three ways, and only the first of them may drop the caches
 * (each drop makes every tenant's next list a rebuild). Versions only go forward here, except that a poll which
 * started after the last version was taken and reads a different one (a database restored or replaced under a
 * running process) is believed.
 */
export class CatalogGeneration implements EntitySubscriberInterface {
  private local = 0;
  private stored = -1;
  /** Bumped whenever `stored` moves: a poll that read before the move must not move it back. */
  private epoch = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<() => void>();

  /** Opaque: equal values mean nothing visible has changed. */
  get current(): string {
    return `${this.local}:${this.stored}`;
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as { catalogChanged?: boolean; catalogVersion?: number };
    if (data.catalogChanged) {
      const version = data.catalogVersion;
      data.catalogChanged = false;
      data.catalogVersion = undefined;
      if (version === undefined) this.advance();
      else this.seen(version);
    }
  }

  /** A change whose stored version is not known (a cache that found the catalog moving under a build): always new. */
  advance(): void {
    this.local++;
    this.changed();
  }

  /**
   * A committed catalog version, from this process's own write or another's NOTIFY: a new generation only if it is
   * newer than every version seen so far (the same change seen again, or an older one arriving late, changes nothing).
   */
  seen(version: number): void {
    if (this.stored !== -1 && version <= this.stored) return;
    this.move(version);
  }

  /** Calls `listener` after every change; the returned function unsubscribes. */
  onChange(listener: () => void): () => void {
    const l = (): void => listener();
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Reads the stored version now (and then every `intervalMs`); a different value advances the generation. */
  async watch(ds: DataSource, intervalMs: number): Promise<void> {
    await this.poll(ds);
    if (intervalMs > 0) {
      this.timer = setInterval(() => void this.poll(ds).catch(() => undefined), intervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async poll(ds: DataSource): Promise<void> {
    const epoch = this.epoch;
    const v = await readCatalogVersion(ds.manager);
    if (v === this.stored) return;
    // A read older than the version taken meanwhile (this process's commit, a NOTIFY) is stale, not a step back.
    if (this.epoch !== epoch && v < this.stored) return;
    this.move(v);
  }

  private move(version: number): void {
    const first = this.stored === -1;
    this.stored = version;
    this.epoch++;
    if (!first) this.changed();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
