/**
 * OIDC/JWT bearer tokens over real HTTP (issue 5): a JWKS endpoint on 127.0.0.1 serves an RS256 public key, the
 * real host verifies tokens against it. Pins: a valid token reads its tenant's catalog; every refused token is a
 * 401 with exactly `WWW-Authenticate: Bearer realm="toolcat", error="invalid_token"` (README, docs/errors.md) and the same body bytes,
 * whatever the reason; API keys keep working; `host-admin` in a token grants nothing unless the role map says so.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { testConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { expectStandardDescriptor, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

const ISS = 'https://idp.toolcat.test/';
const AUD = 'toolcat-api';
const KID = 'key-1';
const CHALLENGE = 'Bearer realm="toolcat"';
/** RFC 6750 section 3.1: a presented but refused credential adds error="invalid_token", the same for every reason. */
const REFUSED = 'Bearer realm="toolcat", error="invalid_token"';
const now = () => Math.floor(Date.now() / 1000);
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

forEachDatabase('security: OIDC/JWT bearer tokens over HTTP', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let jwks: Server;
  let jwksHits = 0;
  let signingKey: CryptoKey;
  let publicJwk: JWK;
  let impostorKey: CryptoKey;
  let acme: { tenantId: string; key: string };
  const ACME_VISIBLE = ['ext.calc', 'ext.zz_acme_only'];

  const sign = (claims: JWTPayload = {}, key: CryptoKey = signingKey, header: Record<string, unknown> = {}) =>
    new SignJWT({ iss: ISS, aud: AUD, sub: 'alice@acme.test', iat: now(), exp: now() + 300, tenant: 'acme', roles: ['agent'], ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: KID, typ: 'JWT', ...header })
      .sign(key);

  before(async function () {
    this.timeout(60_000);
    const pair = await generateKeyPair('RS256', { extractable: true });
    signingKey = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
    impostorKey = (await generateKeyPair('RS256')).privateKey;
    jwks = createServer((_req, res) => {
      jwksHits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
    const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, {
      security: {
        ...testConfig().security,
        jwt: {
          config: { issuer: ISS, audience: AUD, jwksUrl },
          // The default role names plus one IdP role deliberately mapped to host-admin; "host-admin" itself is not mapped.
          roleMap: { agent: 'agent', 'tenant-admin': 'tenant-admin', 'idp-superuser': 'host-admin' },
          defaultRole: null,
        },
      },
    });
    acme = await aTenantWithKey(host, 'acme');
    const globex = await aTenantWithKey(host, 'globex');
    await anExtension(host, { name: 'calc', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    await anExtension(host, { name: 'zz_acme_only', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: acme.tenantId });
    await anExtension(host, { name: 'zz_globex_only', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: globex.tenantId });
    await aGrant(host, { tenantId: acme.tenantId, toolPattern: 'ext.*' });
    await aGrant(host, { tenantId: globex.tenantId, toolPattern: 'ext.*' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
    await new Promise<void>((r) => (jwks ? jwks.close(() => r()) : r()));
  });

  const ids = (body: unknown) => (body as Array<{ toolId: string }>).map((d) => d.toolId);

  it('a valid RS256 token (tenant acme, roles [agent]) lists exactly acme\'s tools and reads one of them', async () => {
    const token = await sign();
    const r = await host.get('/tools', token);
    expect(r.status, r.text).to.equal(200);
    expectStandardList(r.json());
    expect(ids(r.json())).to.deep.equal(ACME_VISIBLE);
    const one = await host.get('/tools/ext.zz_acme_only', token);
    expect(one.status).to.equal(200);
    expectStandardDescriptor(one.json());
    // Another tenant's tool is a plain 404 for a JWT principal too (TC-CAT-4).
    expect((await host.get('/tools/ext.zz_globex_only', token)).status).to.equal(404);
    const me = await host.gqlOk<{ me: { tenantName: string; role: string; principalId: string } }>('{ me { tenantName role principalId } }', {}, token);
    expect(me.me).to.include({ tenantName: 'acme', role: 'agent' });
    expect(me.me.principalId).to.match(/^jwt:[0-9a-f]{32}$/);
    expect(jwksHits, 'the keys came from the JWKS endpoint').to.be.greaterThan(0);
  });

  const refusals: Array<[string, () => Promise<string>]> = [
    ['an expired token (exp two minutes ago, tolerance 30 s)', () => sign({ exp: now() - 120, iat: now() - 600 })],
    ['a token not yet valid (nbf in two minutes)', () => sign({ nbf: now() + 120 })],
    ['a forged token (another key, same kid)', () => sign({}, impostorKey)],
    ['a wrong audience', () => sign({ aud: 'someone-else' })],
    ['a wrong issuer', () => sign({ iss: 'https://evil.test/' })],
    ['alg:none (unsigned)', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ iss: ISS, aud: AUD, sub: 'mallory', tenant: 'acme', roles: ['agent'], exp: now() + 300 })}.`],
    ['HS256 signed with the public key as the secret (key confusion)', async () => {
      const { importJWK } = await import('jose');
      const pem = await exportSPKI((await importJWK(publicJwk, 'RS256')) as CryptoKey);
      return new SignJWT({ iss: ISS, aud: AUD, sub: 'mallory', tenant: 'acme', roles: ['agent'], exp: now() + 300 })
        .setProtectedHeader({ alg: 'HS256', kid: KID, typ: 'JWT' })
        .sign(new TextEncoder().encode(pem));
    }],
    ['garbage (no JWT shape)', async () => 'garbage'],
    ['garbage in JWT shape', async () => 'abc.def.ghi'],
    ['a token for an unknown tenant', () => sign({ tenant: 'initech' })],
    ['a token whose only role is host-admin (not in the role map)', () => sign({ roles: ['host-admin'] })],
  ];

  /** One refused request: status, challenge and body, for REST and GraphQL. */
  const refused = async (token: string) => {
    const rest = await host.get('/tools', token);
    const gql = await host.request('POST', '/graphql', token, JSON.stringify({ query: '{ me { name } }' }));
    // An admin operation (role check in the service layer, not requirePrincipal): the same challenge.
    const admin = await host.request('POST', '/graphql', token, JSON.stringify({ query: '{ tenants { name } }' }));
    return { rest, gql, admin };
  };

  for (const [what, make] of refusals) {
    it(`refuses ${what}: 401 UNAUTHENTICATED with a Bearer challenge on REST and GraphQL, never a catalog`, async () => {
      const { rest, gql } = await refused(await make());
      expect(rest.status, rest.text).to.equal(401);
      expect(rest.headers.get('www-authenticate') ?? '').to.match(/^Bearer realm="toolcat"/); // exact value: see below
      expect(rest.text).not.to.include('ext.');
      expect(JSON.parse(rest.text)).to.have.nested.property('error.code', 'UNAUTHENTICATED');
      expect(gql.status, `GraphQL: ${gql.text}`).to.equal(401); // docs/errors.md: UNAUTHENTICATED is HTTP 401 in GraphQL too
      expect(gql.text).not.to.include('alice').and.not.to.include('acme');
    });
  }

  it(`every refused credential (each token above, an unknown and a revoked API key) carries exactly ${REFUSED} (README, docs/errors.md)`, async () => {
    const victim = await aTenantWithKey(host, 'revoked-co');
    expect((await host.get('/tools', victim.key)).status).to.equal(200);
    await host.gqlOk('mutation($id: ID!) { revokePrincipal(id: $id) { revokedAt } }', { id: victim.principalId });
    const cases: Array<[string, () => Promise<string>]> = [...refusals, ['a revoked API key', async () => victim.key], ['an unknown API key', async () => `tc_${'B'.repeat(43)}`]];
    const wrong: string[] = [];
    for (const [what, make] of cases) {
      const { rest, gql, admin } = await refused(await make());
      expect([rest.status, gql.status, admin.status], what).to.deep.equal([401, 401, 401]);
      for (const [where, r] of [['REST', rest], ['GraphQL me', gql], ['GraphQL tenants', admin]] as const) {
        if (r.headers.get('www-authenticate') !== REFUSED) wrong.push(`${what} (${where}): ${r.headers.get('www-authenticate')}`);
      }
    }
    expect(wrong, `WWW-Authenticate differs from the documented ${REFUSED}`).to.deep.equal([]);
  });

  it('gives every refused token the same bytes: no reason leaks (REST body, GraphQL body, status, challenge)', async () => {
    const seen = new Map<string, string[]>();
    const unknownApiKey = `tc_${'A'.repeat(43)}`;
    for (const [what, make] of [...refusals, ['an unknown API key', async () => unknownApiKey] as [string, () => Promise<string>]]) {
      const { rest, gql } = await refused(await make());
      const shape = JSON.stringify([rest.status, rest.headers.get('www-authenticate'), rest.headers.get('content-type'), rest.text, gql.status, gql.text]);
      seen.set(shape, [...(seen.get(shape) ?? []), what]);
    }
    expect([...seen.values()], `distinct answers: ${[...seen.keys()].join('\n')}`).to.have.length(1);
  });

  it(`no Authorization header at all: 401 with exactly ${CHALLENGE}`, async () => {
    const r = await host.get('/tools');
    expect(r.status).to.equal(401);
    expect(r.headers.get('www-authenticate')).to.equal(CHALLENGE);
    const gql = await host.request('POST', '/graphql', null, JSON.stringify({ query: '{ me { name } }' }));
    expect(gql.status).to.equal(401);
    expect(gql.headers.get('www-authenticate')).to.equal(CHALLENGE);
  });

  it('keeps API keys working beside JWTs (same catalog as acme\'s token)', async () => {
    const r = await host.get('/tools', acme.key);
    expect(r.status).to.equal(200);
    expectStandardList(r.json());
    expect(ids(r.json())).to.deep.equal(ACME_VISIBLE);
    expect((await host.get('/tools', await sign())).text, 'the same bytes for the same tenant and grants').to.equal(r.text);
  });

  it('a token carrying host-admin is not an admin unless the role map maps it: createTenant is refused', async () => {
    const mutation = 'mutation($n: String!) { createTenant(name: $n) { id } }';
    // [host-admin, agent] maps to agent (served the catalog schema only: no mutations); [tenant-admin, host-admin] to
    // tenant-admin (FORBIDDEN: the operation needs host-admin).
    for (const [roles, code] of [[['host-admin', 'agent'], 'GRAPHQL_VALIDATION_FAILED'], [['tenant-admin', 'host-admin'], 'FORBIDDEN']] as const) {
      const r = await host.gql(mutation, { n: 'jwt-made-tenant' }, await sign({ roles: [...roles] }));
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(roles)).to.equal(code);
      expect(r.data ?? null).to.equal(null);
    }
    const tenants = await host.gqlOk<{ tenants: Array<{ name: string }> }>('{ tenants { name } }');
    expect(tenants.tenants.map((t) => t.name)).not.to.include('jwt-made-tenant');
    // Positive control: the role the map sends to host-admin does get admin rights.
    const ok = await host.gql<{ createTenant: { id: string } }>(mutation, { n: 'mapped-admin-tenant' }, await sign({ roles: ['idp-superuser'] }));
    expect(ok.errors, JSON.stringify(ok.errors)).to.equal(undefined);
    expect(ok.data?.createTenant.id).to.be.a('string');
  });
});
