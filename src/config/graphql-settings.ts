/**
 * GraphQL hardening settings (issue 5; issue 11 defect 4). They live in config/ with their defaults, below the
 * GraphQL layer that applies them, so the configuration never imports upward (issue 13: the layering is a DAG).
 */
/** GraphQL hardening limits (issue 5). */
export interface GraphQLLimits {
  /** Deepest field nesting in one operation (fragments see-through). */
  readonly maxDepth: number;
  /** Most aliased fields in one operation (fragment spreads counted in full). */
  readonly maxAliases: number;
  /** Highest cost of one operation (see complexity.ts for the cost model). */
  readonly maxComplexity: number;
  /** Most lexical tokens in a document; the parser stops at this many. */
  readonly maxTokens: number;
  /** Most operations in one HTTP request; 1 turns batching off. */
  readonly maxBatch: number;
  /** Largest HTTP request body. */
  readonly maxRequestBytes: number;
}

/** Room for every admin dashboard query and the full introspection query Apollo Sandbox sends; far below abuse. */
export const DEFAULT_GRAPHQL_LIMITS: GraphQLLimits = Object.freeze({
  maxDepth: 12,
  maxAliases: 30,
  maxComplexity: 5000,
  maxTokens: 5000,
  maxBatch: 1,
  maxRequestBytes: 1024 * 1024,
});

/** Who may introspect the schema (TOOLCAT_GRAPHQL_INTROSPECTION): nobody, tenant and host admins, or every caller. */
export type IntrospectionMode = 'off' | 'admins' | 'all';

/** What a browser gets at /graphql (TOOLCAT_GRAPHQL_IDE, issue 20): bundled GraphiQL, Apollo Sandbox (CDN), or nothing. */
export type GraphQLIde = 'graphiql' | 'sandbox' | 'off';
