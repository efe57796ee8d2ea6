/**
 * Issue 11, defect 5: REST read through the response cache while GraphQL `tools`, `tool` and `previewTools` read
 * SQL, serialised and re-parsed, so the two could differ; and the stored served_hash was derived from the
 * serializer's code, so a serializer change without a recompute made every REST read answer 500 while GraphQL
 * answered 200. Pins: GraphQL reads are the parsed bytes of the REST answers (both views, list and one tool, and
 * the admin preview); a row's stored stamp is only ever compared with itself, so a stamp that no longer matches
 * what the running code would compute changes nothing; served rows of another gate or compactor version are
 * derived again at start.
 */
import { expect } from 'chai';
import { INGEST_GATE_VERSION } from '../../src/catalog/ingest';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const FRAG = '... on ToolDescriptor { toolId name title description source safetyTier replayPolicy egress inputSchema outputSchema annotations { readOnlyHint destructiveHint idempotentHint openWorldHint } } ... on CompactToolDescriptor { toolId name description source safetyTier replayPolicy egress inputSchema annotations { readOnlyHint destructiveHint idempotentHint openWorldHint } }';
/** GraphQL gives nullable fields as null; the REST body leaves them out. */
const restShape = (d: Record<string, unknown>) => Object.fromEntries(Object.entries(d).filter(([, v]) => v !== null));

forEachDatabase('issue 11 defect 5: one read path for REST and GraphQL', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let db: Parameters<typeof startHost>[0];
  let agent: { tenantId: string; principalId: string; key: string };

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    db = created.db;
    host = await startHost(db, { startSources: false });
    agent = await aTenantWithKey(host, 'reader');
    await anExtension(host, { name: 'calc', title: 'Calculator', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object', properties: { x: { anyOf: [{ type: 'string' }, { type: 'number' }] } } } });
    await anExtension(host, { name: 'fetch', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'open' });
    await aSimulatedSource(host, 'docs');
    await applyListing(host, 'docs', [{ name: 'search', description: 'Search docs', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, outputSchema: { type: 'object' } }]);
    await aGrant(host, { tenantId: agent.tenantId, toolPattern: '*' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  async function graphqlAndRestAgree(): Promise<void> {
    for (const view of ['standard', 'compact'] as const) {
      const rest = await host.get(`/tools?view=${view}`, agent.key);
      expect(rest.status, rest.text).to.equal(200);
      const restList = (view === 'compact' ? (rest.json() as { tools: unknown[] }).tools : rest.json()) as Array<Record<string, unknown>>;
      const g = await host.gqlOk<{ tools: { tools: Array<Record<string, unknown>> } }>(`query($v: String) { tools(view: $v) { tools { ${FRAG} } } }`, { v: view }, agent.key);
      expect(g.tools.tools.map(restShape), `GraphQL tools, ${view}`).to.deep.equal(restList);
      const p = await host.gqlOk<{ previewTools: { tools: Array<Record<string, unknown>> } }>(`query($p: ID!, $v: String) { previewTools(principalId: $p, view: $v) { tools { ${FRAG} } } }`, { p: agent.principalId, v: view });
      expect(p.previewTools.tools.map(restShape), `previewTools, ${view}`).to.deep.equal(restList);
      for (const d of restList) {
        const one = await host.get(`/tools/${d.toolId}?view=${view}`, agent.key);
        expect(one.status).to.equal(200);
        expect(one.json()).to.deep.equal(d);
        const t = await host.gqlOk<{ tool: Record<string, unknown> }>(`query($id: String!, $v: String) { tool(toolId: $id, view: $v) { ${FRAG} } }`, { id: d.toolId, v: view }, agent.key);
        expect(restShape(t.tool)).to.deep.equal(d);
      }
    }
  }

  it('GraphQL tools, tool and previewTools are the parsed bytes of the REST answers, in both views', async () => {
    await graphqlAndRestAgree();
  });

  it('a stored stamp that the running code would not compute (as after a serializer change) breaks no read', async () => {
    const before = await host.get('/tools', agent.key);
    // What an older serializer would have left behind: stamps that are not what this code derives from the rows.
    await host.app.dataSource.query(`UPDATE tool SET row_hash = '${'ab'.repeat(32)}' WHERE tool_id = 'ext.calc'`);
    await host.app.dataSource.query(`UPDATE tool SET row_hash = '${'cd'.repeat(32)}' WHERE tool_id = 'mcp.docs.search'`);
    host.app.generation.advance();
    const after = await host.get('/tools', agent.key);
    expect(after.status, after.text).to.equal(200);
    expect(after.text, 'the bytes come from the running code, not from the stamp').to.equal(before.text);
    expect(after.headers.get('etag'), 'the ETag is a hash of the bytes').to.equal(before.headers.get('etag'));
    expect((await host.get('/tools/ext.calc', agent.key)).status).to.equal(200);
    await graphqlAndRestAgree();
  });

  it('rows made by another gate or compactor version are derived again at start, and only those', async () => {
    const rows = async () => (await host.app.dataSource.query('SELECT tool_id, input_schema, compact_schema, gate_version FROM tool ORDER BY tool_id')) as Array<Record<string, string>>;
    const before = await rows();
    expect(before.every((r) => r.gate_version === INGEST_GATE_VERSION)).to.equal(true);
    const list = (await host.get('/tools?view=compact', agent.key)).text;
    await host.app.dataSource.query(`UPDATE tool SET gate_version = '', compact_schema = '{"type":"object","properties":{}}' WHERE tool_id IN ('ext.calc', 'mcp.docs.search')`);
    await host.close();
    host = await startHost(db, { startSources: false }, false);
    expect(await rows()).to.deep.equal(before);
    expect(host.logs.join('')).to.include('served rows derived again').and.to.include('"tools":2');
    expect((await host.get('/tools?view=compact', agent.key)).text).to.equal(list);
  });
});
