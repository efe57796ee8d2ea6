/**
 * Issue 11, defect 7: JWT principals were second-class: `previewTools` could not preview them and they could not
 * carry narrowing grants (grants named stored principals only). Pins: grants can narrow a group; a token whose
 * groups claim holds that group is narrowed (several groups: the union of their grants, always inside the
 * tenant's); `previewTools(claims:)` shows exactly what a token with those claims gets from GET /tools, by the
 * authenticator's own mapping; a tenant admin previews only its own tenant; stored principals still preview by id.
 */
import { expect } from 'chai';
import { type CryptoKey, type JWTPayload, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { testConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

const ISS = 'https://idp.groups.test/';
const AUD = 'toolcat-api';
const now = () => Math.floor(Date.now() / 1000);
const PREVIEW = 'query($p: ID, $c: JSONObject, $v: String) { previewTools(principalId: $p, claims: $c, view: $v) { appliedView tools { ... on ToolDescriptor { toolId } ... on CompactToolDescriptor { toolId } } } }';

forEachDatabase('issue 11 defect 7: JWT principals narrowed by groups, previewed by claims', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let key: CryptoKey;
  let acme: { tenantId: string; key: string };
  let acmeAdmin: { key: string };
  let globexAdmin: { key: string };

  const claims = (extra: JWTPayload = {}): JWTPayload => ({ iss: ISS, aud: AUD, sub: 'dana', tenant: 'acme', roles: ['agent'], ...extra });
  const sign = (extra: JWTPayload = {}) =>
    new SignJWT({ ...claims(extra), iat: now(), exp: now() + 300 }).setProtectedHeader({ alg: 'ES256', kid: 'g1', typ: 'JWT' }).sign(key);
  const ids = (text: string) => (JSON.parse(text) as Array<{ toolId: string }>).map((d) => d.toolId);

  before(async function () {
    this.timeout(60_000);
    const pair = await generateKeyPair('ES256', { extractable: true });
    key = pair.privateKey;
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, {
      security: { ...testConfig().security, jwt: { config: { issuer: ISS, audience: AUD, staticKeys: [{ ...(await exportJWK(pair.publicKey)), kid: 'g1', alg: 'ES256' }] }, roleMap: undefined, defaultRole: null } },
    });
    acme = await aTenantWithKey(host, 'acme');
    acmeAdmin = await aPrincipal(host, acme.tenantId, 'acme-admin', 'tenant-admin');
    const globex = await aTenantWithKey(host, 'globex');
    globexAdmin = await aPrincipal(host, globex.tenantId, 'globex-admin', 'tenant-admin');
    for (const name of ['calc', 'read_file', 'write_file', 'web_fetch']) await anExtension(host, { name, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
    await aGrant(host, { tenantId: acme.tenantId, toolPattern: 'ext.*' });
    await host.gqlOk('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id group } }', { i: { tenantId: acme.tenantId, group: 'analysts', toolPattern: 'ext.read_*' } });
    await host.gqlOk('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: acme.tenantId, group: 'web', toolPattern: 'ext.web_*' } });
    // A group grant wider than the tenant's grants narrows to the intersection, never widens.
    await host.gqlOk('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: acme.tenantId, group: 'wide', toolPattern: '*' } });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  it('a token is narrowed by the grants of its groups (the union of them, inside the tenant\'s grants)', async () => {
    expect(ids((await host.get('/tools', await sign())).text), 'no groups: the tenant\'s grants').to.deep.equal(['ext.calc', 'ext.read_file', 'ext.web_fetch', 'ext.write_file']);
    expect(ids((await host.get('/tools', await sign({ groups: ['analysts'] }))).text)).to.deep.equal(['ext.read_file']);
    expect(ids((await host.get('/tools', await sign({ groups: ['web', 'analysts'] }))).text), 'two groups: the union').to.deep.equal(['ext.read_file', 'ext.web_fetch']);
    expect(ids((await host.get('/tools', await sign({ groups: ['wide'] }))).text)).to.deep.equal(['ext.calc', 'ext.read_file', 'ext.web_fetch', 'ext.write_file']);
    expect(ids((await host.get('/tools', await sign({ groups: ['unknown-group'] }))).text), 'a group without grants does not narrow').to.deep.equal(['ext.calc', 'ext.read_file', 'ext.web_fetch', 'ext.write_file']);
    expect((await host.get('/tools/ext.calc', await sign({ groups: ['analysts'] }))).status).to.equal(404);
    const me = await host.gqlOk<{ me: { kind: string; groups: string[] } }>('{ me { kind groups } }', {}, await sign({ groups: ['web', 'analysts'] }));
    expect(me.me).to.deep.equal({ kind: 'jwt', groups: ['analysts', 'web'] });
  });

  it('previewTools(claims:) answers exactly what a token with those claims gets from GET /tools, in both views', async () => {
    for (const extra of [{}, { groups: ['analysts'] }, { groups: ['web', 'analysts'] }, { sub: 'someone-else', groups: 'Web' }]) {
      for (const view of ['standard', 'compact']) {
        const rest = await host.get(`/tools?view=${view}`, await sign(extra));
        const restIds = view === 'compact' ? (JSON.parse(rest.text) as { tools: Array<{ toolId: string }> }).tools.map((d) => d.toolId) : ids(rest.text);
        for (const actor of [host.adminKey, acmeAdmin.key]) {
          const p = await host.gqlOk<{ previewTools: { appliedView: string; tools: Array<{ toolId: string }> } }>(PREVIEW, { c: claims(extra), v: view }, actor);
          expect(p.previewTools.appliedView).to.equal(view);
          expect(p.previewTools.tools.map((t) => t.toolId), `${JSON.stringify(extra)} ${view}`).to.deep.equal(restIds);
        }
      }
    }
  });

  it('a preview by claims is scoped like any admin read, and says why claims describe nobody', async () => {
    const other = await host.gql(PREVIEW, { c: claims() }, globexAdmin.key);
    expect(other.errors?.[0]?.extensions?.code, 'another tenant\'s claims are not in a tenant admin\'s scope').to.equal('NOT_FOUND');
    // Red team (issue 20): an unknown tenant name and another tenant's name answer a tenant admin the same bytes.
    const unknownTenant = await host.gql(PREVIEW, { c: claims({ tenant: 'no-such-tenant' }) }, globexAdmin.key);
    expect(JSON.stringify(unknownTenant.errors)).to.equal(JSON.stringify(other.errors));
    const unmapped = await host.gql(PREVIEW, { c: claims({ tenant: 'globex', roles: ['nobody'] }) }, globexAdmin.key);
    expect(JSON.stringify(unmapped.errors), 'claims that describe nobody, for a tenant admin').to.equal(JSON.stringify(other.errors));
    const noRole = await host.gql(PREVIEW, { c: claims({ roles: ['nobody'] }) });
    expect(noRole.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    const both = await host.gql(PREVIEW, { c: claims(), p: acmeAdmin.key });
    expect(both.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    const agent = await host.gql(PREVIEW, { c: claims() }, acme.key);
    expect(agent.errors?.[0]?.extensions?.code, 'previewTools is not in the schema agents are served').to.equal('GRAPHQL_VALIDATION_FAILED');
  });

  it('stored principals still preview by id, with the same list their key gets', async () => {
    const me = await host.gqlOk<{ me: { principalId: string } }>('{ me { principalId } }', {}, acme.key);
    const p = await host.gqlOk<{ previewTools: { tools: Array<{ toolId: string }> } }>(PREVIEW, { p: me.me.principalId });
    expect(p.previewTools.tools.map((t) => t.toolId)).to.deep.equal(ids((await host.get('/tools', acme.key)).text));
  });

  it('issue 11 red team F9: a group name matches in one spelling whatever the token sends (string form, NFD/NFC, case, spaces), never failing open', async () => {
    const grant = (group: string, toolPattern: string) => host.gqlOk('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id group } }', { i: { tenantId: acme.tenantId, group, toolPattern } });
    await grant('Data Science', 'ext.calc');
    await grant('\u00e9ng', 'ext.write_file'); // NFC é
    for (const [groups, want] of [
      ['Data Science', ['ext.calc']], // one group as a string is one name, not two
      [['data science'], ['ext.calc']],
      [['DATA SCIENCE '], ['ext.calc']],
      ['e\u0301ng', ['ext.write_file']], // NFD é
      [['\u00c9NG'], ['ext.write_file']],
    ] as const) {
      expect(ids((await host.get('/tools', await sign({ groups: groups as string | string[] }))).text), JSON.stringify(groups)).to.deep.equal(want);
    }
  });

  it('refuses a grant that narrows a principal and a group at once, and group names that are not printable', async () => {
    const me = await host.gqlOk<{ me: { principalId: string } }>('{ me { principalId } }', {}, acme.key);
    const both = await host.gql('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: acme.tenantId, group: 'x', principalId: me.me.principalId, toolPattern: 'ext.*' } });
    expect(both.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    const bad = await host.gql('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: acme.tenantId, group: 'a\u0000b', toolPattern: 'ext.*' } });
    expect(bad.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
  });
});
