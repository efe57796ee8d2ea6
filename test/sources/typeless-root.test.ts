/**
 * Issue 11, defect 8: an MCP inputSchema of just `{"$schema": "…draft-07…"}` was served unchanged with no note,
 * although MCP requires `"type": "object"` at the root and the SDK's client rejects such a tool. Pins: a typeless
 * root is served as an object schema in both views, the SDK's own Tool schema accepts what is served, admins read
 * the repair (adminTool.ingestNotes); a root typed as a non-object is quarantined with the reason; host extensions
 * pass the same gate.
 */
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';
import { expectCompactDescriptor, expectStandardDescriptor } from '../helpers/schema-assert';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const DRAFT7 = 'http://json-schema.org/draft-07/schema#';

forEachDatabase('issue 11 defect 8: a typeless upstream root', (database) => {
  const suite = hostPerSuite(database, { startSources: false });

  it('is served as an object schema in both views, accepted by the SDK, with the repair shown to admins', async () => {
    const host = suite.host;
    const t = await aTenantWithKey(host, 'typeless');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
    await aSimulatedSource(host, 'loose');
    const out = await applyListing(host, 'loose', [
      { name: 'bare', description: 'A root with only a dialect', inputSchema: { $schema: DRAFT7 } },
      { name: 'nullable', description: 'A root that allows null', inputSchema: { type: ['object', 'null'], properties: { a: { type: 'string' } } } },
      { name: 'stringy', description: 'A root that is a string', inputSchema: { type: 'string' } },
    ]);
    expect(out.quarantined).to.equal(1);
    for (const [id, want] of [['mcp.loose.bare', { $schema: DRAFT7, type: 'object' }], ['mcp.loose.nullable', { type: 'object', properties: { a: { type: 'string' } } }]] as const) {
      const standard = await host.get(`/tools/${id}`, t.key);
      expect(standard.status).to.equal(200);
      expectStandardDescriptor(standard.json());
      const d = standard.json() as { name: string; inputSchema: Record<string, unknown> };
      expect(d.inputSchema).to.deep.equal(want);
      // The SDK's client parses tools/list results with this schema; the old answer failed it.
      expect(ToolSchema.safeParse({ name: d.name, inputSchema: d.inputSchema }).success, `${id} passes the SDK's Tool schema`).to.equal(true);
      const compact = await host.get(`/tools/${id}?view=compact`, t.key);
      expectCompactDescriptor(compact.json());
      expect((compact.json() as { inputSchema: { type: string } }).inputSchema.type).to.equal('object');
      const admin = await host.gqlOk<{ adminTool: { ingestNotes: Array<{ path: string; rule: string; text: string }> } }>('query($id: String!) { adminTool(toolId: $id) { ingestNotes { path rule text } } }', { id });
      expect(admin.adminTool.ingestNotes).to.have.length(1);
      expect(admin.adminTool.ingestNotes[0].text).to.include('MCP requires "type": "object"');
    }
    const up = await host.gqlOk<{ upstreamTools: Array<{ name: string; quarantineReason: string | null }> }>('{ upstreamTools(source: "loose") { name quarantineReason } }');
    expect(up.upstreamTools.find((u) => u.name === 'stringy')?.quarantineReason).to.match(/must describe an object/);
    expect((await host.get('/tools/mcp.loose.stringy', t.key)).status).to.equal(404);
  });

  it('repairs host extensions the same way, and an ordinary object root carries no note', async () => {
    const host = suite.host;
    await anExtension(host, { name: 'typeless_ext', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { properties: { a: { type: 'string' } } } });
    const q = 'query($id: String!) { adminTool(toolId: $id) { descriptor { inputSchema } ingestNotes { rule } } }';
    const ext = await host.gqlOk<{ adminTool: { descriptor: { inputSchema: unknown }; ingestNotes: Array<{ rule: string }> } }>(q, { id: 'ext.typeless_ext' });
    expect(ext.adminTool.descriptor.inputSchema).to.deep.equal({ properties: { a: { type: 'string' } }, type: 'object' });
    expect(ext.adminTool.ingestNotes.map((n) => n.rule)).to.deep.equal(['root-type-missing']);
    await anExtension(host, { name: 'plain_ext', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    expect((await host.gqlOk<{ adminTool: { ingestNotes: unknown[] } }>(q, { id: 'ext.plain_ext' })).adminTool.ingestNotes).to.deep.equal([]);
  });
});
