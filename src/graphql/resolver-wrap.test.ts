import { expect } from 'chai';
import { GraphQLObjectType, GraphQLSchema, GraphQLString, execute, parse } from 'graphql';
import { currentAuditScope } from '../audit/audit-context';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { createLogger } from '../shared/logger';
import type { GraphQLContext } from './context';
import { agentSchemaOf, publicSchemaOf } from './agent-schema';
import { isWrappedResolver, wrapResolvers } from './resolver-wrap';
import { buildCatalogSchema } from './schema';
import { isObjectType, type GraphQLSchema as Schema } from 'graphql';

/**
 * What replaced type-graphql's global middlewares (resolver-wrap.ts): every field's domain errors become coded
 * GraphQL errors, admin mutations run in an audit scope (call mutations do not), and a synchronous field stays
 * synchronous, so an answer of plain fields is made without a promise.
 */
describe('wrapResolvers', () => {
  const ctx: GraphQLContext = { principal: null, requestId: 'req-wrap-1', credentialRejected: true };
  const logs: string[] = [];
  const log = createLogger('info', { write: (line: string) => void logs.push(line) });
  const seen: Array<{ field: string; action: string | null }> = [];
  const scoped = (field: string) => () => {
    const s = currentAuditScope();
    seen.push({ field, action: s?.action ?? null });
    if (s) s.audited = true;
    return Promise.resolve('done');
  };
  const schema = wrapResolvers(
    new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: {
          plain: { type: GraphQLString, resolve: () => 'plain value' },
          missing: { type: GraphQLString, resolve: () => Promise.reject(new CatalogError(CatalogErrorCode.NotFound, 'no such tool')) },
          missingNow: {
            type: GraphQLString,
            resolve: () => {
              throw new CatalogError(CatalogErrorCode.Unauthenticated, 'who are you');
            },
          },
          broken: { type: GraphQLString, resolve: () => Promise.reject(new Error('not a domain error')) },
        },
      }),
      mutation: new GraphQLObjectType({
        name: 'Mutation',
        fields: {
          createTenant: { type: GraphQLString, resolve: scoped('createTenant') },
          startToolCall: { type: GraphQLString, resolve: scoped('startToolCall') },
          forgetful: { type: GraphQLString, resolve: () => Promise.resolve('no audit row') },
        },
      }),
    }),
    log,
  );
  const run = (source: string) => execute({ schema, document: parse(source), contextValue: ctx });

  it('a query of synchronous fields is answered synchronously (no promise made)', () => {
    const out = run('{ plain }');
    expect(out).not.to.have.property('then');
    expect(out).to.deep.equal({ data: { plain: 'plain value' } });
  });

  it('a CatalogError, thrown or rejected, leaves with its code; the refused credential gives the 401 challenge; other errors pass as they are', async () => {
    const out = await run('{ missing missingNow broken }');
    const byPath = Object.fromEntries((out.errors ?? []).map((e) => [String(e.path?.[0]), e]));
    expect(byPath.missing.extensions.code).to.equal('NOT_FOUND');
    expect(byPath.missing.message).to.equal('no such tool');
    expect(byPath.missingNow.extensions.code).to.equal('UNAUTHENTICATED');
    const http = byPath.missingNow.extensions.http as { status: number; headers: Map<string, string> };
    expect(http.status).to.equal(401);
    expect(http.headers.get('www-authenticate')).to.match(/invalid_token/);
    expect(byPath.broken.extensions.code).to.equal(undefined);
    expect(byPath.broken.message).to.equal('not a domain error');
  });

  it('an admin mutation runs in an audit scope named after it; a call mutation does not; one that writes no audit row is logged', async () => {
    seen.length = 0;
    logs.length = 0;
    expect((await run('mutation { createTenant }')).data).to.deep.equal({ createTenant: 'done' });
    expect((await run('mutation { startToolCall }')).data).to.deep.equal({ startToolCall: 'done' });
    expect(seen).to.deep.equal([
      { field: 'createTenant', action: 'createTenant' },
      { field: 'startToolCall', action: null },
    ]);
    expect(logs.join('')).not.to.include('without an audit row');
    await run('mutation { forgetful }');
    const line = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'mutation completed without an audit row');
    expect(line).to.include({ mutation: 'forgetful', requestId: 'req-wrap-1' });
  });

  it('the executable schema and both HTTP schemas wrap every field that has a resolver, nested types included', () => {
    const full = buildCatalogSchema(null);
    const unwrapped = (schema: Schema) =>
      Object.values(schema.getTypeMap())
        .filter(isObjectType)
        .filter((t) => !t.name.startsWith('__'))
        .flatMap((t) => Object.values(t.getFields()).map((f) => ({ name: `${t.name}.${f.name}`, resolve: f.resolve })))
        .filter((f) => f.resolve !== undefined && !isWrappedResolver(f.resolve))
        .map((f) => f.name);
    const fields = (schema: Schema) => Object.values(schema.getTypeMap()).filter(isObjectType).flatMap((t) => Object.keys(t.getFields())).length;
    for (const [name, schema] of [['executable', full], ['public (admins)', publicSchemaOf(full)], ['agent', agentSchemaOf(full)]] as const) {
      expect(fields(schema), name).to.be.greaterThan(10);
      expect(unwrapped(schema), name).to.deep.equal([]);
    }
    // Nested object types are covered, not only the roots.
    const tool = full.getType('ToolDescriptor') ?? full.getType('Tool');
    expect(tool && isObjectType(tool) && Object.values(tool.getFields()).some((f) => isWrappedResolver(f.resolve))).to.equal(true);
  });
});
