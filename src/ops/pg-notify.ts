import { Client } from 'pg';
import { CATALOG_CHANNEL, versionOfPayload } from '../persistence/catalog-version-sql';
import type { Logger } from '../shared/logger';

/**
 * PostgreSQL LISTEN on the catalog channel (issue 7): every replica hears a committed catalog change at once
 * and drops its cached answers. A notification carries the version its writer committed (null when it carries none),
 * so a replica hearing the echo of its own write, already taken at its commit, drops nothing again. `onNotify(null)`
 * also follows each (re)connect: changes made while nobody listened. A dropped connection is re-established with
 * backoff; the periodic version poll covers anything missed meanwhile.
 */
export class CatalogListener {
  private client: Client | null = null;
  private stopped = false;
  private retryMs = 250;
  private notifications = 0;

  constructor(
    private readonly url: string,
    private readonly onNotify: (version: number | null) => void,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.stopped) return;
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 2000 });
    client.on('notification', (n) => {
      this.onNotify(versionOfPayload(n.payload));
      this.notifications++;
    });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.client === client) this.client = null;
      this.retry();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CATALOG_CHANNEL}`);
      this.client = client;
      this.retryMs = 250;
      this.onNotify(null); // changes made while we were not listening
    } catch {
      await client.end().catch(() => undefined);
    }
  }

  /** Notifications heard so far, each counted once its handler has run (a version's synchronously). */
  get heard(): number {
    return this.notifications;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private retry(): void {
    if (this.stopped) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5000);
    setTimeout(() => void this.start().catch((err) => this.log.debug({ err }, 'LISTEN reconnect failed')), wait).unref();
  }
}
