/**
 * Issue 11, defect 1: a JWT principal's id was derived from issuer and `sub` only, and the visible-set cache
 * and the rate-limit buckets were keyed by it. Two tokens with the same `sub` for tenants `ta` and `tb` then
 * shared one list (tb got ta's tenant-scoped tools, GET /tools/{id} answered 200 for them, ta's ETag answered
 * 304 for tb) and one request budget. Pins: every cache key and bucket includes the tenant (and everything
 * else the decision depends on), so the same subject in two tenants is two principals.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { testConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

const ISS = 'https://idp.shared-subject.test/';
const AUD = 'toolcat-api';
const now = () => Math.floor(Date.now() / 1000);

forEachDatabase('issue 11 defect 1: JWT principals with the same subject in two tenants', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let jwks: Server;
  let key: CryptoKey;
  let taId: string;

  const sign = (claims: JWTPayload) =>
    new SignJWT({ iss: ISS, aud: AUD, sub: 'shared-subject', iat: now(), exp: now() + 300, roles: ['agent'], ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1', typ: 'JWT' })
      .sign(key);

  before(async function () {
    this.timeout(60_000);
    const pair = await generateKeyPair('RS256', { extractable: true });
    key = pair.privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', () => r()));
    const created = await database.create();
    drop = created.drop;
    const base = testConfig().security;
    host = await startHost(created.db, {
      security: {
        ...base,
        // A small budget, so that sharing one bucket across tenants shows within a few requests.
        rateLimit: { ...base.rateLimit, capacity: 3, refillPerSecond: 1 },
        jwt: { config: { issuer: ISS, audience: AUD, jwksUrl: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks` }, roleMap: undefined, defaultRole: null },
      },
    });
    const ta = await aTenantWithKey(host, 'ta');
    taId = ta.tenantId;
    const tb = await aTenantWithKey(host, 'tb');
    await anExtension(host, { name: 'shared_calc', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    await anExtension(host, { name: 'ta_secret_tool', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: ta.tenantId });
    await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'ext.*' });
    await aGrant(host, { tenantId: tb.tenantId, toolPattern: 'ext.*' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
    await new Promise<void>((r) => (jwks ? jwks.close(() => r()) : r()));
  });

  const ids = (text: string) => (JSON.parse(text) as Array<{ toolId: string }>).map((d) => d.toolId);

  it('tb never gets ta\'s tenant-scoped tools: not in the list, 404 by id, no 304 on ta\'s ETag, and GraphQL agrees', async () => {
    const taToken = await sign({ tenant: 'ta' });
    const tbToken = await sign({ tenant: 'tb' });
    // ta first, so that a cache keyed by subject alone would hand ta's set to tb.
    const taList = await host.get('/tools', taToken);
    expect(taList.status, taList.text).to.equal(200);
    expect(ids(taList.text)).to.deep.equal(['ext.shared_calc', 'ext.ta_secret_tool']);
    const tbList = await host.get('/tools', tbToken);
    expect(tbList.status, tbList.text).to.equal(200);
    expect(ids(tbList.text), 'tb sees only the global tool').to.deep.equal(['ext.shared_calc']);
    expect((await host.get('/tools/ext.ta_secret_tool', tbToken)).status, 'another tenant\'s tool is a 404').to.equal(404);
    const revalidated = await host.get('/tools', tbToken, { 'if-none-match': taList.headers.get('etag')! });
    expect(revalidated.status, 'ta\'s ETag is not tb\'s list').to.equal(200);
    const me = await host.gqlOk<{ me: { tenantName: string; principalId: string } }>('{ me { tenantName principalId } }', {}, tbToken);
    expect(me.me.tenantName).to.equal('tb');
    const meA = await host.gqlOk<{ me: { principalId: string } }>('{ me { principalId } }', {}, taToken);
    expect(me.me.principalId, 'one subject in two tenants is two principals').to.not.equal(meA.me.principalId);
    const g = await host.gqlOk<{ tools: { tools: Array<{ toolId: string }> } }>('{ tools { tools { ... on ToolDescriptor { toolId } } } }', {}, tbToken);
    expect(g.tools.tools.map((t) => t.toolId)).to.deep.equal(['ext.shared_calc']);
  });

  it('a tenant claim may hold the tenant id instead of its name: the same principal either way', async () => {
    const byName = await host.gqlOk<{ me: { principalId: string; tenantName: string } }>('{ me { principalId tenantName } }', {}, await sign({ tenant: 'ta' }));
    const byId = await host.gqlOk<{ me: { principalId: string; tenantName: string } }>('{ me { principalId tenantName } }', {}, await sign({ tenant: taId }));
    expect(byId.me).to.deep.equal(byName.me);
  });

  it('the same subject in two tenants has two request budgets', async () => {
    const a = await sign({ tenant: 'ta', sub: 'budget-subject' });
    const b = await sign({ tenant: 'tb', sub: 'budget-subject' });
    for (let i = 0; i < 3; i++) expect((await host.get('/capabilities', a)).status).to.equal(200);
    expect((await host.get('/capabilities', a)).status, 'ta\'s budget is spent').to.equal(429);
    expect((await host.get('/capabilities', b)).status, 'tb\'s budget is its own').to.equal(200);
  });
});
