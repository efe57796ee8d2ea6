import { Client, type ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * One PostgreSQL connection of its own, outside the pool, opened on first use and again after it broke (issue
 * 12 defect 2). For work that must not wait behind, or take from, the request pool: the health probe (a full pool
 * is not an outage) and the sync locks (held while a server is slow, which must not cost a pooled connection).
 * Queries are sent one at a time; each is bounded by `timeoutMs`, after which the connection is dropped.
 */
export class DedicatedConnection {
  private client: Client | null = null;
  private connecting: Promise<Client> | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly timeoutMs: number,
    /** The connection ended or broke (what it held, such as session locks, is gone with it). */
    private readonly onLost: () => void = () => undefined,
  ) {}

  /** The pool's connection settings, as a pg client config. */
  static configOf(ds: DataSource): ClientConfig {
    const o = ds.options as { url?: string; host?: string; port?: number; username?: string; password?: string; database?: string };
    return { connectionString: o.url, host: o.host, port: o.port, user: o.username, password: o.password, database: o.database, application_name: 'toolcat' };
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const run = this.chain.then(async () => {
      const client = await this.connect();
      let timer: NodeJS.Timeout | undefined;
      try {
        const res = await Promise.race([
          client.query(sql, params),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`query on the dedicated connection timed out after ${this.timeoutMs} ms`)), this.timeoutMs);
          }),
        ]);
        return res.rows as T[];
      } catch (err) {
        // An error the server reported (it has a severity) leaves the connection usable; anything else may not.
        if ((err as { severity?: string }).severity === undefined) this.drop(client);
        throw err;
      } finally {
        clearTimeout(timer);
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Whether the connection is open now (a session lock taken on it is still held). */
  get isOpen(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }

  private connect(): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('the dedicated connection is closed'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new Client({ ...this.config, connectionTimeoutMillis: this.timeoutMs });
      client.on('error', () => this.drop(client)); // a terminated backend: reported by the next query, never thrown
      client.on('end', () => this.drop(client));
      try {
        await client.connect();
      } catch (err) {
        await client.end().catch(() => undefined);
        throw err;
      }
      if (this.closed) {
        await client.end().catch(() => undefined);
        throw new Error('the dedicated connection is closed');
      }
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  private drop(client: Client): void {
    if (this.client !== client) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.onLost();
  }
}
