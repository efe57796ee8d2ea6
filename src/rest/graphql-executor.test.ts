import { expect } from 'chai';
import { GraphQLError, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, specifiedRules, validate } from 'graphql';
import { getComplexity } from 'graphql-query-complexity';
import { makeFormatError } from '../graphql/format-error';
import type { GraphQLContext } from '../graphql/context';
import { DEFAULT_GRAPHQL_LIMITS, defaultEstimators, validationRulesFor } from '../graphql/limits';
import { buildCatalogSchema } from '../graphql/schema';
import { createLogger } from '../shared/logger';
import { CAPABILITIES, GET_TOOL, LIST_TOOLS } from './documents';
import { PreparedExecutor } from './graphql-executor';

const ctx: GraphQLContext = { principal: null, requestId: 'test', credentialRejected: false };

/** A small schema with the situations the executor must map: a value, a coded error, an uncoded error. */
const toy = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      echo: { type: GraphQLString, args: { v: { type: new GraphQLNonNull(GraphQLString) } }, resolve: (_r, a: { v: string }) => a.v },
      refused: { type: GraphQLString, resolve: () => Promise.reject(new GraphQLError('no key', { extensions: { code: 'UNAUTHENTICATED' } })) },
      broken: { type: GraphQLString, resolve: () => Promise.reject(new Error('db password is hunter2')) },
    },
  }),
});

describe(PreparedExecutor.name, () => {
  const logs: string[] = [];
  const log = createLogger('info', { write: (line: string) => void logs.push(line) });
  const exec = new PreparedExecutor(toy, makeFormatError(log));

  it('refuses at preparation a document that does not fit the schema, naming the problem', () => {
    expect(() => exec.prepare('{ nope }')).to.throw(/not servable: Cannot query field "nope"/);
    expect(() => exec.prepare('{ echo(')).to.throw(/Syntax Error/);
  });

  it('runs a prepared document with its variables', async () => {
    expect(await exec.execute('query($v: String!) { echo(v: $v) }', { v: 'hi' }, ctx)).to.deep.equal({ data: { echo: 'hi' }, errorCodes: [], errorMessages: [] });
  });

  it('maps errors as Apollo does for /graphql: codes pass, variable problems are BAD_USER_INPUT, anything else is masked and logged', async () => {
    expect((await exec.execute('{ refused }', {}, ctx)).errorCodes).to.deep.equal(['UNAUTHENTICATED']);
    expect((await exec.execute('query($v: String!) { echo(v: $v) }', {}, ctx)).errorCodes).to.deep.equal(['BAD_USER_INPUT']);
    const broken = await exec.execute('{ broken }', {}, ctx);
    expect(broken.errorCodes).to.deep.equal(['INTERNAL_SERVER_ERROR']);
    expect(broken.errorMessages.join(' ')).not.to.include('hunter2');
    expect(logs.join('\n')).to.include('hunter2'); // the cause is logged for the operator, never answered
  });

  it('the REST facade documents are valid and stay far inside the /graphql limits (depth, aliases, cost)', () => {
    const schema = buildCatalogSchema(null);
    for (const [doc, variables] of [[LIST_TOOLS, { view: null }], [GET_TOOL, { toolId: 'ext.a', view: null }], [CAPABILITIES, {}]] as const) {
      const document = parse(doc);
      expect(validate(schema, document, [...specifiedRules, ...validationRulesFor(DEFAULT_GRAPHQL_LIMITS, { variables })]).map((e) => e.message), doc).to.deep.equal([]);
      expect(getComplexity({ schema, query: document, variables, estimators: defaultEstimators() })).to.be.below(DEFAULT_GRAPHQL_LIMITS.maxComplexity / 100);
    }
  });
});
