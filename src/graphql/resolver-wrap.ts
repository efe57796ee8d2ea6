import { type GraphQLSchema, isObjectType } from 'graphql';
import type { Logger } from '../shared/logger';
import { auditedMutation } from './audit.middleware';
import { translatingCatalogErrors } from './errors';

const WRAPPED = Symbol('toolcat.wrappedResolver');

/** Was this resolver made by wrapResolvers? (The schema tests check that every face's every field was.) */
export function isWrappedResolver(resolve: unknown): boolean {
  return typeof resolve === 'function' && (resolve as { [WRAPPED]?: true })[WRAPPED] === true;
}

/**
 * What every resolver of the executable schema does besides its own work: domain errors become GraphQL errors with
 * their code (errors.ts), and each admin mutation runs in an audit scope (audit.middleware.ts). Wrapped once, here,
 * on the built schema, rather than as type-graphql global middlewares: those run on every field of every answer, a
 * plain property read included, as a chain of async functions (bench scenario i: ~8 promises for each of a call's
 * fields, with the request scope's async hooks on each). A wrapped synchronous resolver stays synchronous.
 * The HTTP schemas (agent-schema.ts) copy these very field configs, so every face gets the same wrapping.
 */
export function wrapResolvers(schema: GraphQLSchema, log: Logger | undefined): GraphQLSchema {
  const mutation = schema.getMutationType();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      // A field without its own resolver is graphql's default property read: it cannot raise a domain error.
      if (!field.resolve) continue;
      const translated = translatingCatalogErrors<unknown, Record<string, unknown>>(field.resolve as never);
      const wrapped = type === mutation && log ? auditedMutation(translated, log) : translated;
      field.resolve = Object.assign(wrapped, { [WRAPPED]: true as const }) as typeof field.resolve;
    }
  }
  return schema;
}

