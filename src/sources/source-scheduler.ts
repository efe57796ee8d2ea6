import type { DataSource } from 'typeorm';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import type { Logger } from '../shared/logger';
import type { SourceSyncService } from './source-sync.service';

/** Syncs every enabled source at start and then on its own interval (0 = no periodic sync). */
export class SourceScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly sync: SourceSyncService,
    private readonly log: Logger,
  ) {}

  /** Starts all sources; resolves when each initial sync has finished (failures are statuses, not errors). */
  async start(): Promise<void> {
    const sources = await this.ds.getRepository(McpSourceEntity).find({ where: { enabled: true } });
    await Promise.all(sources.map((s) => this.schedule(s.name, s.syncIntervalSeconds, true)));
  }

  /** (Re)arms one source after it was registered, changed or removed. */
  async refresh(name: string): Promise<void> {
    this.unschedule(name);
    const s = await this.ds.getRepository(McpSourceEntity).findOne({ where: { name } });
    if (s?.enabled) await this.schedule(s.name, s.syncIntervalSeconds, false);
  }

  unschedule(name: string): void {
    clearInterval(this.timers.get(name));
    this.timers.delete(name);
  }

  stop(): void {
    this.stopped = true;
    for (const name of [...this.timers.keys()]) this.unschedule(name);
  }

  private async schedule(name: string, intervalSeconds: number, syncNow: boolean): Promise<void> {
    if (this.stopped) return;
    if (intervalSeconds > 0) {
      const t = setInterval(() => void this.sync.sync(name, { wait: false }).catch((err) => this.log.error({ err, source: name }, 'periodic sync failed')), intervalSeconds * 1000);
      t.unref();
      this.timers.set(name, t);
    }
    if (syncNow) await this.sync.sync(name, { wait: false }).catch((err) => this.log.error({ err, source: name }, 'initial sync failed'));
  }
}
