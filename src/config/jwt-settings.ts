import type { JWK } from 'jose';

/**
 * OIDC/JWT bearer settings (issue 5), as configuration declares them; auth/jwt-config.ts validates and resolves
 * them (config/ sits below auth/, issue 13). Exactly one key source: `jwksUrl` or `staticKeys`.
 */
export interface JwtConfig {
  /** Expected `iss`, exactly. */
  readonly issuer: string;
  /** Expected `aud` (one of them must appear in the token). */
  readonly audience: string | string[];
  /** The IdP's JWKS endpoint: https, or http on a loopback host only. */
  readonly jwksUrl?: string;
  /** Public JWKs (no private members, no symmetric keys). */
  readonly staticKeys?: JWK[];
  /** Allowed signature algorithms; asymmetric only. Default DEFAULT_JWT_ALGORITHMS. */
  readonly algorithms?: string[];
  /** Tolerance on exp/nbf for clock drift between IdP and us. Default 30 s. */
  readonly clockToleranceSec?: number;
  /** Default 'tenant'; a dotted path ('org.id') or a literal (namespaced) claim name. */
  readonly tenantClaim?: string;
  /** Default 'sub'. */
  readonly subjectClaim?: string;
  /** Default 'roles'; an array of strings or a space-separated string. */
  readonly rolesClaim?: string;
  /** Default 'groups'; same forms as rolesClaim. Names the narrowing grant groups of the token's principal. */
  readonly groupsClaim?: string;
  /** How long fetched keys are trusted before a refetch. Default 10 min. */
  readonly jwksCacheMaxAgeMs?: number;
  /** Least time between two refetches triggered by unknown kids. Default 30 s. */
  readonly jwksCooldownMs?: number;
  /** JWKS fetch timeout. Default 5 s. */
  readonly jwksTimeoutMs?: number;
}
