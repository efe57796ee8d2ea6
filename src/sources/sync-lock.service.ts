import type { DataSource } from 'typeorm';
import { DedicatedConnection } from '../ops/dedicated-connection';

/** A held sync lock. `lost`: its connection ended, so PostgreSQL released it and another replica may sync now. */
export interface SyncLease {
  readonly lost: boolean;
  release(): Promise<void>;
}

const RETRY_MS = 250;

/**
 * One replica at a time syncs a source (PostgreSQL session advisory locks), without holding a pooled connection
 * while a server is slow (issue 12 defect 2: 25 hanging servers held 25 pooled connections for as long as they
 * hung, and the replica answered 503 "database unreachable" with PostgreSQL healthy). Every lock of this replica
 * lives on one dedicated connection outside the request pool; waiting for a lock another replica holds is a
 * retried pg_try_advisory_lock, so it never blocks that connection. If the connection breaks, PostgreSQL has
 * released its locks: each lease held then says `lost`, and its sync applies nothing.
 */
export class SyncLockService {
  private readonly conn: DedicatedConnection;
  private readonly held = new Set<{ lost: boolean }>();

  constructor(ds: DataSource) {
    this.conn = new DedicatedConnection(DedicatedConnection.configOf(ds), 5000, () => {
      for (const l of this.held) l.lost = true;
      this.held.clear();
    });
  }

  /**
   * Takes the lock of `name`. `waitMs` null: only if it is free now (else null). Otherwise retries until it is
   * free, or `waitMs` has passed (null: the holder is doing the same work).
   */
  async acquire(name: string, waitMs: number | null): Promise<SyncLease | null> {
    const key = `toolcat-sync:${name}`;
    const deadline = Date.now() + (waitMs ?? 0);
    for (;;) {
      const [row] = await this.conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
      if (row?.ok) return this.lease(key);
      if (waitMs === null || Date.now() >= deadline) return null;
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }

  async stop(): Promise<void> {
    await this.conn.close();
  }

  private lease(key: string): SyncLease {
    const state = { lost: false };
    this.held.add(state);
    return {
      get lost() {
        return state.lost;
      },
      release: async () => {
        if (!this.held.delete(state)) return; // lost with its connection: nothing left to release
        await this.conn.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => undefined);
      },
    };
  }
}
