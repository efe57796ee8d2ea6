import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.d.ts';

/**
 * Typed GraphQL operations (gql.tada): every `graphql(...)` document is checked against schema.graphql at compile
 * time (`tsc -p admin/tsconfig.json` in `npm run build:admin`), and its result and variables types are inferred.
 * graphql-env.d.ts is generated from schema.graphql by `gql.tada generate output`, so a schema change that breaks
 * an operation breaks the build.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { JSON: unknown; JSONObject: Record<string, unknown>; JSONDocument: string };
}>();

export type { ResultOf } from 'gql.tada';
