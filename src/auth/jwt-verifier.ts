import { type JWK, type JWTVerifyGetKey, createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { type JwtIdentity, identityFromClaims } from './claims';
import { type JwtConfig, type JwtRejectReason, type ResolvedJwtConfig, resolveJwtConfig } from './jwt-config';

export { JwtConfigError, type JwtConfig, type JwtRejectReason } from './jwt-config';

/** Longest token we parse. Real access tokens are 1 to 3 KiB; the bound keeps hostile input cheap. */
export const MAX_JWT_LENGTH = 8192;

export interface JwtVerifier {
  /** The identity in a valid token; null for anything else. Never throws. */
  verify(token: string): Promise<JwtIdentity | null>;
}

export interface JwtVerifierHooks {
  /** Why a token was refused: for logs and metrics only, never for the HTTP client (issue 5). */
  readonly onReject?: (reason: JwtRejectReason) => void;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Three base64url segments (the signature may be empty, as in alg:none): route it to the JWT verifier. */
export function looksLikeJwt(s: string): boolean {
  return typeof s === 'string' && s.length <= MAX_JWT_LENGTH && JWT_SHAPE.test(s);
}

// RFC 9068 access tokens say at+jwt; ID tokens say JWT or nothing. Anything else (logout+jwt, dpop+jwt, …) is
// another kind of token that must not be accepted as a bearer credential.
const ACCEPTED_TYP = new Set(['jwt', 'at+jwt', 'application/jwt', 'application/at+jwt']);

/** Raised by our key resolver when the JWKS endpoint cannot give keys (as opposed to lacking this token's key). */
class JwksUnavailable extends Error {}

/**
 * OIDC/JWT bearer verification (issue 5) with jose: keys from a JWKS URL (cached; refetched on an unknown kid,
 * at most once per cooldown) or from configured public keys. Checks the signature with an allow-listed
 * asymmetric algorithm, iss, aud, exp (required) and nbf with a small clock tolerance, then maps tenant, subject
 * and roles from the configured claims. Throws JwtConfigError at creation for a misconfiguration.
 */
export function createJwtVerifier(config: JwtConfig, hooks: JwtVerifierHooks = {}): JwtVerifier {
  const cfg = resolveJwtConfig(config);
  const getKey = cfg.jwksUrl ? remoteKeys(cfg) : createLocalJWKSet({ keys: cfg.staticKeys as JWK[] });
  const reject = (reason: JwtRejectReason): null => {
    try {
      hooks.onReject?.(reason);
    } catch {
      // A failing logger must not turn a refusal into an error.
    }
    return null;
  };

  return {
    async verify(token) {
      try {
        if (typeof token !== 'string') return reject('malformed');
        if (token.length > MAX_JWT_LENGTH) return reject('oversize');
        if (!JWT_SHAPE.test(token)) return reject('malformed');
        const header = decodeProtectedHeader(token);
        // Refuse before any key lookup: alg:none, HS* key confusion and unknown algorithms never reach the JWKS.
        if (typeof header.alg !== 'string' || !cfg.algorithms.includes(header.alg)) return reject('alg_not_allowed');
        if (header.typ !== undefined && !ACCEPTED_TYP.has(String(header.typ).toLowerCase())) return reject('malformed');
        const { payload } = await jwtVerify(token, getKey, {
          issuer: cfg.issuer,
          audience: cfg.audience,
          algorithms: cfg.algorithms,
          clockTolerance: cfg.clockToleranceSec,
          requiredClaims: ['exp', 'iss', 'aud'],
        });
        const identity = identityFromClaims(payload, cfg);
        return typeof identity === 'string' ? reject(identity) : identity;
      } catch (err) {
        return reject(reasonOf(err));
      }
    },
  };
}

function remoteKeys(cfg: ResolvedJwtConfig): JWTVerifyGetKey {
  const set = createRemoteJWKSet(new URL(cfg.jwksUrl!), {
    cacheMaxAge: cfg.jwksCacheMaxAgeMs,
    cooldownDuration: cfg.jwksCooldownMs,
    timeoutDuration: cfg.jwksTimeoutMs,
  });
  // jose keeps no memory of a failed fetch: without this, every request would wait on a dead IdP again.
  const failureBackoffMs = Math.min(cfg.jwksCooldownMs, 5000);
  let failedAt = Number.NEGATIVE_INFINITY;
  return async (header, token) => {
    if (Date.now() - failedAt < failureBackoffMs) throw new JwksUnavailable();
    try {
      return await set(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys || err instanceof errors.JOSENotSupported) throw err;
      failedAt = Date.now();
      throw new JwksUnavailable();
    }
  };
}

function reasonOf(err: unknown): JwtRejectReason {
  if (err instanceof JwksUnavailable) return 'jwks_unavailable';
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return 'missing_claim';
    if (err.claim === 'aud') return 'wrong_audience';
    if (err.claim === 'iss') return 'wrong_issuer';
    if (err.claim === 'nbf') return 'not_yet_valid';
    return 'invalid_claim';
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'alg_not_allowed';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof errors.JWKSNoMatchingKey) return 'unknown_key';
  return 'malformed';
}
