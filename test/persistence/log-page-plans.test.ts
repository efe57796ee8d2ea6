/**
 * The logs an admin pages through (the call log, the audit log, the tool changes) grow without end: every call adds a
 * row. Their reads run on the serving process's event loop (SQLite answers synchronously), so each must be answered
 * from an index that gives its order, never by reading and sorting every matching row: at 300,000 calls a tenant
 * admin's first page of calls took 187-195 ms, an outcome's 339 ms and the abandoned-call sweep (every 5 minutes)
 * 97-108 ms, every other caller of the process waiting meanwhile (measured before the fix, SQLite, Node 20; at most
 * 0.2 ms each after). The sweep looks only at running calls.
 *
 * Each case runs the service's own query (captured as it is sent) through the database's planner: EXPLAIN QUERY PLAN
 * on SQLite, EXPLAIN with sequential scans discouraged on PostgreSQL (an empty table otherwise always plans a scan).
 */
import { expect } from 'chai';
import type { DataSource, EntitySubscriberInterface, QueryRunner } from 'typeorm';
import { AuditQueryService } from '../../src/audit/audit-query.service';
import { CatalogError } from '../../src/catalog/catalog.errors';
import type { Principal } from '../../src/catalog/principal';
import { MAX_LOG_OFFSET } from '../../src/persistence/log-page';
import { ToolCallStore } from '../../src/persistence/tool-call.store';
import { createLogger } from '../../src/shared/logger';
import { SourceAdminService } from '../../src/sources/source-admin.service';
import { forEachDatabase, openMigrated } from '../helpers/databases';

const hostAdmin: Principal = { id: 'h', kind: 'api-key', tenantId: 'host', tenantName: 'host', name: 'root', role: 'host-admin', groups: [] };
const tenantAdmin: Principal = { id: 't', kind: 'api-key', tenantId: '4b0c7a9e-0000-4000-8000-000000000001', tenantName: 'acme', name: 'ops', role: 'tenant-admin', groups: [] };

