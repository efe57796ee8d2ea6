import type { Config } from '../config/config';
import type { Principal } from '../catalog/principal';
import type { TenancyService } from '../services/tenancy.service';
import type { Logger } from '../shared/logger';
import { type JwtPrincipalOptions, createBearerAuthenticator, principalFromJwt } from './bearer';
import { identityFromClaims } from './claims';
import { resolveJwtConfig } from './jwt-config';
import { createJwtVerifier } from './jwt-verifier';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the rest of the service needs of identity: the bearer check, and the same mapping for a preview. */
export interface Identity {
  /** credential → Principal | null (one answer for every refusal). */
  authenticate(credential: string): Promise<Principal | null>;
  /**
   * The principal a token with these (already verified) claims would be, by exactly the mapping `authenticate`
   * applies: claim names, role map, tenant, groups (issue 11 defect 7: admins preview JWT principals described by
   * their claims). A string says why there would be none. null when OIDC is not configured.
   */
  readonly principalFromClaims: ((claims: Readonly<Record<string, unknown>>) => Promise<Principal | string>) | null;
}

/**
 * API keys always; OIDC JWTs when TOOLCAT_JWT_ISSUER is set. A JWT's tenant claim names a tenant (by name);
 * why a token was refused is logged, never answered.
 */
export function createIdentity(config: Config, tenancy: TenancyService, log: Logger): Identity {
  const jwt = config.security.jwt;
  const verifier = jwt ? createJwtVerifier(jwt.config, { onReject: (reason) => log.info({ reason }, 'bearer token refused') }) : null;
  const options: JwtPrincipalOptions | null = jwt
    ? {
        issuer: jwt.config.issuer,
        roleMap: jwt.roleMap,
        defaultRole: jwt.defaultRole,
        // By id when the claim holds one (immune to a tenant deleted and re-created under the same name), else by
        // name (issue 11 red-team note F12).
        resolveTenant: async (claim) => {
          const t = (UUID.test(claim) ? await tenancy.findTenantById(claim) : null) ?? (await tenancy.findTenantByName(claim));
          return t && { id: t.id, name: t.name };
        },
      }
    : null;
  const authenticate = createBearerAuthenticator({
    authenticateApiKey: (k) => tenancy.authenticate(k),
    jwt: verifier && options ? { verifier, principal: (identity) => principalFromJwt(identity, options) } : undefined,
  });
  const names = jwt ? resolveJwtConfig(jwt.config) : null;
  return {
    authenticate,
    principalFromClaims:
      names && options
        ? async (claims) => {
            const identity = identityFromClaims(claims, names);
            if (typeof identity === 'string') return `the claims do not describe an identity (${identity.replace('_', ' ')})`;
            return (await principalFromJwt(identity, options)) ?? 'no role of the token is mapped, or no tenant has that name';
          }
        : null,
  };
}
