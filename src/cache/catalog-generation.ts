import type { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { readCatalogVersion } from '../persistence/catalog-version';

/**
 * When may a cached catalog answer be reused? Every write that can change what a caller sees bumps
 * catalog_state.version inside its transaction (bumpCatalogVersion) and marks the query runner; after the
 * commit this subscriber advances the in-process generation, so the next request rebuilds (issue 6: "a
 * change is visible on the next request"). Writes by other processes (CLI, other replicas) are seen by
 * polling the stored version (and, on PostgreSQL, by LISTEN/NOTIFY where wired).
 */
export class CatalogGeneration implements EntitySubscriberInterface {
  private local = 0;
  private stored = -1;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<() => void>();

  /** Opaque: equal values mean nothing visible has changed. */
  get current(): string {
    return `${this.local}:${this.stored}`;
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as { catalogChanged?: boolean };
    if (data.catalogChanged) {
      data.catalogChanged = false;
      this.advance();
    }
  }

  /** For callers outside transactions (and NOTIFY handlers). */
  advance(): void {
    this.local++;
    for (const l of this.listeners) l();
  }

  /** Returns how to stop listening (a search index built for a measurement is dropped with it). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
    const v = await readCatalogVersion(ds.manager);
    if (v !== this.stored) {
      const first = this.stored === -1;
      this.stored = v;
      if (!first) for (const l of this.listeners) l();
    }
  }
}
