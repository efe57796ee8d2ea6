import type { Config } from '../config/config';
import type { Principal } from '../catalog/principal';
import type { TenancyService } from '../services/tenancy.service';
import type { Logger } from '../shared/logger';
import { createBearerAuthenticator, principalFromJwt } from './bearer';
import { createJwtVerifier } from './jwt-verifier';

/**
 * API keys always; OIDC JWTs when TOOLCAT_JWT_ISSUER is set. A JWT's tenant claim names a tenant (by name);
 * why a token was refused is logged, never answered.
 */
export function createAuthenticator(config: Config, tenancy: TenancyService, log: Logger): (credential: string) => Promise<Principal | null> {
  const jwt = config.security.jwt;
  const verifier = jwt ? createJwtVerifier(jwt.config, { onReject: (reason) => log.info({ reason }, 'bearer token refused') }) : null;
  return createBearerAuthenticator({
    authenticateApiKey: (k) => tenancy.authenticate(k),
    jwt:
      verifier && jwt
        ? {
            verifier,
            principal: (identity) =>
              principalFromJwt(identity, {
                issuer: jwt.config.issuer,
                roleMap: jwt.roleMap,
                defaultRole: jwt.defaultRole,
                resolveTenant: async (name) => {
                  const t = await tenancy.findTenantByName(name);
                  return t && { id: t.id, name: t.name };
                },
              }),
          }
        : undefined,
  });
}
