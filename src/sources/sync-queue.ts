import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { SyncPolicy } from '../config/sync-settings';

/**
 * At most `maxConcurrentSyncs` syncs run on this replica at once (issue 12 defect 2: 25 on-demand syncs of hanging
 * servers ran all at once). Others wait in order, on-demand ones first. On-demand syncs that wait are bounded by
 * `maxQueuedSyncs`: one more is refused at once with a clear error instead of piling up. Background syncs (at
 * start, scheduled, notified) always queue; there is at most one per source (the sync service joins repeats).
 */
export class SyncQueue {
  private active = 0;
  private readonly waiting: Array<{ onDemand: boolean; start: () => void; cancel: (err: Error) => void }> = [];
  private refusedCount = 0;

  constructor(private readonly policy: Pick<SyncPolicy, 'maxConcurrentSyncs' | 'maxQueuedSyncs'>) {}

  run<T>(task: () => Promise<T>, onDemand: boolean): Promise<T> {
    if (this.active < this.policy.maxConcurrentSyncs) return this.start(task);
    if (onDemand && this.waiting.filter((w) => w.onDemand).length >= this.policy.maxQueuedSyncs) {
      this.refusedCount++;
      return Promise.reject(
        new CatalogError(
          CatalogErrorCode.Conflict,
          `Too many syncs: ${this.active} running and ${this.queued} waiting on this replica (TOOLCAT_SYNC_MAX_CONCURRENT=${this.policy.maxConcurrentSyncs}, ` +
            `TOOLCAT_SYNC_MAX_QUEUED=${this.policy.maxQueuedSyncs}). Retry when one has finished.`,
        ),
      );
    }
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ onDemand, start: () => void this.start(task).then(resolve, reject), cancel: reject });
    });
  }

  /** Rejects everything still waiting (shutdown). */
  cancelWaiting(err: Error): void {
    for (const w of this.waiting.splice(0)) w.cancel(err);
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** On-demand syncs refused because the queue was full, since start. */
  get refused(): number {
    return this.refusedCount;
  }

  private async start<T>(task: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      const i = this.waiting.findIndex((w) => w.onDemand);
      this.waiting.splice(i >= 0 ? i : 0, 1)[0]?.start();
    }
  }
}
