import { Client } from 'pg';

/**
 * Makes a write race deterministic on PostgreSQL (issue 12 defect 5): another session runs `statements` in an
 * open transaction, `write` starts, and only once the write is waiting on that session's row or index lock (seen
 * in pg_stat_activity, so no sleep decides the order) is the other transaction committed. The write then meets
 * exactly the race a pre-check cannot see: a row deleted after it was checked, a key inserted after it was
 * looked up. `waited` says whether the write did wait (false: it settled first, and met no race).
 */
export async function raceAgainstHeldTransaction<T>(url: string, statements: ReadonlyArray<readonly [string, unknown[]]>, write: () => Promise<T>): Promise<{ result: T; waited: boolean }> {
  const holder = new Client({ connectionString: url });
  const watcher = new Client({ connectionString: url });
  await holder.connect();
  await watcher.connect();
  try {
    await holder.query('BEGIN');
    for (const [sql, params] of statements) await holder.query(sql, params as unknown[]);
    const holderPid = Number((await holder.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    let settled = false;
    const pending = write().finally(() => {
      settled = true;
    });
    let waited = false;
    while (!settled && !(waited = await waitsOn(watcher, holderPid))) await new Promise((r) => setTimeout(r, 5));
    await holder.query('COMMIT');
    return { result: await pending, waited };
  } finally {
    await holder.end();
    await watcher.end();
  }
}

/** Is some session of this database waiting for a lock the holder owns? */
async function waitsOn(watcher: Client, holderPid: number): Promise<boolean> {
  const r = await watcher.query('SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid))', [holderPid]);
  return Number(r.rows[0].n) > 0;
}
