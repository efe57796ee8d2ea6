import { type Principal, type Role, ROLES } from '../catalog/principal';
import type { JwtIdentity } from './claims';
import { type JwtVerifier, MAX_JWT_LENGTH, looksLikeJwt } from './jwt-verifier';
import { sha256Hex } from '../shared/sha256';

/**
 * One place that turns an `Authorization: Bearer …` value into a Principal, whichever kind it is (issue 5):
 * API keys (`tc_…`) keep working, JWTs go to the OIDC verifier. A refused credential of either kind is the same
 * `null`, so the HTTP answer (401 + WWW-Authenticate) cannot tell an attacker which check failed.
 */


// RFC 6750 b64token; the scheme name is case-insensitive (RFC 9110 section 11.1). Long enough for RSA-signed JWTs.
const BEARER = new RegExp(`^Bearer +([A-Za-z0-9._~+/-]{1,${MAX_JWT_LENGTH}}=*)$`, 'i');

/** The credential in an Authorization header value, or null when absent, repeated or malformed. */
export function parseBearerHeader(raw: string | string[] | undefined): string | null {
  if (typeof raw !== 'string' || raw.length > MAX_JWT_LENGTH + 16) return null;
  const m = BEARER.exec(raw);
  return m ? m[1] : null;
}

export type BearerKind = 'api-key' | 'jwt' | 'unknown';

export function bearerKind(credential: string): BearerKind {
  if (credential.startsWith('tc_')) return 'api-key';
  return looksLikeJwt(credential) ? 'jwt' : 'unknown';
}

export interface JwtPrincipalOptions {
  /** The tenant a token's tenant claim names (by id or by name, as the deployment decides); null when unknown. */
  resolveTenant(claim: string): Promise<{ id: string; name: string } | null>;
  /**
   * Token role → catalog role. Default: `agent` and `tenant-admin` map to themselves; `host-admin` (which manages
   * every tenant) is never granted by a token unless listed here on purpose.
   */
  readonly roleMap?: Readonly<Record<string, Role>>;
  /** Role for a token that carries no mapped role. Default null: such a token is refused. */
  readonly defaultRole?: Role | null;
  /** Issuer, to namespace principal ids (two IdPs may reuse a subject). */
  readonly issuer: string;
}

const DEFAULT_ROLE_MAP: Readonly<Record<string, Role>> = Object.freeze({ agent: 'agent', 'tenant-admin': 'tenant-admin' });

/**
 * The Principal for a verified JWT identity: the tenant must exist, the role is the strongest mapped one. The id
 * is `jwt:` + 32 hex of SHA-256(issuer, tenant id, subject): 36 characters like a UUID, stable, never equal to
 * the id of a stored principal, and different in every tenant (issue 11 defect 1: with issuer and subject alone,
 * one subject in two tenants was one principal to every per-principal cache and budget). Narrowing comes from
 * the token's groups (issue 11 defect 7): grants naming one of them narrow this principal.
 */
export async function principalFromJwt(identity: JwtIdentity, opts: JwtPrincipalOptions): Promise<Principal | null> {
  const roleMap = opts.roleMap ?? DEFAULT_ROLE_MAP;
  const mapped = identity.roles.flatMap((r) => (Object.hasOwn(roleMap, r) ? [roleMap[r]] : []));
  const role = mapped.length > 0 ? ROLES.filter((r) => mapped.includes(r)).at(-1)! : opts.defaultRole ?? null;
  if (role === null) return null;
  const tenant = await opts.resolveTenant(identity.tenant);
  if (!tenant) return null;
  const id = `jwt:${sha256Hex(`${opts.issuer}\u0000${tenant.id}\u0000${identity.subject}`).slice(0, 32)}`;
  const groups = [...new Set(identity.groups)].sort();
  return { id, kind: 'jwt', tenantId: tenant.id, tenantName: tenant.name, name: identity.subject, role, groups };
}

export interface BearerAuthenticatorOptions {
  /** The existing API-key check (TenancyService.authenticate). */
  authenticateApiKey(key: string): Promise<Principal | null>;
  /** Present when OIDC is configured. */
  readonly jwt?: { readonly verifier: JwtVerifier; readonly principal: (identity: JwtIdentity) => Promise<Principal | null> };
}

/** credential → Principal | null. Errors of the API-key store propagate (they are 500s, not 401s). */
export function createBearerAuthenticator(opts: BearerAuthenticatorOptions): (credential: string) => Promise<Principal | null> {
  return async (credential) => {
    const kind = bearerKind(credential);
    if (kind === 'api-key') return opts.authenticateApiKey(credential);
    if (kind === 'jwt' && opts.jwt) {
      const identity = await opts.jwt.verifier.verify(credential);
      return identity ? opts.jwt.principal(identity) : null;
    }
    return null;
  };
}
