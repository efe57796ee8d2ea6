import { CatalogError, CatalogErrorCode } from './catalog.errors';
import type { Principal, Role } from './principal';

/** What every transport says to a caller without an accepted credential (one text for every reason). */
export const AUTHENTICATION_REQUIRED = 'A valid API key is required (Authorization: Bearer <key>).';

/**
 * Function-level authorization for admin operations (OWASP API5). Reads of the catalog never go through
 * here: they are scoped in the query and answer null, not FORBIDDEN (TC-CAT-4).
 */
export function requireRole(p: Principal | null, ...roles: Role[]): Principal {
  if (!p) throw new CatalogError(CatalogErrorCode.Unauthenticated, AUTHENTICATION_REQUIRED);
  if (!roles.includes(p.role)) {
    throw new CatalogError(CatalogErrorCode.Forbidden, `This operation requires the ${roles.join(' or ')} role; your principal has the ${p.role} role.`);
  }
  return p;
}

/** The tenant an admin may act on: a host admin any, a tenant admin only its own (null = no restriction). */
export function tenantScopeOf(p: Principal): string | null {
  return p.role === 'host-admin' ? null : p.tenantId;
}

/** What an admin operation answers for anything outside the actor's scope: the same as for what does not exist. */
export function notFound(what: string): CatalogError {
  return new CatalogError(CatalogErrorCode.NotFound, `No ${what} with this id in your scope.`);
}
