/**
 * The call log's writes (issue 14: "every call is recorded"), on each database: a row begun and finished reads back
 * as written, an Idempotency-Key twin is refused with CONFLICT, and a call-log write can never be lost with somebody
 * else's transaction. On SQLite the process has one connection, so a write issued while another flow's transaction
 * is open on it (an admin mutation between two of its statements) used to run inside that transaction and vanish
 * with its ROLLBACK.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { CatalogError } from '../../src/catalog/catalog.errors';
import { ToolCallStore } from '../../src/persistence/tool-call.store';
import { forEachDatabase, openMigrated } from '../helpers/databases';

forEachDatabase('the call log store (issue 14)', (database) => {
  let ds: DataSource;
  let store: ToolCallStore;
  let close: () => Promise<void>;

  before(async function () {
    this.timeout(60_000);
    ({ ds, close } = await openMigrated(database));
    store = new ToolCallStore(ds);
  });
  after(() => close?.());

  const row = (over: Record<string, unknown> = {}) => ({
    callId: randomUUID(), scope: 's'.repeat(64), tenantId: randomUUID(), principalId: 'p1', principalKind: 'agent', toolId: 'mcp.src.echo',
    safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', idempotencyKey: null as string | null, requestHash: 'h'.repeat(64),
    arguments: null, argumentBytes: 2, attempts: 0, startedAt: new Date().toISOString(), requestId: 'req-1', ...over,
  });
  const done = { outcome: 'ok', answer: '{"result":{}}', resultBytes: 12, attempts: 1, finishedAt: new Date().toISOString(), durationMs: 3 };

  it('records a call as running, then its end, field for field', async () => {
    const r = row({ arguments: '{"a":1}' });
    await store.begin(r);
    const running = await store.mine(r.scope, r.toolId, r.callId);
    expect(running).to.include({ callId: r.callId, status: 'running', outcome: null, answer: null, attempts: 0, argumentBytes: 2, arguments: '{"a":1}', requestId: 'req-1' });
    await store.finish(r.callId, done);
    const finished = await store.mine(r.scope, r.toolId, r.callId);
    expect(finished).to.include({ status: 'completed', outcome: 'ok', answer: '{"result":{}}', resultBytes: 12, attempts: 1, durationMs: 3, finishedAt: done.finishedAt });
  });

  it('refuses a second running call with the same Idempotency-Key (CONFLICT), and frees the key on release', async () => {
    const first = row({ idempotencyKey: 'k-1' });
    await store.begin(first);
    const err = await store.begin(row({ idempotencyKey: 'k-1' })).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(CatalogError);
    expect((err as CatalogError).code).to.equal('CONFLICT');
    await store.finish(first.callId, done, true);
    expect((await store.mine(first.scope, first.toolId, first.callId))?.idempotencyKey).to.equal(null);
    await store.begin(row({ idempotencyKey: 'k-1' }));
  });

  it("is not lost with another flow's transaction that rolls back", async () => {
    const r = row();
    await store.begin(r);
    let inside!: () => void;
    const opened = new Promise<void>((resolve) => (inside = resolve));
    // Another flow's transaction, open across an await (on SQLite: the one shared connection).
    const other = ds.transaction(async (m) => {
      await m.query(ds.options.type === 'postgres' ? 'SELECT 1' : 'SELECT 1');
      inside();
      await new Promise((resolve) => setTimeout(resolve, 30));
      throw new Error('rolled back');
    });
    await opened;
    const began = row();
    const writes = Promise.all([store.finish(r.callId, done), store.begin(began)]);
    await other.catch(() => undefined);
    await writes;
    expect((await store.mine(r.scope, r.toolId, r.callId))?.status).to.equal('completed');
    expect(await store.mine(began.scope, began.toolId, began.callId)).to.not.equal(null);
  });

  it('writes asked for together (SQLite: one group commit) each land, and a twin among them fails alone', async () => {
    const key = `k-${randomUUID()}`;
    const rows = Array.from({ length: 12 }, (_, i) => row({ idempotencyKey: i === 3 || i === 8 ? key : null }));
    // All in one turn of the event loop: on SQLite they share one transaction.
    const outcomes = await Promise.allSettled(rows.map((r) => store.begin(r)));
    const refused = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
    expect(refused).to.have.length(1);
    expect((refused[0].reason as CatalogError).code).to.equal('CONFLICT');
    // Which twin wins is the database's order (on SQLite the first asked; on PostgreSQL a race): exactly one of them.
    const lost = outcomes[3].status === 'rejected' ? 3 : 8;
    expect(outcomes[lost === 3 ? 8 : 3].status).to.equal('fulfilled');
    for (const [i, r] of rows.entries()) {
      const read = await store.mine(r.scope, r.toolId, r.callId);
      if (i === lost) expect(read, 'the refused twin').to.equal(null);
      else expect(read?.status, `row ${i}`).to.equal('running');
    }
    const kept = rows.filter((_, i) => i !== lost);
    await Promise.all(kept.map((r) => store.finish(r.callId, done)));
    for (const r of kept) expect((await store.mine(r.scope, r.toolId, r.callId))?.status).to.equal('completed');
    expect(await store.mine(rows[lost].scope, rows[lost].toolId, rows[lost].callId)).to.equal(null);
  });
});
