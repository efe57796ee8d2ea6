import type { RequestHandler } from 'express';
import type { ParseOptions, ValidationRule } from 'graphql';
import { createComplexityRule } from './complexity';
import { graphqlJsonBody, rejectBatchedRequests } from './http-guards';
import { maxAliasesRule, maxDepthRule } from './shape-rules';

export { complexityLimitPlugin, createComplexityRule, defaultEstimators } from './complexity';
export { maxAliasesRule, maxDepthRule } from './shape-rules';
export { schemaVisibilityPlugin } from './schema-visibility.plugin';
export { DEFAULT_GRAPHQL_LIMITS, type GraphQLLimits } from '../../config/graphql-settings';
import type { GraphQLLimits } from '../../config/graphql-settings';


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
