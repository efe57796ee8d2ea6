import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { Principal } from '../catalog/principal';
import { AUTHENTICATION_REQUIRED } from '../catalog/admin-scope';
import type { GraphQLContext } from './context';

/** Authentication only. Authorization of reads is the scoped query; of admin operations, services/admin-scope. */
export function requirePrincipal(ctx: GraphQLContext): Principal {
  if (!ctx.principal) throw new CatalogError(CatalogErrorCode.Unauthenticated, AUTHENTICATION_REQUIRED);
  return ctx.principal;
}