forEachDatabase('admin log pages are read from an index in their order (containment)', (database) => {
  let ds: DataSource;
  let close: () => Promise<void>;
  let calls: ToolCallStore;
  let audit: AuditQueryService;
  let sources: SourceAdminService;
  const sent: Array<{ query: string; parameters: unknown[] }> = [];
  const capture: EntitySubscriberInterface = { beforeQuery: (e) => void sent.push({ query: e.query, parameters: Array.isArray(e.parameters) ? [...(e.parameters as unknown[])] : [] }) };

  before(async function () {
    this.timeout(60_000);
    ({ ds, close } = await openMigrated(database));
    calls = new ToolCallStore(ds);
    audit = new AuditQueryService(ds);
    sources = new SourceAdminService(ds, createLogger('silent'));
    ds.subscribers.push(capture);
  });
  after(() => close?.());

  /** The one statement `run` sends (the log reads are one statement each). */
  async function statementOf(run: () => Promise<unknown>): Promise<{ query: string; parameters: unknown[] }> {
    sent.length = 0;
    await run();
    const ours = sent.filter((s) => /\b(tool_call|audit_log|tool_change)\b/.test(s.query));
    expect(ours, JSON.stringify(sent)).to.have.length(1);
    return ours[0];
  }

  /** `forced`: on PostgreSQL, sequential scans and sorts discouraged (an ordered index path exists at all). */
  async function planOf(s: { query: string; parameters: unknown[] }, forced = true): Promise<string> {
    if (database.name === 'sqlite') {
      const rows = (await ds.query(`EXPLAIN QUERY PLAN ${s.query}`, s.parameters)) as Array<{ detail: string }>;
      return rows.map((r) => r.detail).join('\n');
    }
    const qr: QueryRunner = ds.createQueryRunner();
    try {
      await qr.startTransaction();
      if (forced) {
        await qr.query('SET LOCAL enable_seqscan = off');
        await qr.query('SET LOCAL enable_sort = off');
      }
      const rows = (await qr.query(`EXPLAIN ${s.query}`, s.parameters)) as Array<{ 'QUERY PLAN': string }>;
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await qr.rollbackTransaction();
      await qr.release();
    }
  }

  /** Read from `index` in the order asked: no sort of all the matching rows (a tie-break sort within one key is fine). */
  async function expectIndexed(run: () => Promise<unknown>, index: RegExp, forced = true): Promise<void> {
    const plan = await planOf(await statementOf(run), forced);
    expect(plan, plan).to.match(index);
    if (database.name === 'sqlite') {
      expect(plan, plan).not.to.match(/USE TEMP B-TREE FOR ORDER BY/);
      // A scan of the whole table names it by TypeORM's alias (SCAN ToolCallEntity): any bare SCAN.
      expect(plan, plan).not.to.match(/^SCAN \S+$/m);
    } else {
      // A Sort node (not an Incremental Sort, which orders only the rows of one key, ties of a timestamp, as they
      // stream from the index), and no sequential scan.
      expect(plan, plan).not.to.match(/^\s*(->\s+)?Sort  \(|Seq Scan/m);
    }
  }

  const page = { first: 20, offset: 0 };
  /**
   * A pair of filters: SQLite has no statistics (nothing runs ANALYZE), so it must find the pair's own index; on an
   * empty PostgreSQL table every ordered path costs the same and the planner's pick among them is arbitrary.
   */
  const pair = (own: string, alternatives: string) => (database.name === 'sqlite' ? new RegExp(own) : new RegExp(`${own}|${alternatives}`));

  it('the call log: by tenant, tool, outcome and their pairs, every call', async () => {
    await expectIndexed(() => calls.page({ tenantId: tenantAdmin.tenantId, ...page }), /idx_tool_call_tenant_started/);
    await expectIndexed(() => calls.page({ tenantId: null, toolId: 'mcp.a.echo', ...page }), /idx_tool_call_tool_started/);
    await expectIndexed(() => calls.page({ tenantId: tenantAdmin.tenantId, toolId: 'mcp.a.echo', ...page }), pair('idx_tool_call_tenant_tool_started', 'idx_tool_call_(tenant|tool)_started'));
    await expectIndexed(() => calls.page({ tenantId: tenantAdmin.tenantId, outcome: 'failed', ...page }), pair('idx_tool_call_tenant_outcome_started', 'idx_tool_call_(tenant|outcome)_started'));
    await expectIndexed(() => calls.page({ tenantId: null, ...page }), /idx_tool_call_started/);
    await expectIndexed(() => calls.page({ tenantId: null, outcome: 'failed', ...page }), /idx_tool_call_outcome_started/);
  });

  it('with rows in the log (a large tenant and a small one, statistics on PostgreSQL), the pairs still read their own index', async function () {
    this.timeout(60_000);
    const big = '4b0c7a9e-0000-4000-8000-00000000000b';
    const pg = database.name === 'postgres';
    const columns = ['call_id', 'scope', 'tenant_id', 'principal_id', 'principal_kind', 'tool_id', 'safety_tier', 'replay_policy', 'egress', 'request_hash', 'status', 'outcome', 'argument_bytes', 'started_at'];
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const rows: unknown[][] = [];
    for (let i = 0; i < 6000; i++) {
      const small = i % 100 === 0;
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      rows.push([id, 's'.repeat(64), small ? tenantAdmin.tenantId : big, 'p', 'api-key', small ? 'mcp.a.echo' : `mcp.a.tool${i % 5}`, 'read', 'idempotent', 'none', 'h'.repeat(64), 'completed', i % 50 === 1 ? 'failed' : 'ok', 2, new Date(t0 + i * 10).toISOString()]);
    }
    for (let at = 0; at < rows.length; at += 500) {
      const chunk = rows.slice(at, at + 500);
      const values = chunk.map((_, r) => `(${columns.map((__, c) => (pg ? `$${r * columns.length + c + 1}` : '?')).join(', ')})`).join(', ');
      await ds.query(`INSERT INTO tool_call (${columns.join(', ')}) VALUES ${values}`, chunk.flat());
    }
    if (pg) await ds.query('ANALYZE tool_call');
    const real = false; // the planner's own choice, with the statistics it has
    // Nearly all of the small tenant's calls are 'ok': with statistics, PostgreSQL may as well walk the tenant's own
    // rows (bounded by them); SQLite, without, must not walk every tenant's 'ok' calls (idx_tool_call_outcome_started).
    await expectIndexed(() => calls.page({ tenantId: tenantAdmin.tenantId, outcome: 'ok', ...page }), pair('idx_tool_call_tenant_outcome_started', 'idx_tool_call_tenant_started'), real);
    await expectIndexed(() => calls.page({ tenantId: big, toolId: 'mcp.a.echo', ...page }), /idx_tool_call_tenant_tool_started/, real);
    await expectIndexed(() => calls.page({ tenantId: tenantAdmin.tenantId, toolId: 'mcp.a.tool3', ...page }), /idx_tool_call_tenant_tool_started/, real);
    // The large tenant holds 99% of the calls: PostgreSQL may walk them all newest first as well.
    await expectIndexed(() => calls.page({ tenantId: big, ...page }), pair('idx_tool_call_tenant_started', 'idx_tool_call_started'), real);
    await expectIndexed(() => calls.page({ tenantId: null, outcome: 'failed', ...page }), /idx_tool_call_outcome_started/, real);
    await expectIndexed(() => calls.page({ tenantId: null, toolId: 'mcp.a.echo', ...page }), /idx_tool_call_tool_started/, real);
    // And they answer what the filters say, newest first.
    const mine = await calls.page({ tenantId: tenantAdmin.tenantId, outcome: 'ok', first: 3, offset: 0 });
    expect(mine.map((r) => [r.tenantId, r.outcome, r.startedAt])).to.deep.equal([5900, 5800, 5700].map((i) => [tenantAdmin.tenantId, 'ok', new Date(t0 + i * 10).toISOString()]));
    await ds.query('DELETE FROM tool_call');
  });

  it('the abandoned-call sweep reads the running calls only', async () => {
    await expectIndexed(() => calls.closeAbandoned(new Date().toISOString(), new Date().toISOString(), '{}'), /idx_tool_call_running/);
  });

  it("the audit log: a tenant admin's rows, a host admin's, by action, by target", async () => {
    await expectIndexed(() => audit.list(tenantAdmin, page), /idx_audit_tenant_at/);
    await expectIndexed(() => audit.list(hostAdmin, page), /idx_audit_at/);
    await expectIndexed(() => audit.list(hostAdmin, { action: 'grant.create', ...page }), /idx_audit_action_at/);
    await expectIndexed(() => audit.list(hostAdmin, { targetId: 'some-id', ...page }), /idx_audit_target_at/);
    await expectIndexed(() => audit.list(tenantAdmin, { targetId: 'some-id', ...page }), /idx_audit_(target|tenant)_at/);
    await expectIndexed(() => audit.list(tenantAdmin, { action: 'grant.create', ...page }), pair('idx_audit_tenant_action_at', 'idx_audit_(tenant|action)_at'));
  });

  it('an audited target id of any length is written (the index row stays bounded) and found again by the same id', async () => {
    // Words of random letters (seeded): PostgreSQL compresses a repetitive value below its index row bound, not these.
    let s = 20261204;
    const letter = () => 'abcdefghijklmnopqrstuvwxyz'[(s = (s * 1103515245 + 12345) % 2147483648) % 26];
    const words = Array.from({ length: 900 }, () => Array.from({ length: 5 }, letter).join('')).join('-');
    for (const id of [words, `${'é'.repeat(3000)}x`, `${'a'.repeat(447)}😀${'b'.repeat(100)}`]) {
      await audit.record({ targetType: 'tool', targetId: id, tenantId: null, after: { note: 'long id' } });
      const rows = await audit.list(hostAdmin, { targetId: id, first: 5, offset: 0 });
      expect(rows).to.have.length(1);
      expect(rows[0].targetId.length).to.be.at.most(512);
      expect(rows[0].targetId.startsWith(id.slice(0, 400))).to.equal(true);
    }
    const short = 'mcp.everything.echo';
    await audit.record({ targetType: 'tool', targetId: short, tenantId: null });
    expect((await audit.list(hostAdmin, { targetId: short, first: 5, offset: 0 })).map((r) => r.targetId)).to.deep.equal([short]);
  });

  it("the tool changes: one source's, one tool's, every source's", async () => {
    await expectIndexed(() => sources.changes(hostAdmin, { sourceName: 'everything', ...page }), /idx_tool_change_source_at/);
    await expectIndexed(() => sources.changes(hostAdmin, { toolId: 'mcp.everything.echo', ...page }), /idx_tool_change_tool_at/);
    await expectIndexed(() => sources.changes(hostAdmin, page), /idx_tool_change_at/);
  });

  it(`refuses an offset past ${MAX_LOG_OFFSET} with BAD_USER_INPUT (each skipped row is read), and pages up to it`, async () => {
    const past = { first: 20, offset: MAX_LOG_OFFSET + 1 };
    for (const read of [() => calls.page({ tenantId: null, ...past }), () => audit.list(hostAdmin, past), () => sources.changes(hostAdmin, past)]) {
      const err = await read().then(() => null, (e: unknown) => e);
      expect(err).to.be.instanceOf(CatalogError);
      expect((err as CatalogError).code).to.equal('BAD_USER_INPUT');
      expect((err as CatalogError).message).to.match(/offset/);
      expect((err as CatalogError).opts.details).to.deep.equal({ reason: 'offset_out_of_range', maxOffset: MAX_LOG_OFFSET });
    }
    const last = { first: 20, offset: MAX_LOG_OFFSET };
    expect(await calls.page({ tenantId: null, ...last })).to.deep.equal([]);
    expect(await audit.list(hostAdmin, last)).to.deep.equal([]);
    expect(await sources.changes(hostAdmin, last)).to.deep.equal([]);
  });
});
