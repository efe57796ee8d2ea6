import type { ApolloServerPlugin, GraphQLResponse } from '@apollo/server';
import { BREAK, type DocumentNode, GraphQLError, visit } from 'graphql';
import type { Principal } from '../../catalog/principal';
import type { GraphQLContext } from '../context';
import type { IntrospectionMode } from '../../config/graphql-settings';

/**
 * Who may learn the schema's names (issue 11, defect 4: schema enumeration). One schema serves agents and admins,
 * so without this an anonymous caller could read the admin half through introspection, or guess near an admin
 * name and be told the real one by graphql-js ("Did you mean "sources"?", for unknown fields, arguments, types,
 * input fields and enum values, in validation and in variable coercion alike).
 *
 * - Introspection (`__schema`, `__type`; `__typename` is not schema introspection and stays open): `off` for
 *   everyone, `admins` for tenant and host admins only, `all` for every caller (TOOLCAT_GRAPHQL_INTROSPECTION).
 * - Suggestions are removed from every error message sent to a caller who is not an admin (anonymous, a refused
 *   credential, an agent). Admins keep them: they may read the whole schema anyway.
 *
 * Decided per request from the request's principal, so it cannot live in a validation rule (Apollo caches
 * validated documents across callers) nor use Apollo's global `hideSchemaDetailsFromClientErrors` (which in
 * 5.5 also covers validation only, not variable coercion).
 */

export function maySeeAdminSchema(p: Principal | null): boolean {
  return p?.role === 'host-admin' || p?.role === 'tenant-admin';
}

const REFUSED: Record<Exclude<IntrospectionMode, 'all'>, string> = {
  off: 'GraphQL introspection is not allowed on this server (TOOLCAT_GRAPHQL_INTROSPECTION=off).',
  admins: 'GraphQL introspection is not allowed for this caller: it is open to tenant and host admins only.',
};

export function schemaVisibilityPlugin(mode: IntrospectionMode): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ contextValue }) {
      const admin = maySeeAdminSchema(contextValue?.principal ?? null);
      const introspectionAllowed = mode === 'all' || (mode === 'admins' && admin);
      return {
        async didResolveOperation({ document }) {
          if (!introspectionAllowed && usesIntrospection(document)) {
            throw new GraphQLError(REFUSED[mode === 'off' ? 'off' : 'admins'], { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
          }
        },
        async willSendResponse({ response }) {
          if (!admin) withoutSuggestions(response.body);
        },
      };
    },
  };
}

/** Any `__schema` or `__type` field, in any operation or fragment of the document (aliases do not hide it). */
function usesIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

// graphql-js writes suggestions as ` Did you mean "a", "b", or "c"?` (names hold no "?").
const SUGGESTION = /\s*Did you mean [^?]*\?/g;

function withoutSuggestions(body: GraphQLResponse['body']): void {
  const result = body.kind === 'single' ? body.singleResult : body.initialResult;
  if (!result.errors?.length) return;
  (result as { errors: typeof result.errors }).errors = result.errors.map((e) => {
    const message = e.message.replace(SUGGESTION, '');
    return message === e.message ? e : { ...e, message };
  });
}
