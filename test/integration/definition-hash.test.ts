/**
 * Issue 13, "one definition hash": ingest's contentHash (host extensions' approvals) and the snapshots'
 * definitionHash (MCP tools' approvals, drift review) hashed different inputs. Now one function with one meaning
 * (src/catalog/definition-hash.ts). Pins: an MCP tool and a host extension with the same definition get the same
 * hash, on every path that computes one; the MCP value is the one stored before issue 13, so a stored approval
 * survives; rows derived by gate version 2 (whose contentHash hashed the gate's output) are derived again at start,
 * and an extension's recorded decision moves with its hash.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { definitionHash } from '../../src/catalog/definition-hash';
import { INGEST_GATE_VERSION, gateTool, prepareTool } from '../../src/catalog/ingest';
import { buildSnapshot, examineText, rawTextOf } from '../../src/sources/snapshot';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const DEFINITION = {
  title: 'Look up',
  description: 'Looks one word up.',
  inputSchema: { type: 'object', properties: { word: { type: 'string', maxLength: 64 } }, required: ['word'] },
  outputSchema: { type: 'object', properties: { meaning: { type: 'string' } } },
};
const LISTED = { name: 'lookup', ...DEFINITION, annotations: { readOnlyHint: true } };
const DECISION = { safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' };

/** The hash the MCP snapshot stored before issue 13 (src/sources/snapshot.ts at gate version 2), written out. */
function preIssue13DefinitionHash(t: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify([t.title ?? null, t.description ?? null, t.inputSchema ?? null, t.outputSchema ?? null])).digest('hex');
}

/** What ingest's contentHash was before issue 13: a hash of the gate's output, name included. */
function preIssue13ContentHash(r: { name: string; title: string | null; description: string; input: string; output: string | null }): string {
  return createHash('sha256').update(JSON.stringify([r.name, r.title, r.description, r.input, r.output])).digest('hex');
}

describe('issue 13: one definition hash', () => {
  it('an MCP tool and a host extension with the same definition get the same hash, on every path that computes one', () => {
    const expected = definitionHash(DEFINITION);
    const listed = buildSnapshot('docs', null, [LISTED])[0];
    expect(listed.quarantineReason).to.equal(null);
    expect(listed.definitionHash, 'snapshot (stored in upstream_tool, compared by drift review)').to.equal(expected);
    expect(listed.gated!.unclassified.contentHash, 'the gated MCP tool (stored in tool.content_hash)').to.equal(expected);
    expect(examineText('docs', null, rawTextOf(LISTED), 0).definitionHash, 'the ingest workers').to.equal(expected);
    const extension = prepareTool({ source: 'host-extension', origin: 'graphql', toolId: 'ext.lookup', name: 'lookup', ...DEFINITION }, DECISION as never);
    expect(extension.record.contentHash, 'a host extension (its approval)').to.equal(expected);
    expect(gateTool({ source: 'mcp', origin: 'other', toolId: 'mcp.other.lookup_v2', name: 'lookup_v2', ...DEFINITION }).unclassified.contentHash, 'not the name, origin or toolId').to.equal(expected);
  });

  it('the MCP value is the one stored before issue 13 (stored approvals stand), and only the definition moves it', () => {
    expect(definitionHash(DEFINITION)).to.equal(preIssue13DefinitionHash(LISTED));
    expect(definitionHash({ inputSchema: { type: 'object' } })).to.equal(preIssue13DefinitionHash({ name: 'x', inputSchema: { type: 'object' } }));
    expect(definitionHash({ ...DEFINITION, description: 'Looks one word up. Also deletes it.' })).to.not.equal(definitionHash(DEFINITION));
    expect(definitionHash({ ...DEFINITION, outputSchema: undefined })).to.equal(definitionHash({ ...DEFINITION, outputSchema: null }));
  });
});

