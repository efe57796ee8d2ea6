import type { DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent, TransactionStartEvent } from 'typeorm';
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
/** What bumpCatalogVersion notes on the query runner of the transaction that bumped. */
interface CatalogMarks {
  catalogChanged?: boolean;
  catalogVersion?: number;
}
const marksOf = (runner: QueryRunner): CatalogMarks => runner.data as CatalogMarks;
const clear = (data: CatalogMarks): void => {
  data.catalogChanged = false;
  data.catalogVersion = undefined;
};
/** Open transactions on the runner after the event (0: the outermost one ended, or none started). */
const depthOf = (runner: QueryRunner): number => (runner as QueryRunner & { transactionDepth?: number }).transactionDepth ?? 0;

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

  /**
   * The version a committed transaction wrote becomes the generation's. Only the outermost commit counts: TypeORM
   * also reports a nested transaction's released savepoint as a commit, and its bump is not visible to anyone until
   * the outer transaction commits (taken then, caches rebuilt in between would hold the old catalog under the new
   * generation, and the poll would then find nothing new).
   */
  afterTransactionCommit(event: TransactionCommitEvent): void {
    if (depthOf(event.queryRunner) > 0) return;
    const data = marksOf(event.queryRunner);
    if (data.catalogChanged) {
      const version = data.catalogVersion;
      clear(data);
      this.seen(version);
    }
  }

  /**
   * A rolled-back bump is not a committed version, and its number will be written again by the next bump: taken, it
   * would make that real change look already seen. A runner may begin another transaction after this one, so its
   * marks are cleared here. A savepoint rolled back inside a transaction that may have bumped before
   * it leaves the change (if any) with no known version: the commit then advances the generation without one.
   */
  afterTransactionRollback(event: TransactionRollbackEvent): void {
    const data = marksOf(event.queryRunner);
    if (depthOf(event.queryRunner) > 0) {
      data.catalogVersion = undefined;
      return;
    }
    // Nothing else: no other flow read what it wrote (on SQLite each flow has a query runner of its own, and waits
    // for an open transaction to end: persistence/sqlite-immediate.ts), so no cache holds it.
    clear(data);
  }

  /** Marks left by a transaction that ended without either event (a runner reused after an error) mean nothing. */
  beforeTransactionStart(event: TransactionStartEvent): void {
    if (depthOf(event.queryRunner) === 0) clear(marksOf(event.queryRunner));
  }

  /** A change whose stored version is not known (a cache that found the catalog moving under a build): always new. */
  advance(): void {
    this.local++;
    this.changed();
  }

  /**
   * A committed catalog version, from this process's own write or another's NOTIFY: a new generation only if it is
   * newer than every version seen so far (the same change seen again, or an older one arriving late, changes nothing).
   * A change committed with no known version (undefined) is always a new generation.
   */
  seen(version: number | undefined): void {
    if (version === undefined) this.advance();
    else if (this.stored === -1 || version > this.stored) this.move(version);
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
    if (first) return;
    // `local` moves too, so that `current` never repeats: after a version went back (a restored database), the next
    // commits write numbers seen before, and an answer cached under the old string (a principal's authentication,
    // since revoked) would match again.
    this.local++;
    this.changed();
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
