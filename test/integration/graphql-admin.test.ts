/**
 * The GraphQL governance plane: function-level authorization per role, tenant scoping of admin reads and
 * writes, API keys shown once and stored hashed, preview equal to the agent's own view.
 */
import { expect } from 'chai';
import { hashApiKey } from '../../src/tenancy/api-key';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

forEachDatabase('GraphQL admin API', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db);
    await anExtension(host, { name: 'calculator', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    await anExtension(host, { name: 'write_file', safetyTier: 'write', replayPolicy: 'idempotent', egress: 'none' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  it('an agent is served the catalog schema only: an admin operation is unknown to it, like a field that does not exist (400)', async () => {
    const agent = await aTenantWithKey(host, 'agents-only');
    for (const m of ['mutation { createTenant(name: "x") { id } }', '{ adminTools { toolId } }', 'mutation { deleteHostExtension(toolId: "ext.calculator") }']) {
      const r = await host.gql(m, {}, agent.key);
      expect([r.status, r.errors?.[0].extensions?.code], m).to.deep.equal([400, 'GRAPHQL_VALIDATION_FAILED']);
      expect(r.data, m).to.equal(null);
    }
    const r = await host.gql(`query($t: ID!) { principals(tenantId: $t) { id } }`, { t: agent.tenantId }, agent.key);
    expect(r.errors?.[0].extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    // An admin without the role still hears FORBIDDEN naming it: admins may read the whole schema.
    const tenantAdmin = await aTenantWithKey(host, 'not-a-host-admin', 'tenant-admin');
    const f = await host.gql('mutation { createTenant(name: "x") { id } }', {}, tenantAdmin.key);
    expect(f.errors?.[0].extensions?.code).to.equal('FORBIDDEN');
    expect(f.errors?.[0].message).to.match(/requires the host-admin/);
  });

  it('no key or a bad key is UNAUTHENTICATED with HTTP 401', async () => {
    for (const key of [null, 'tc_' + 'x'.repeat(43), 'garbage']) {
      const r = await host.gql('{ tools { appliedView } }', {}, key);
      expect(r.status).to.equal(401);
      expect(r.errors?.[0].extensions?.code).to.equal('UNAUTHENTICATED');
    }
  });

  it('the API key is shown once and only its SHA-256 is stored; revoking it stops it at once', async () => {
    const t = await aTenantWithKey(host, 'keys');
    const rows = (await host.app.dataSource.query('SELECT * FROM principal')) as Array<Record<string, unknown>>;
    expect(JSON.stringify(rows)).not.to.include(t.key);
    expect(rows.map((r) => r.key_hash)).to.include(hashApiKey(t.key));
    const listed = await host.gqlOk<{ principals: Array<Record<string, unknown>> }>('query($t: ID!) { principals(tenantId: $t) { id keyPrefix } }', { t: t.tenantId });
    expect(JSON.stringify(listed)).not.to.include(t.key);
    expect((await host.get('/tools', t.key)).status).to.equal(200);
    await host.gqlOk('mutation($id: ID!) { revokePrincipal(id: $id) { revokedAt } }', { id: t.principalId });
    expect((await host.get('/tools', t.key)).status).to.equal(401);
  });

  it('a tenant admin manages only its own tenant: other tenants are not found, not revealed', async () => {
    const mine = await aTenantWithKey(host, 'mine', 'tenant-admin');
    const other = await aTenantWithKey(host, 'other');
    const otherAgent = await aPrincipal(host, other.tenantId, 'other-agent');
    // own tenant: allowed
    const p = await aPrincipal(host, mine.tenantId, 'my-agent', 'agent', mine.key);
    const g = await host.gqlOk<{ createGrant: { id: string } }>('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: mine.tenantId, toolPattern: 'ext.calculator' } }, mine.key);
    expect(g.createGrant.id).to.be.a('string');
    expect((await host.get('/tools', p.key)).json()).to.have.length(1);
    // other tenant: NOT_FOUND / empty, never the data
    const r1 = await host.gql('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: other.tenantId, toolPattern: '*' } }, mine.key);
    expect(r1.errors?.[0].extensions?.code).to.equal('NOT_FOUND');
    const r2 = await host.gql('mutation($i: CreatePrincipalInput!) { createPrincipal(input: $i) { apiKey } }', { i: { tenantId: other.tenantId, name: 'x' } }, mine.key);
    expect(r2.errors?.[0].extensions?.code).to.equal('NOT_FOUND');
    expect((await host.gqlOk<{ principals: unknown[] }>('query($t: ID!) { principals(tenantId: $t) { id } }', { t: other.tenantId }, mine.key)).principals).to.deep.equal([]);
    expect((await host.gqlOk<{ tenants: Array<{ name: string }> }>('{ tenants { name } }', {}, mine.key)).tenants.map((t) => t.name)).to.deep.equal(['mine']);
    const r3 = await host.gql('mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id: otherAgent.principalId }, mine.key);
    expect(r3.errors?.[0].extensions?.code).to.equal('NOT_FOUND');
    const r4 = await host.gql('mutation($i: CreatePrincipalInput!) { createPrincipal(input: $i) { apiKey } }', { i: { tenantId: mine.tenantId, name: 'boss', role: 'host-admin' } }, mine.key);
    expect(r4.errors?.[0].extensions?.code).to.equal('FORBIDDEN');
    const r5 = await host.gql('query($p: ID!) { previewTools(principalId: $p) { appliedView } }', { p: otherAgent.principalId }, mine.key);
    expect(r5.errors?.[0].extensions?.code).to.equal('NOT_FOUND');
  });

  it('previewTools shows exactly what the principal itself gets, narrowing included', async () => {
    const t = await aTenantWithKey(host, 'preview');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    const narrow = await aPrincipal(host, t.tenantId, 'narrow');
    await aGrant(host, { tenantId: t.tenantId, principalId: narrow.principalId, toolPattern: 'ext.w*' });
    for (const who of [t, narrow]) {
      const own = await host.gqlOk<{ tools: unknown }>('{ tools { appliedView tools { ... on ToolDescriptor { toolId safetyTier inputSchema } } } }', {}, who.key);
      const preview = await host.gqlOk<{ previewTools: unknown }>(
        'query($p: ID!) { previewTools(principalId: $p) { appliedView tools { ... on ToolDescriptor { toolId safetyTier inputSchema } } } }',
        { p: who.principalId },
      );
      expect(preview.previewTools).to.deep.equal(own.tools);
    }
    expect((await host.get('/tools', narrow.key)).json()).to.have.length(1);
  });

  it('rejects invalid admin input with BAD_USER_INPUT and a message naming the field', async () => {
    const t = await aTenantWithKey(host, 'inputs');
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: t.tenantId, toolPattern: 'ext.%' } }, /toolPattern/],
      ['mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: t.tenantId, toolPattern: '*', maxSafetyTier: 'root' } }, /maxSafetyTier/],
      ['mutation { createTenant(name: "Has Spaces") { id } }', {}, /Tenant names/],
      ['mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }', { i: { toolId: 'ext.calculator', safetyTier: 'safe', replayPolicy: 'x', egress: 'y' } }, /safetyTier.*replayPolicy.*egress/],
      ['mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', { i: { name: 'bad name', inputSchema: {}, safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' } }, /Extension names/],
    ];
    for (const [q, v, re] of cases) {
      const r = await host.gql(q, v);
      expect(r.errors?.[0].extensions?.code, q).to.equal('BAD_USER_INPUT');
      expect(r.errors?.[0].message).to.match(re);
    }
    const dup = await host.gql('mutation { createTenant(name: "inputs") { id } }');
    expect(dup.errors?.[0].extensions?.code).to.equal('CONFLICT');
    const bad = await host.gql('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
      i: { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 12 } } }, safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
    });
    expect(bad.errors?.[0].extensions?.code).to.equal('INVARIANT_VIOLATION');
    expect(bad.errors?.[0].message).to.match(/not a valid JSON Schema/);
  });

  it('deleting a tenant removes its principals, grants and tenant-scoped tools; its keys stop working', async () => {
    const t = await aTenantWithKey(host, 'doomed');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
    await anExtension(host, { name: 'doomed_tool', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: t.tenantId });
    await host.gqlOk('mutation($id: ID!) { deleteTenant(id: $id) }', { id: t.tenantId });
    expect((await host.get('/tools', t.key)).status).to.equal(401);
    const left = (await host.app.dataSource.query('SELECT tool_id FROM tool')) as Array<{ tool_id: string }>;
    expect(left.map((r) => r.tool_id)).not.to.include('ext.doomed_tool');
  });

  it('internal errors are masked: no stack traces or driver messages leave the server', async () => {
    const r = await host.gql('{ nope }');
    expect(r.errors?.[0].extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(JSON.stringify(r.errors)).not.to.match(/at .*\.js:\d+/);
  });
});