forEachDatabase('issue 13: one definition hash, stored', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let db: Parameters<typeof startHost>[0];
  let agent: { tenantId: string; principalId: string; key: string };
  let adminKey: string;
  const expected = definitionHash(DEFINITION);

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    db = created.db;
    host = await startHost(db, { startSources: false });
    adminKey = host.adminKey; // kept across the restart below (a restarted host is not bootstrapped again)
    agent = await aTenantWithKey(host, 'reader');
    await aGrant(host, { tenantId: agent.tenantId, toolPattern: '*' });
    await aSimulatedSource(host, 'docs');
    await applyListing(host, 'docs', [LISTED]);
    await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', { i: { name: 'lookup', ...DEFINITION, ...DECISION } });
    await host.gqlOk('mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }', { i: { toolId: 'mcp.docs.lookup', ...DECISION } });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  async function stored(): Promise<Record<string, { content: string; approved: string | null; definition: string | null }>> {
    const rows = (await host.app.dataSource.query(
      'SELECT t.tool_id, t.content_hash, t.definition_hash, c.approved_hash FROM tool t LEFT JOIN tool_classification c ON c.tool_id = t.tool_id ORDER BY t.tool_id',
    )) as Array<Record<string, string | null>>;
    return Object.fromEntries(rows.map((r) => [String(r.tool_id), { content: String(r.content_hash), approved: r.approved_hash, definition: r.definition_hash }]));
  }

  async function bothServedAsDecided(): Promise<void> {
    for (const id of ['mcp.docs.lookup', 'ext.lookup']) {
      const r = await host.get(`/tools/${id}`, agent.key);
      expect(r.status, `${id}: ${r.text}`).to.equal(200);
      expect(r.json(), id).to.include(DECISION);
    }
    const review = await host.gqlOk<{ upstreamTools: Array<{ name: string; reviewState: string; definitionHash: string }> }>('{ upstreamTools(source: "docs") { name reviewState definitionHash } }', {}, adminKey);
    expect(review.upstreamTools).to.deep.equal([{ name: 'lookup', reviewState: 'none', definitionHash: expected }]);
  }

  it('an MCP tool and a host extension with the same definition store and show the same hash, and both approvals hold it', async () => {
    const admin = await host.gqlOk<{ adminTools: Array<{ toolId: string; contentHash: string }> }>('{ adminTools { toolId contentHash } }');
    expect(admin.adminTools.map((t) => [t.toolId, t.contentHash]).sort()).to.deep.equal([['ext.lookup', expected], ['mcp.docs.lookup', expected]]);
    expect(await stored()).to.deep.equal({
      'ext.lookup': { content: expected, approved: expected, definition: null },
      'mcp.docs.lookup': { content: expected, approved: expected, definition: expected },
    });
    await bothServedAsDecided();
  });

  it('the approval survives a re-sync of the same listing', async () => {
    await applyListing(host, 'docs', [LISTED]);
    await bothServedAsDecided();
    expect((await stored())['mcp.docs.lookup'].approved).to.equal(expected);
  });

  it('rows of gate version 2 (contentHash of the gate output) are derived again at start; both approvals survive', async function () {
    this.timeout(60_000);
    const ext = (await host.app.dataSource.query(`SELECT name, title, description, input_schema, output_schema FROM tool WHERE tool_id = 'ext.lookup'`)) as Array<Record<string, string | null>>;
    const old = preIssue13ContentHash({ name: String(ext[0].name), title: ext[0].title, description: String(ext[0].description), input: String(ext[0].input_schema), output: ext[0].output_schema });
    expect(old).to.not.equal(expected);
    // What a gate-2 catalog holds: the extension's hash and approval are the old content hash; the MCP tool's
    // approval is the definition hash, as ever, and its content_hash the old content hash.
    const mcpOld = preIssue13ContentHash({ name: 'lookup', title: DEFINITION.title, description: DEFINITION.description, input: JSON.stringify(DEFINITION.inputSchema), output: JSON.stringify(DEFINITION.outputSchema) });
    await host.app.dataSource.query(`UPDATE tool SET gate_version = '2', content_hash = '${old}' WHERE tool_id = 'ext.lookup'`);
    await host.app.dataSource.query(`UPDATE tool_classification SET approved_hash = '${old}' WHERE tool_id = 'ext.lookup'`);
    await host.app.dataSource.query(`UPDATE tool SET gate_version = '2', content_hash = '${mcpOld}' WHERE tool_id = 'mcp.docs.lookup'`);
    await host.close();
    host = await startHost(db, { startSources: false }, false);
    expect(host.logs.join('')).to.include('served rows derived again').and.to.include('"tools":2');
    expect(await stored()).to.deep.equal({
      'ext.lookup': { content: expected, approved: expected, definition: null },
      'mcp.docs.lookup': { content: expected, approved: expected, definition: expected },
    });
    const gates = (await host.app.dataSource.query('SELECT DISTINCT gate_version FROM tool')) as Array<{ gate_version: string }>;
    expect(gates.map((g) => g.gate_version)).to.deep.equal([INGEST_GATE_VERSION]);
    await bothServedAsDecided();
  });
});
