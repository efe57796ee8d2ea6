import 'reflect-metadata';
import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { buildSchemaSync } from 'type-graphql';
import { CatalogResolver } from './catalog.resolver';
import { wrapResolvers } from './resolver-wrap';
import type { Logger } from '../shared/logger';
import type { AppServices } from './services';
import { TenancyResolver } from './tenancy.resolver';
import { AuditResolver } from './audit.resolver';
import { SourceResolver } from './source.resolver';
import { ToolAdminResolver } from './tool-admin.resolver';
import { CallResolver } from './call.resolver';
import { SearchResolver } from './search.resolver';
import { publicSchemaOf } from './agent-schema';

const RESOLVERS = [CatalogResolver, TenancyResolver, ToolAdminResolver, SourceResolver, AuditResolver, CallResolver, SearchResolver] as const;

/**
 * Builds the executable schema. Resolvers get their services through a map-backed container (no global
 * DI). With no services (SDL printing), resolvers are never instantiated.
 */
export function buildCatalogSchema(services: AppServices | null, log?: Logger): GraphQLSchema {
  const instances = new Map<unknown, unknown>(services ? RESOLVERS.map((R) => [R, new R(services)]) : []);
  // No type-graphql global middlewares: the error translation and the audit scope wrap the built resolvers
  // (resolver-wrap.ts), so a plain field costs a property read, not a chain of promises.
  const schema = buildSchemaSync({
    resolvers: [...RESOLVERS],
    container: { get: (cls) => instances.get(cls) },
    validate: false,
  });
  return wrapResolvers(schema, log);
}

/** The committed schema.graphql is exactly this text (test/pins/sdl.pin.test.ts fails on drift). */
export function printCatalogSchema(): string {
  const header = '# Generated from the type-graphql resolvers by `npm run schema:emit`. Do not edit by hand.\n\n';
  return header + printSchema(lexicographicSortSchema(publicSchemaOf(buildCatalogSchema(null)))) + '\n';
}
