import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { Principal } from '../catalog/principal';
import type { GraphQLContext } from './context';

/** Authentication only. Authorization of reads is the scoped query; of admin operations, services/admin-scope. */
export function requirePrincipal(ctx: GraphQLContext): Principal {
  if (!ctx.principal) throw new CatalogError(CatalogErrorCode.Unauthenticated, 'A valid API key is required (Authorization: Bearer <key>).');
  return ctx.principal;
}
