import type { RequestHandler } from 'express';
import type { ParseOptions, ValidationRule } from 'graphql';
import { createComplexityRule } from './complexity';
import { graphqlJsonBody, rejectBatchedRequests } from './http-guards';
import { maxAliasesRule, maxDepthRule } from './shape-rules';

export { type ComplexityRuleOptions, type CostModel, complexityLimitPlugin, createComplexityRule, defaultEstimators } from './complexity';
export { graphqlJsonBody, rejectBatchedRequests } from './http-guards';
export { maxAliasesRule, maxDepthRule } from './shape-rules';
export { type IntrospectionMode, maySeeAdminSchema, schemaVisibilityPlugin } from './schema-visibility.plugin';

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

/**
 * Validation rules for ApolloServer's `validationRules`: depth and aliases. With `variables` (graphql-js
 * `validate` outside Apollo, where they are known) the cost rule is included too; under Apollo the cost limit is
 * `complexityLimitPlugin`, because Apollo validates before it has the variables and caches validated documents.
 */
export function validationRulesFor(limits: GraphQLLimits, opts: { variables?: Record<string, unknown> } = {}): ValidationRule[] {
  const rules = [maxDepthRule(limits.maxDepth), maxAliasesRule(limits.maxAliases)];
  if (opts.variables !== undefined) rules.push(createComplexityRule({ maximumComplexity: limits.maxComplexity, variables: opts.variables }));
  return rules;
}

/** ApolloServer's `parseOptions`: the token limit stops a huge document during parsing, before any rule runs. */
export function parseOptionsFor(limits: GraphQLLimits): ParseOptions {
  return { maxTokens: limits.maxTokens };
}

/** The middleware to mount on /graphql in place of `express.json()`: body size, then batching. */
export function graphqlHttpGuards(limits: GraphQLLimits): RequestHandler[] {
  return [graphqlJsonBody(limits.maxRequestBytes), rejectBatchedRequests(limits.maxBatch)];
}
