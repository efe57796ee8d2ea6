/**
 * Pins how a Bearer value becomes a Principal: API keys and JWTs side by side, role mapping that never grants
 * host-admin by accident, and one indistinguishable `null` for every refusal.
 */
import { expect } from 'chai';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { Principal } from '../catalog/principal';
import { bearerChallenge } from '../shared/transport-answers';
import { bearerKind, createBearerAuthenticator, parseBearerHeader, principalFromJwt } from './bearer';
import { createJwtVerifier } from './jwt-verifier';

const tenants: Record<string, { id: string; name: string }> = { acme: { id: 't-1', name: 'acme' }, globex: { id: 't-2', name: 'globex' } };
const resolveTenant = async (claim: string) => (Object.hasOwn(tenants, claim) ? tenants[claim] : null);
const identity = (roles: string[], tenant = 'acme', groups: string[] = []) => ({ tenant, subject: 'alice@acme.test', roles, groups });

describe(parseBearerHeader.name, () => {
  it('takes the credential from a well-formed header only', () => {
    expect(parseBearerHeader('Bearer tc_abc')).to.equal('tc_abc');
    expect(parseBearerHeader('bearer tc_abc')).to.equal('tc_abc');
    const jwt = `eyJ${'a'.repeat(40)}.eyJ${'b'.repeat(2000)}.${'c'.repeat(342)}`;
    expect(parseBearerHeader(`Bearer ${jwt}`), 'RSA-signed JWTs are longer than 512').to.equal(jwt);
    for (const h of [undefined, ['Bearer a', 'Bearer b'], 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'Bearer a\u0000', `Bearer ${'a'.repeat(9000)}`])
      expect(parseBearerHeader(h as string | string[] | undefined)).to.equal(null);
    expect(bearerChallenge(false)).to.equal('Bearer realm="toolcat"');
    expect(bearerChallenge(true)).to.equal('Bearer realm="toolcat", error="invalid_token"');
  });

  it('routes API keys and JWTs', () => {
    expect(bearerKind('tc_abc')).to.equal('api-key');
    expect(bearerKind('eyJh.eyJz.sig')).to.equal('jwt');
    expect(bearerKind('something-else')).to.equal('unknown');
  });
});

describe(principalFromJwt.name, () => {
  const opts = { resolveTenant, issuer: 'https://idp.test/' };

  it('maps to the strongest listed role, with a stable UUID-length id of its own', async () => {
    const p = await principalFromJwt(identity(['agent', 'tenant-admin', 'unrelated']), opts);
    expect(p).to.include({ tenantId: 't-1', tenantName: 'acme', name: 'alice@acme.test', role: 'tenant-admin' });
    expect(p!.id).to.match(/^jwt:[0-9a-f]{32}$/);
    expect((await principalFromJwt(identity(['agent']), opts))!.id).to.equal(p!.id);
    expect((await principalFromJwt(identity(['agent']), { ...opts, issuer: 'https://other.test/' }))!.id).not.to.equal(p!.id);
  });

  it('never grants host-admin unless the role map says so', async () => {
    expect((await principalFromJwt(identity(['host-admin', 'agent']), opts))!.role).to.equal('agent');
    expect(await principalFromJwt(identity(['host-admin']), opts)).to.equal(null);
    expect((await principalFromJwt(identity(['toolcat-ops']), { ...opts, roleMap: { 'toolcat-ops': 'host-admin' } }))!.role).to.equal('host-admin');
  });

  it('issue 11 defect 1: the same subject in two tenants is two principals (the id hashes the tenant too)', async () => {
    const a = (await principalFromJwt(identity(['agent'], 'acme'), opts))!;
    const b = (await principalFromJwt(identity(['agent'], 'globex'), opts))!;
    expect([a.tenantId, b.tenantId]).to.deep.equal(['t-1', 't-2']);
    expect(a.id).to.not.equal(b.id);
    expect(a.kind).to.equal('jwt');
  });

  it('issue 11 defect 7: carries the token\'s groups, sorted and distinct, for narrowing grants', async () => {
    const p = (await principalFromJwt(identity(['agent'], 'acme', ['ops', 'data', 'ops']), opts))!;
    expect(p.groups).to.deep.equal(['data', 'ops']);
  });

  it('refuses an unknown tenant, and a token without a mapped role unless a default role is configured', async () => {
    expect(await principalFromJwt(identity(['agent'], 'initech'), opts)).to.equal(null);
    expect(await principalFromJwt(identity([]), opts)).to.equal(null);
    expect(await principalFromJwt(identity(['__proto__', 'constructor']), opts)).to.equal(null);
    expect((await principalFromJwt(identity([]), { ...opts, defaultRole: 'agent' }))!.role).to.equal('agent');
  });
});

describe(createBearerAuthenticator.name, () => {
  const apiPrincipal: Principal = { id: 'p-1', kind: 'api-key', tenantId: 't-1', tenantName: 'acme', name: 'bot', role: 'agent', groups: [] };
  const seen: string[] = [];
  const authenticateApiKey = async (key: string) => (seen.push(key), key === 'tc_good' ? apiPrincipal : null);

  it('keeps API keys working beside JWTs, and gives the same null for every refusal', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const verifier = createJwtVerifier({ issuer: 'https://idp.test/', audience: 'toolcat', staticKeys: [{ ...(await exportJWK(publicKey)), kid: 'k' }] });
    const auth = createBearerAuthenticator({ authenticateApiKey, jwt: { verifier, principal: (i) => principalFromJwt(i, { resolveTenant, issuer: 'https://idp.test/' }) } });
    const token = (claims: Record<string, unknown>) =>
      new SignJWT({ iss: 'https://idp.test/', aud: 'toolcat', sub: 'alice', exp: Math.floor(Date.now() / 1000) + 60, tenant: 'acme', roles: ['agent'], ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k' })
        .sign(privateKey);

    expect(await auth('tc_good')).to.equal(apiPrincipal);
    expect(await auth('tc_bad')).to.equal(null);
    expect((await auth(await token({})))!.role).to.equal('agent');
    expect(await auth(await token({ aud: 'other' }))).to.equal(null);
    expect(await auth(await token({ tenant: 'initech' }))).to.equal(null);
    expect(await auth('neither-a-key-nor-a-jwt')).to.equal(null);
    expect(seen, 'JWTs never reach the API-key store').to.deep.equal(['tc_good', 'tc_bad']);
    const noJwt = createBearerAuthenticator({ authenticateApiKey });
    expect(await noJwt(await token({}))).to.equal(null);
  });
});
