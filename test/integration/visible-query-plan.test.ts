/**
 * Issue 6, "nothing may be quadratic": a tenant's list query reads the index ranges its grants can match, not
 * the whole tool table (every catalog change makes each tenant's next list run it). These tests read the
 * database's own plan for the real query, so they fail if the range narrowing is dropped or if PostgreSQL
 * cannot use its byte-order index (a collation mismatch makes an index silently unusable). Results are checked
 * too: the ranges may narrow what is read, never what is visible.
 */
import { expect } from 'chai';
import type { Principal } from '../../src/catalog/principal';
import { ToolRepository } from '../../src/persistence/tool.repository';
import { forEachDatabase } from '../helpers/databases';
import { aGrant, aPrincipal, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

const NAMES = ['alpha', 'alpine', 'beta', 'beta_two', 'gamma', 'delta', 'b', 'ba', 'bz', 'c'];

forEachDatabase('visible-set query plan', (database) => {
  const suite = hostPerSuite(database, {}, async (h) => {
    for (const name of NAMES) await anExtension(h, { name, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });
  const repo = () => new ToolRepository(suite.host.app.dataSource);
  const principal = async (key: string): Promise<Principal> => (await suite.host.app.services.tenancy.authenticate(key))!;

  async function plan(p: Principal): Promise<string> {
    const q = await repo().visibleListQuery(p);
    expect(q, 'a tenant with grants has a query').not.to.equal(null);
    const [sql, params] = q!.getQueryAndParameters();
    const ds = suite.host.app.dataSource;
    if (ds.options.type === 'postgres') {
      // A tiny table is cheaper to scan, so sequential scans are priced out: the plan shows what the index allows.
      return ds.transaction(async (m) => {
        await m.query('SET LOCAL enable_seqscan = off');
        return ((await m.query(`EXPLAIN ${sql}`, params)) as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
      });
    }
    return ((await ds.query(`EXPLAIN QUERY PLAN ${sql}`, params)) as Array<{ detail: string }>).map((r) => r.detail).join('\n');
  }

  it('prefix grants: the tool table is read by key range, not scanned, and the visible set is exact', async () => {
    const t = await aTenantWithKey(suite.host, 'ranged');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.b*' });
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.alp*e' });
    const p = await principal(t.key);
    const text = await plan(p);
    if (suite.host.app.dataSource.options.type === 'postgres') {
      expect(text, text).to.match(/Index (Only )?Scan using idx_tool_id_bytes|Bitmap Index Scan on idx_tool_id_bytes/);
      expect(text, text).not.to.match(/Seq Scan on tool /);
    } else {
      expect(text, text).to.match(/SEARCH t USING (INDEX \S+|PRIMARY KEY) \(tool_id>\? AND tool_id<\?\)/);
      expect(text, text).not.to.match(/SCAN t\b/);
    }
    const ids = (await repo().findVisibleStamps(p)).map((s) => s.toolId).sort();
    expect(ids).to.deep.equal(['ext.alpine', 'ext.b', 'ext.ba', 'ext.beta', 'ext.beta_two', 'ext.bz']);
  });

  it('a grant starting with * reads everything (it can match any id); narrowing grants still apply', async () => {
    const t = await aTenantWithKey(suite.host, 'all');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: '*a' });
    const narrowed = await aPrincipal(suite.host, t.tenantId, 'narrow');
    await aGrant(suite.host, { tenantId: t.tenantId, principalId: narrowed.principalId, toolPattern: 'ext.g*' });
    expect((await repo().findVisibleStamps(await principal(t.key))).map((s) => s.toolId).sort()).to.deep.equal(['ext.alpha', 'ext.ba', 'ext.beta', 'ext.delta', 'ext.gamma']);
    expect((await repo().findVisibleStamps(await principal(narrowed.key))).map((s) => s.toolId)).to.deep.equal(['ext.gamma']);
  });

  it('a tenant without grants runs no tool query at all and sees nothing', async () => {
    const t = await aTenantWithKey(suite.host, 'none');
    const p = await principal(t.key);
    expect(await repo().visibleListQuery(p)).to.equal(null);
    expect(await repo().findVisibleStamps(p)).to.deep.equal([]);
  });
});
