/**
 * Issue 11, defect 6: there was no ceiling per tenant, so a tenant admin could grant its own tenant `*` up to
 * `exec`, host extensions like run_shell included. Pins: the host admin sets a per-tenant ceiling (tool patterns,
 * sources, highest tier); a grant beyond it is refused with CEILING_EXCEEDED naming both sides, whoever asks; the
 * visibility query enforces the ceiling, so lowering it hides tools at once; tenant admins read their ceiling and
 * cannot change it; a new tenant starts with the configured default ceiling.
 */
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, anExtension, hostPerSuite, startHost } from '../helpers/test-host';

const SET = 'mutation($t: ID!, $e: [CeilingEntryInput!]!) { setTenantCeiling(tenantId: $t, entries: $e) { toolPattern source maxSafetyTier } }';
const GRANT = 'mutation($i: CreateGrantInput!) { createGrant(input: $i) { id withinCeiling } }';
const ids = (text: string) => (JSON.parse(text) as Array<{ toolId: string }>).map((d) => d.toolId);

forEachDatabase('issue 11 defect 6: a ceiling per tenant', (database) => {
  const suite = hostPerSuite(database, {}, async (host) => {
    await anExtension(host, { name: 'calc', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    await anExtension(host, { name: 'read_file', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
    await anExtension(host, { name: 'write_file', safetyTier: 'write', replayPolicy: 'idempotent', egress: 'none' });
    await anExtension(host, { name: 'run_shell', safetyTier: 'exec', replayPolicy: 'non-idempotent', egress: 'restricted' });
  });

  async function tenantWithAdmin(name: string) {
    const t = await aTenantWithKey(suite.host, name, 'tenant-admin');
    const agent = await aPrincipal(suite.host, t.tenantId, `${name}-agent`);
    return { ...t, agentKey: agent.key };
  }

  it('a tenant admin cannot grant past the ceiling the host admin set: `*` up to exec is refused, naming both sides', async () => {
    const host = suite.host;
    const t = await tenantWithAdmin('ceiled');
    await host.gqlOk(SET, { t: t.tenantId, e: [{ toolPattern: 'ext.*', source: 'host-extension', maxSafetyTier: 'read' }] });
    const refused = await host.gql(GRANT, { i: { tenantId: t.tenantId, toolPattern: '*', maxSafetyTier: 'exec' } }, t.key);
    expect(refused.errors?.[0]?.extensions?.code).to.equal('CEILING_EXCEEDED');
    expect(refused.errors?.[0]?.message).to.include('* from any source up to exec').and.to.include('ext.* from host-extension up to read');
    for (const i of [
      { toolPattern: 'ext.*' }, // no tier: every tier, beyond read
      { toolPattern: 'ext.*', maxSafetyTier: 'write' },
      { toolPattern: 'ext.run_shell', source: 'host-extension' },
      { toolPattern: 'ext.*', source: 'mcp', maxSafetyTier: 'read' },
      { toolPattern: 'e*', source: 'host-extension', maxSafetyTier: 'read' }, // wider pattern
    ]) {
      const r = await host.gql(GRANT, { i: { tenantId: t.tenantId, ...i } }, t.key);
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(i)).to.equal('CEILING_EXCEEDED');
    }
    // The host admin is held to the ceiling too: raise it first.
    expect((await host.gql(GRANT, { i: { tenantId: t.tenantId, toolPattern: '*' } })).errors?.[0]?.extensions?.code).to.equal('CEILING_EXCEEDED');
    const ok = await host.gqlOk<{ createGrant: { withinCeiling: boolean } }>(GRANT, { i: { tenantId: t.tenantId, toolPattern: 'ext.*', source: 'host-extension', maxSafetyTier: 'read' } }, t.key);
    expect(ok.createGrant.withinCeiling).to.equal(true);
    const list = await host.get('/tools', t.agentKey);
    expect(ids(list.text)).to.deep.equal(['ext.calc', 'ext.read_file']);
    expect((await host.get('/tools/ext.run_shell', t.agentKey)).status).to.equal(404);
  });

  it('only a host admin sets a ceiling; a tenant admin reads its own and nobody else\'s', async () => {
    const host = suite.host;
    const a = await tenantWithAdmin('reader-a');
    const b = await tenantWithAdmin('reader-b');
    const denied = await host.gql(SET, { t: a.tenantId, e: [{ toolPattern: '*' }] }, a.key);
    expect(denied.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
    const own = await host.gqlOk<{ tenantCeiling: unknown[] }>('query($t: ID!) { tenantCeiling(tenantId: $t) { toolPattern source maxSafetyTier } }', { t: a.tenantId }, a.key);
    expect(own.tenantCeiling, 'a new tenant starts unrestricted (the default)').to.deep.equal([{ toolPattern: '*', source: null, maxSafetyTier: null }]);
    const other = await host.gql('query($t: ID!) { tenantCeiling(tenantId: $t) { toolPattern } }', { t: b.tenantId }, a.key);
    expect(other.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    const agent = await host.gql('query($t: ID!) { tenantCeiling(tenantId: $t) { toolPattern } }', { t: a.tenantId }, a.agentKey);
    expect(agent.errors?.[0]?.extensions?.code, 'not in the schema agents are served').to.equal('GRAPHQL_VALIDATION_FAILED');
    const bad = await host.gql(SET, { t: a.tenantId, e: [{ toolPattern: 'ext.%' }, { toolPattern: '*', maxSafetyTier: 'root' }] });
    expect(bad.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    expect(bad.errors?.[0]?.message).to.include('entry 0').and.to.include('entry 1');
  });

  it('lowering a ceiling hides what it no longer allows at once, and the grants beyond it say so', async () => {
    const host = suite.host;
    const t = await tenantWithAdmin('lowered');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    expect(ids((await host.get('/tools', t.agentKey)).text)).to.deep.equal(['ext.calc', 'ext.read_file', 'ext.run_shell', 'ext.write_file']);
    const before = await host.get('/tools', t.agentKey);
    await host.gqlOk(SET, { t: t.tenantId, e: [{ toolPattern: 'ext.*', maxSafetyTier: 'read' }] });
    const after = await host.get('/tools', t.agentKey, { 'if-none-match': before.headers.get('etag')! });
    expect(after.status, 'the cached list is not reused').to.equal(200);
    expect(ids(after.text)).to.deep.equal(['ext.calc', 'ext.read_file']);
    expect((await host.get('/tools/ext.run_shell', t.agentKey)).status).to.equal(404);
    const g = await host.gqlOk<{ tools: { tools: Array<{ toolId: string }> } }>('{ tools { tools { ... on ToolDescriptor { toolId } } } }', {}, t.agentKey);
    expect(g.tools.tools.map((x) => x.toolId)).to.deep.equal(['ext.calc', 'ext.read_file']);
    const grants = await host.gqlOk<{ grants: Array<{ toolPattern: string; withinCeiling: boolean }> }>('query($t: ID!) { grants(tenantId: $t) { toolPattern withinCeiling } }', { t: t.tenantId });
    expect(grants.grants).to.deep.equal([{ toolPattern: 'ext.*', withinCeiling: false }]);
    // An empty ceiling allows nothing at all.
    await host.gqlOk(SET, { t: t.tenantId, e: [] });
    expect(ids((await host.get('/tools', t.agentKey)).text)).to.deep.equal([]);
  });
});

forEachDatabase('issue 11 defect 6: the default ceiling of new tenants', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await database.create();
    drop = created.drop;
    // loadConfig is the only reader of the environment: the variable goes through it.
    host = await startHost(created.db, { tenantDefaultCeiling: loadConfig({ TOOLCAT_TENANT_DEFAULT_MAX_TIER: 'write' }).tenantDefaultCeiling });
    await anExtension(host, { name: 'run_shell', safetyTier: 'exec', replayPolicy: 'non-idempotent', egress: 'restricted' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  it('TOOLCAT_TENANT_DEFAULT_MAX_TIER=write: a new tenant can be granted everything up to write, never exec', async () => {
    const t = await aTenantWithKey(host, 'defaulted', 'tenant-admin');
    expect((await host.gql(GRANT, { i: { tenantId: t.tenantId, toolPattern: '*' } }, t.key)).errors?.[0]?.extensions?.code).to.equal('CEILING_EXCEEDED');
    expect((await host.gql(GRANT, { i: { tenantId: t.tenantId, toolPattern: 'ext.run_shell', maxSafetyTier: 'exec' } }, t.key)).errors?.[0]?.extensions?.code).to.equal('CEILING_EXCEEDED');
    await host.gqlOk(GRANT, { i: { tenantId: t.tenantId, toolPattern: '*', maxSafetyTier: 'write' } }, t.key);
  });

  it('an invalid TOOLCAT_TENANT_DEFAULT_MAX_TIER stops the start with the allowed values', () => {
    expect(() => loadConfig({ TOOLCAT_TENANT_DEFAULT_MAX_TIER: 'root' })).to.throw(ConfigError, /pure, read, write or exec/);
  });
});
