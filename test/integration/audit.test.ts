/**
 * The audit log (issue 5): every mutation in the schema writes a row (who, when, what, before, after, request
 * id) in the same transaction as its change. A mutation added to the schema without an entry below fails
 * the first test; one that does not audit fails the second.
 */
import { expect } from 'chai';
import { HOSTILE_BIN } from '../helpers/mcp-servers';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

type Ctx = { host: TestHost; ids: Record<string, string> };
/** One successful invocation per mutation: [query, variables(ctx)]. */
const INVOCATIONS: Record<string, (c: Ctx) => [string, Record<string, unknown>]> = {
  createTenant: () => ['mutation { createTenant(name: "audited") { id } }', {}],
  createPrincipal: (c) => ['mutation($t: ID!) { createPrincipal(input: { tenantId: $t, name: "p1" }) { principal { id } } }', { t: c.ids.tenant }],
  revokePrincipal: (c) => ['mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id: c.ids.principal }],
  createGrant: (c) => ['mutation($t: ID!) { createGrant(input: { tenantId: $t, toolPattern: "ext.*" }) { id } }', { t: c.ids.tenant }],
  deleteGrant: (c) => ['mutation($id: ID!) { deleteGrant(id: $id) }', { id: c.ids.grant }],
  setTenantCeiling: (c) => ['mutation($t: ID!) { setTenantCeiling(tenantId: $t, entries: [{ toolPattern: "*", maxSafetyTier: "write" }]) { toolPattern } }', { t: c.ids.tenant }],
  upsertHostExtension: () => ['mutation { upsertHostExtension(input: { name: "aud", inputSchema: { type: "object" }, safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }', {}],
  classifyTool: () => ['mutation { classifyTool(input: { toolId: "ext.aud", safetyTier: "pure", replayPolicy: "deterministic", egress: "none" }) { toolId } }', {}],
  approveTool: () => ['mutation { approveTool(toolId: "mcp.audsrc.t") }', {}],
  unclassifyTool: () => ['mutation { unclassifyTool(toolId: "mcp.audsrc.t") { toolId } }', {}],
  deleteHostExtension: () => ['mutation { deleteHostExtension(toolId: "ext.aud") }', {}],
  registerSource: () => [`mutation($a: [String!]) { registerSource(input: { name: "audreg", transport: "stdio", command: ${JSON.stringify(process.execPath)}, args: $a, syncIntervalSeconds: 0, env: [{ name: "SECRET_X", value: "do-not-log-me-1234" }] }) { name } }`, { a: [HOSTILE_BIN] }],
  updateSource: () => ['mutation { updateSource(input: { name: "audreg", transport: "stdio", command: "node", syncIntervalSeconds: 0, driftPolicy: "keep-serving" }) { name } }', {}],
  revealUpstreamTool: () => ['mutation { revealUpstreamTool(source: "audsrc", name: "t") { name raw } }', {}],
  syncSource: () => ['mutation { syncSource(name: "audsrc") { status } }', {}],
  removeSource: () => ['mutation { removeSource(name: "audreg") }', {}],
  deleteTenant: (c) => ['mutation($id: ID!) { deleteTenant(id: $id) }', { id: c.ids.tenant }],
};
const ORDER = Object.keys(INVOCATIONS);


forEachDatabase('audit log', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  const ctx = { ids: {} } as Ctx;
  before(async function () {
    this.timeout(30000);
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db);
    ctx.host = host;
    await aSimulatedSource(host, 'audsrc');
    await applyListing(host, 'audsrc', [{ name: 't', inputSchema: { type: 'object' } }]);
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.audsrc.t", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  it('every mutation of the schema has an audited invocation here', async () => {
    const introspection = await host.gqlOk<{ __schema: { mutationType: { fields: Array<{ name: string }> } } }>('{ __schema { mutationType { fields { name } } } }');
    const mutations = introspection.__schema.mutationType.fields.map((f) => f.name).sort();
    expect(mutations, 'add each new mutation to INVOCATIONS in test/integration/audit.test.ts').to.deep.equal([...ORDER].sort());
  });

  it('each mutation writes one row with actor, request id, action, target, before/after; secrets never appear', async function () {
    this.timeout(30000);
    const me = await host.gqlOk<{ me: { principalId: string } }>('{ me { principalId } }');
    for (const name of ORDER) {
      const [query, variables] = INVOCATIONS[name](ctx);
      const requestId = `audit-${name}`;
      const res = await fetch(`${host.url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${host.adminKey}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
      expect(body.errors, `${name}: ${JSON.stringify(body.errors)}`).to.equal(undefined);
      if (name === 'createTenant') ctx.ids.tenant = (body.data!.createTenant as { id: string }).id;
      if (name === 'createPrincipal') ctx.ids.principal = (body.data!.createPrincipal as { principal: { id: string } }).principal.id;
      if (name === 'createGrant') ctx.ids.grant = (body.data!.createGrant as { id: string }).id;
      const rows = await host.gqlOk<{ auditLog: Array<{ requestId: string; actorId: string; actorRole: string; targetType: string; before: unknown; after: unknown }> }>(
        'query($a: String) { auditLog(action: $a, first: 5) { requestId actorId actorRole targetType before after } }',
        { a: name },
      );
      const row = rows.auditLog.find((r) => r.requestId === requestId);
      expect(row, `${name} wrote no audit row`).to.not.equal(undefined);
      expect(row).to.include({ actorId: me.me.principalId, actorRole: 'host-admin' });
      expect(row!.before !== null || row!.after !== null, `${name} records neither before nor after`).to.equal(true);
    }
    const all = JSON.stringify(await host.gqlOk('{ auditLog(first: 500) { before after } }'));
    expect(all).not.to.include('do-not-log-me-1234');
    expect(all).not.to.match(/"keyHash"|key_hash/);
    expect(host.logs.join('')).not.to.include('mutation completed without an audit row');
  });

  it('a failed mutation leaves no audit row (same transaction)', async () => {
    const before = (await host.gqlOk<{ auditLog: unknown[] }>('{ auditLog(action: "createGrant", first: 500) { id } }')).auditLog.length;
    const r = await host.gql('mutation { createGrant(input: { tenantId: "00000000-0000-0000-0000-000000000000", toolPattern: "*" }) { id } }');
    expect(r.errors?.[0].extensions?.code).to.equal('NOT_FOUND');
    const r2 = await host.gql('mutation { classifyTool(input: { toolId: "mcp.audsrc.t", safetyTier: "exec", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
    expect(r2.errors?.[0].extensions?.code).to.equal('BAD_USER_INPUT');
    const after = (await host.gqlOk<{ auditLog: unknown[] }>('{ auditLog(action: "createGrant", first: 500) { id } }')).auditLog.length;
    expect(after).to.equal(before);
    const cls = await host.gqlOk<{ auditLog: Array<{ after: { safetyTier?: string } | null }> }>('{ auditLog(action: "classifyTool", targetId: "mcp.audsrc.t", first: 50) { after } }');
    expect(cls.auditLog.map((x) => x.after?.safetyTier)).not.to.include('exec');
  });

  it('tenant admins read only their tenant\'s rows; agents cannot read the log; paging works', async () => {
    const ta = await aTenantWithKey(host, 'audit-ta', 'tenant-admin');
    await host.gqlOk('mutation($t: ID!) { createGrant(input: { tenantId: $t, toolPattern: "ext.x" }) { id } }', { t: ta.tenantId }, ta.key);
    await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'ext.y' });
    const mine = await host.gqlOk<{ auditLog: Array<{ tenantId: string | null }> }>('{ auditLog(first: 500) { tenantId } }', {}, ta.key);
    expect(mine.auditLog.length).to.be.greaterThan(1);
    for (const r of mine.auditLog) expect(r.tenantId).to.equal(ta.tenantId);
    const agent = await aTenantWithKey(host, 'audit-agent');
    // Agents are served the catalog schema only: the log is not a field they can name (issue 11, defect 4).
    expect((await host.gql('{ auditLog { id } }', {}, agent.key)).errors?.[0].extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    const page1 = await host.gqlOk<{ auditLog: Array<{ id: string }> }>('{ auditLog(first: 3) { id } }');
    const page2 = await host.gqlOk<{ auditLog: Array<{ id: string }> }>('{ auditLog(first: 3, offset: 3) { id } }');
    expect(page1.auditLog).to.have.length(3);
    expect(page2.auditLog.map((r) => r.id)).to.not.include.members(page1.auditLog.map((r) => r.id));
  });
});
