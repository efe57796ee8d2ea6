/**
 * Pins OIDC/JWT bearer verification (issue 5) against a real JWKS endpoint on 127.0.0.1: what is accepted and
 * mapped, every forgery and misuse that must yield null (never a throw), key rotation, and that unknown kids do
 * not hammer the IdP.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { type CryptoKey, type JWK, type JWTPayload, SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { type JwtConfig, type JwtRejectReason, JwtConfigError, MAX_JWT_LENGTH, createJwtVerifier, looksLikeJwt } from './jwt-verifier';

const ISS = 'https://idp.test/';
const AUD = 'toolcat';
const now = () => Math.floor(Date.now() / 1000);
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

interface KeyPair {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}
async function keyPair(alg: 'RS256' | 'ES256', kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

function sign(k: KeyPair, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  // Claims given here replace the defaults; `undefined` removes one.
  const payload = { iss: ISS, aud: AUD, sub: 'user-1', iat: now(), exp: now() + 300, tenant: 'acme', roles: ['agent'], ...claims };
  return new SignJWT(payload).setProtectedHeader({ alg: k.alg, kid: k.kid, typ: 'JWT', ...header }).sign(k.privateKey);
}

/** A JWKS endpoint whose key set can be swapped, that counts its requests and can be told to fail. */
function jwksServer() {
  const state = { keys: [] as JWK[], requests: 0, fail: false };
  const server = createServer((_req, res) => {
    state.requests++;
    if (state.fail) return void res.writeHead(500).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  return { state, server };
}
const listen = (s: Server) => new Promise<string>((r) => s.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(s.address() as AddressInfo).port}/jwks`)));
const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));

describe(createJwtVerifier.name, () => {
  let rsa: KeyPair;
  let ec: KeyPair;
  let rotated: KeyPair;
  let impostor: KeyPair; // another key claiming rsa's kid
  let jwks: ReturnType<typeof jwksServer>;
  let url: string;
  const reasons: JwtRejectReason[] = [];
  const verifierFor = (extra: Partial<JwtConfig> = {}) =>
    createJwtVerifier({ issuer: ISS, audience: AUD, jwksUrl: url, tenantClaim: 'tenant', ...extra }, { onReject: (r) => reasons.push(r) });
  const lastReason = () => reasons[reasons.length - 1];

  before(async () => {
    [rsa, ec, rotated, impostor] = await Promise.all([keyPair('RS256', 'rsa-a'), keyPair('ES256', 'ec-1'), keyPair('RS256', 'rsa-b'), keyPair('RS256', 'rsa-a')]);
    jwks = jwksServer();
    jwks.state.keys = [rsa.jwk, ec.jwk];
    url = await listen(jwks.server);
  });
  after(() => close(jwks.server));
  beforeEach(() => {
    reasons.length = 0;
    jwks.state.keys = [rsa.jwk, ec.jwk];
    jwks.state.fail = false;
  });

  it('accepts RS256 and ES256 tokens and maps tenant (dotted path), subject and roles (array or string)', async () => {
    const v = verifierFor({ tenantClaim: 'org.id', rolesClaim: 'scope' });
    expect(await v.verify(await sign(rsa, { org: { id: 'acme' }, scope: 'agent  tenant-admin' }))).to.deep.equal({ tenant: 'acme', subject: 'user-1', roles: ['agent', 'tenant-admin'], groups: [] });
    expect(await v.verify(await sign(ec, { org: { id: 42 }, scope: ['agent', 'agent'] }))).to.deep.equal({ tenant: '42', subject: 'user-1', roles: ['agent'], groups: [] });
    const namespaced = verifierFor({ tenantClaim: 'https://toolcat.example/tenant' });
    expect((await namespaced.verify(await sign(rsa, { 'https://toolcat.example/tenant': 'globex' })))?.tenant).to.equal('globex');
    expect(await verifierFor().verify(await sign(rsa, { roles: undefined }))).to.deep.equal({ tenant: 'acme', subject: 'user-1', roles: [], groups: [] });
    expect(reasons).to.deep.equal([]);
  });

  it('applies the clock tolerance to exp and nbf, and no more', async () => {
    const v = verifierFor({ clockToleranceSec: 30 });
    expect(await v.verify(await sign(rsa, { exp: now() - 120 }))).to.equal(null);
    expect(lastReason()).to.equal('expired');
    expect(await v.verify(await sign(rsa, { nbf: now() + 120 }))).to.equal(null);
    expect(lastReason()).to.equal('not_yet_valid');
    expect(await v.verify(await sign(rsa, { exp: now() - 10 }))).to.not.equal(null);
    expect(await v.verify(await sign(rsa, { nbf: now() + 10 }))).to.not.equal(null);
  });

  const refusals: Array<[string, JwtRejectReason, () => Promise<string>]> = [
    ['a signature by another key with the same kid', 'bad_signature', () => sign(impostor)],
    ['a wrong audience', 'wrong_audience', () => sign(rsa, { aud: 'someone-else' })],
    ['a wrong issuer', 'wrong_issuer', () => sign(rsa, { iss: 'https://evil.test/' })],
    ['no exp at all', 'missing_claim', () => new SignJWT({ tenant: 'acme' }).setProtectedHeader({ alg: 'RS256', kid: 'rsa-a' }).setIssuer(ISS).setAudience(AUD).setSubject('u').sign(rsa.privateKey)],
    ['alg:none (unsigned)', 'alg_not_allowed', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ iss: ISS, aud: AUD, sub: 'u', tenant: 'acme', exp: now() + 300 })}.`],
    ['HS256 signed with the public key as secret (key confusion)', 'alg_not_allowed', async () =>
      new SignJWT({ tenant: 'acme' }).setProtectedHeader({ alg: 'HS256', kid: 'rsa-a' }).setIssuer(ISS).setAudience(AUD).setSubject('u').setExpirationTime(now() + 300)
        .sign(new TextEncoder().encode(await exportSPKI(await (await import('jose')).importJWK(rsa.jwk, 'RS256') as CryptoKey)))],
    ['a missing tenant claim', 'missing_claim', () => sign(rsa, { tenant: undefined })],
    ['a tenant claim of the wrong type', 'invalid_claim', () => sign(rsa, { tenant: { id: 'x' } })],
    ['roles that are not strings', 'invalid_claim', () => sign(rsa, { roles: [1, 2] })],
    ['a token of another type (logout+jwt)', 'malformed', () => sign(rsa, {}, { typ: 'logout+jwt' })],
    ['a tampered payload', 'bad_signature', async () => {
      const [h, , s] = (await sign(rsa)).split('.');
      return `${h}.${b64url({ iss: ISS, aud: AUD, sub: 'admin', tenant: 'acme', exp: now() + 300 })}.${s}`;
    }],
    ['garbage', 'malformed', async () => 'not-a-token'],
    ['three segments of nonsense', 'malformed', async () => 'abc.def.ghi'],
    ['an oversize token', 'oversize', async () => `${'a'.repeat(MAX_JWT_LENGTH)}.b.c`],
  ];
  for (const [what, reason, make] of refusals) {
    it(`refuses ${what} with null (reason ${reason}, not thrown)`, async () => {
      expect(await verifierFor().verify(await make())).to.equal(null);
      expect(lastReason()).to.equal(reason);
    });
  }

  // No wall clock decides these (issue 13): a cooldown of 0 lets every unknown kid refetch at once, one of a minute
  // outlasts any burst the test can make, so neither depends on how fast the machine is.
  it('refetches the JWKS for an unknown kid (key rotation) when no cooldown holds it back', async () => {
    const before = jwks.state.requests;
    const v = verifierFor({ jwksCooldownMs: 0 });
    expect(await v.verify(await sign(rsa))).to.not.equal(null);
    expect(jwks.state.requests).to.equal(before + 1);
    jwks.state.keys = [rotated.jwk]; // the IdP rotates to a new key
    expect(await v.verify(await sign(rotated))).to.not.equal(null);
    expect(jwks.state.requests).to.equal(before + 2);
  });

  it('within a cooldown, a burst of tokens with kids nobody has is refused and does not hammer the endpoint', async () => {
    jwks.state.keys = [rsa.jwk];
    const before = jwks.state.requests;
    const v = verifierFor({ jwksCooldownMs: 60_000 });
    expect(await v.verify(await sign(rsa))).to.not.equal(null);
    const unknown = await Promise.all(Array.from({ length: 20 }, (_, i) => sign({ ...impostor, kid: `nope-${i}` })));
    const results = await Promise.all(unknown.map((t) => v.verify(t)));
    for (const t of unknown.slice(0, 5)) results.push(await v.verify(t));
    expect(results.every((r) => r === null)).to.equal(true);
    expect(jwks.state.requests - before, 'the first fetch, and at most one refetch for all 25 unknown kids').to.be.at.most(2);
    expect(reasons).to.include('unknown_key');
  });

  it('with the default cooldown, 50 unknown-kid tokens cost one fetch in all', async () => {
    const before = jwks.state.requests;
    const v = verifierFor();
    for (let i = 0; i < 50; i++) expect(await v.verify(await sign({ ...impostor, kid: `k${i}` }))).to.equal(null);
    expect(jwks.state.requests - before).to.equal(1);
  });

  it('answers null (jwks_unavailable) when the JWKS endpoint fails or is down, and backs off', async () => {
    jwks.state.fail = true;
    const before = jwks.state.requests;
    const v = verifierFor();
    const token = await sign(rsa);
    expect(await v.verify(token)).to.equal(null);
    expect(await v.verify(token)).to.equal(null);
    expect(jwks.state.requests - before, 'the second attempt does not refetch').to.equal(1);
    expect(reasons).to.deep.equal(['jwks_unavailable', 'jwks_unavailable']);

    const down = createServer();
    const deadUrl = await listen(down);
    await close(down);
    const dead = createJwtVerifier({ issuer: ISS, audience: AUD, jwksUrl: deadUrl, jwksTimeoutMs: 500 }, { onReject: (r) => reasons.push(r) });
    expect(await dead.verify(token)).to.equal(null);
    expect(lastReason()).to.equal('jwks_unavailable');
  });

  it('never throws, even for non-strings or a throwing onReject', async () => {
    const v = createJwtVerifier({ issuer: ISS, audience: AUD, jwksUrl: url }, { onReject: () => { throw new Error('logger down'); } });
    expect(await v.verify(undefined as unknown as string)).to.equal(null);
    expect(await v.verify('a.b.c')).to.equal(null);
  });

  it('works from static public keys with no network', async () => {
    const v = createJwtVerifier({ issuer: ISS, audience: [AUD, 'other'], staticKeys: [rsa.jwk, ec.jwk] });
    const before = jwks.state.requests;
    expect(await v.verify(await sign(ec))).to.deep.equal({ tenant: 'acme', subject: 'user-1', roles: ['agent'], groups: [] });
    expect(await v.verify(await sign(impostor))).to.equal(null);
    expect(jwks.state.requests).to.equal(before);
  });

  it('refuses dangerous configuration at creation', () => {
    const base = { issuer: ISS, audience: AUD };
    const bad: Array<[Partial<JwtConfig>, RegExp]> = [
      [{ staticKeys: [{ ...rsa.jwk, d: 'private' }] }, /public asymmetric key/],
      [{ staticKeys: [{ kty: 'oct', k: 'c2VjcmV0' }] }, /public asymmetric key/],
      [{ staticKeys: [rsa.jwk], algorithms: ['HS256'] }, /"HS256" is not allowed/],
      [{ staticKeys: [rsa.jwk], algorithms: ['none'] }, /"none" is not allowed/],
      [{ jwksUrl: 'http://idp.example.com/jwks' }, /https/],
      [{}, /exactly one of jwksUrl and staticKeys/],
      [{ jwksUrl: url, staticKeys: [rsa.jwk] }, /exactly one/],
      [{ staticKeys: [rsa.jwk], issuer: '', audience: [] }, /issuer is required; audience is required/],
    ];
    for (const [cfg, re] of bad) expect(() => createJwtVerifier({ ...base, ...cfg } as JwtConfig)).to.throw(JwtConfigError, re);
  });
});

describe(looksLikeJwt.name, () => {
  it('routes three base64url segments (also with an empty signature), and nothing else', () => {
    expect(looksLikeJwt('eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln')).to.equal(true);
    expect(looksLikeJwt('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ1In0.')).to.equal(true);
    for (const s of ['tc_abcdef', 'a.b', 'a.b.c.d', 'a+b.c.d', '', `${'a'.repeat(MAX_JWT_LENGTH)}.b.c`]) expect(looksLikeJwt(s), s.slice(0, 20)).to.equal(false);
  });
});
