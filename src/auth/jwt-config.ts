import type { JWK } from 'jose';
import type { JwtConfig } from '../config/jwt-settings';

export type { JwtConfig } from '../config/jwt-settings';

/** Why a token was refused. Logged by the caller; never sent to the client. */
export type JwtRejectReason =
  | 'expired' | 'not_yet_valid' | 'bad_signature' | 'unknown_key' | 'wrong_audience' | 'wrong_issuer'
  | 'alg_not_allowed' | 'malformed' | 'oversize' | 'missing_claim' | 'invalid_claim' | 'jwks_unavailable';

const DEFAULT_JWT_ALGORITHMS: readonly string[] = Object.freeze(['RS256', 'ES256', 'EdDSA', 'PS256']);

// Only asymmetric algorithms: with a public key as verification key, HS* would let anyone who can read the JWKS
// mint tokens (key confusion), and 'none' needs no key at all.
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);
const PRIVATE_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface ResolvedJwtConfig {
  readonly issuer: string;
  readonly audience: string | string[];
  readonly jwksUrl: string | null;
  readonly staticKeys: readonly JWK[];
  readonly algorithms: string[];
  readonly clockToleranceSec: number;
  readonly tenantClaim: string;
  readonly subjectClaim: string;
  readonly rolesClaim: string;
  readonly groupsClaim: string;
  readonly jwksCacheMaxAgeMs: number;
  readonly jwksCooldownMs: number;
  readonly jwksTimeoutMs: number;
}

export class JwtConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid JWT configuration: ${problems.join('; ')}`);
    this.name = 'JwtConfigError';
  }
}

const nonNegative = (v: number | undefined, fallback: number, name: string, problems: string[]) => {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 0) problems.push(`${name} must be a non-negative integer`);
  return v;
};

/** Validates everything at once (one error listing every problem) and fills in the defaults. */
export function resolveJwtConfig(c: JwtConfig): ResolvedJwtConfig {
  const problems: string[] = [];
  if (typeof c.issuer !== 'string' || c.issuer === '') problems.push('issuer is required');
  const audiences = Array.isArray(c.audience) ? c.audience : [c.audience];
  if (audiences.length === 0 || audiences.some((a) => typeof a !== 'string' || a === '')) problems.push('audience is required');
  if ((c.jwksUrl === undefined) === (c.staticKeys === undefined)) problems.push('exactly one of jwksUrl and staticKeys is required');
  if (c.jwksUrl !== undefined) {
    let url: URL | null = null;
    try {
      url = new URL(c.jwksUrl);
    } catch {
      problems.push('jwksUrl is not a URL');
    }
    // Keys fetched over plain http could be swapped by anyone on the path.
    if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) problems.push('jwksUrl must use https (http only on a loopback host)');
  }
  if (c.staticKeys !== undefined) {
    if (!Array.isArray(c.staticKeys) || c.staticKeys.length === 0) problems.push('staticKeys must be a non-empty array');
    else
      c.staticKeys.forEach((k, i) => {
        if (k.kty === 'oct' || PRIVATE_JWK_MEMBERS.some((m) => Object.hasOwn(k, m))) problems.push(`staticKeys[${i}] must be a public asymmetric key`);
      });
  }
  const algorithms = c.algorithms ?? [...DEFAULT_JWT_ALGORITHMS];
  if (algorithms.length === 0) problems.push('algorithms must not be empty');
  for (const a of algorithms) if (!ASYMMETRIC.has(a)) problems.push(`algorithm ${JSON.stringify(a)} is not allowed (asymmetric algorithms only)`);
  const clockToleranceSec = nonNegative(c.clockToleranceSec, 30, 'clockToleranceSec', problems);
  if (clockToleranceSec > 300) problems.push('clockToleranceSec must be at most 300');
  const claim = (v: string | undefined, fallback: string, name: string) => {
    if (v !== undefined && (typeof v !== 'string' || v === '')) problems.push(`${name} must be a non-empty string`);
    return v ?? fallback;
  };
  const resolved: ResolvedJwtConfig = {
    issuer: c.issuer,
    audience: c.audience,
    jwksUrl: c.jwksUrl ?? null,
    staticKeys: c.staticKeys ?? [],
    algorithms,
    clockToleranceSec,
    tenantClaim: claim(c.tenantClaim, 'tenant', 'tenantClaim'),
    subjectClaim: claim(c.subjectClaim, 'sub', 'subjectClaim'),
    rolesClaim: claim(c.rolesClaim, 'roles', 'rolesClaim'),
    groupsClaim: claim(c.groupsClaim, 'groups', 'groupsClaim'),
    jwksCacheMaxAgeMs: nonNegative(c.jwksCacheMaxAgeMs, 600_000, 'jwksCacheMaxAgeMs', problems),
    jwksCooldownMs: nonNegative(c.jwksCooldownMs, 30_000, 'jwksCooldownMs', problems),
    jwksTimeoutMs: nonNegative(c.jwksTimeoutMs, 5_000, 'jwksTimeoutMs', problems),
  };
  if (problems.length > 0) throw new JwtConfigError(problems);
  return resolved;
}
