/**
 * Pins the GraphQL shape and cost limits (issue 5) on graphql-js `validate`: depth (through fragments, cycle-safe),
 * aliases, cost with list multipliers, tokens; and that the full introspection query, toolcat's own schema and the
 * REST facade's fixed documents all pass the defaults.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { type GraphQLSchema, buildSchema, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { CAPABILITIES, GET_TOOL, LIST_TOOLS } from '../../rest/documents';
import { DEFAULT_GRAPHQL_LIMITS, createComplexityRule, maxAliasesRule, maxDepthRule, parseOptionsFor, validationRulesFor } from './index';

const TEST_SDL = /* GraphQL */ `
  type Query { node(id: ID!): Node, nodes(first: Int): [Node!]!, tools: [Tool!]! }
  type Node { id: ID!, name: String, parent: Node, children(first: Int): [Node!]! }
  type Tool { id: ID!, tags: [String!]! }
`;
const schema = buildSchema(TEST_SDL);

const errorsOf = (doc: string, rules = validationRulesFor(DEFAULT_GRAPHQL_LIMITS, { variables: {} }), s: GraphQLSchema = schema) =>
  validate(s, parse(doc), [...specifiedRules, ...rules]).map((e) => e.message);
/** `{ node(id: "1") { parent { parent … { id } } } }` with `n` field levels in all. */
const nested = (n: number) => `{ node(id: "1") { ${'parent { '.repeat(n - 2)}id${' }'.repeat(n - 2)} } }`;

describe(maxDepthRule.name, () => {
  it('lets 12 levels through and refuses 13, naming the depth and the limit', () => {
    expect(errorsOf(nested(12))).to.deep.equal([]);
    expect(errorsOf(nested(13))).to.deep.equal(['The anonymous operation is nested 13 levels deep; the limit is 12.']);
    expect(errorsOf(`query Deep ${nested(20)}`)).to.deep.equal(['The operation Deep is nested 20 levels deep; the limit is 12.']);
  });

  it('counts through fragment spreads and inline fragments', () => {
    const doc = `query Q { node(id: "1") { ...A } }
      fragment A on Node { parent { ... on Node { parent { ...B } } } }
      fragment B on Node { parent { parent { parent { parent { parent { parent { parent { parent { parent { id } } } } } } } } } }`;
    expect(errorsOf(doc)).to.deep.equal(['The operation Q is nested 13 levels deep; the limit is 12.']);
  });

  it('survives fragment cycles (reported by graphql-js itself) without looping', () => {
    const doc = 'query Q { node(id: "1") { ...A } } fragment A on Node { parent { ...B } } fragment B on Node { parent { ...A } }';
    const messages = errorsOf(doc);
    expect(messages.some((m) => /Cannot spread fragment "A" within itself/.test(m))).to.equal(true);
    expect(messages.every((m) => !/levels deep/.test(m))).to.equal(true);
  });

  it('measures a fragment once however often it is spread (linear time)', () => {
    // 30 fragments each spreading the previous one twice: 2^30 expansions if it were not memoised.
    let doc = 'fragment F0 on Node { id }';
    for (let i = 1; i <= 30; i++) doc += ` fragment F${i} on Node { parent { ...F${i - 1} } children { ...F${i - 1} } }`;
    // Unmemoised, this never finishes (mocha's timeout fails it); no wall-clock assertion needed (issue 13).
    const messages = errorsOf(`{ node(id: "1") { ...F30 } } ${doc}`, [maxDepthRule(12), maxAliasesRule(30)]);
    expect(messages).to.deep.equal(['The anonymous operation is nested 32 levels deep; the limit is 12.']);
  });
});

describe(maxAliasesRule.name, () => {
  const aliased = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: node(id: "${i}") { id }`).join(' ');
  it('lets 30 aliases through and refuses 31', () => {
    expect(errorsOf(`{ ${aliased(30)} }`)).to.deep.equal([]);
    expect(errorsOf(`{ ${aliased(31)} }`)).to.deep.equal(['The anonymous operation uses more than 30 aliases; the limit is 30.']);
  });
  it('counts every spread of a fragment in full', () => {
    const doc = `query Q { node(id: "1") { ...F parent { ...F } } } fragment F on Node { ${Array.from({ length: 16 }, (_, i) => `n${i}: name`).join(' ')} }`;
    expect(errorsOf(doc)).to.deep.equal(['The operation Q uses more than 30 aliases; the limit is 30.']);
  });
});

describe(createComplexityRule.name, () => {
  const cost = (doc: string, variables: Record<string, unknown> = {}) => {
    let seen = -1;
    const messages = errorsOf(doc, [createComplexityRule({ maximumComplexity: 5000, variables, onComplete: (c) => (seen = c) })]);
    return { seen, messages };
  };
  it('charges lists by their page size, or a default of 10', () => {
    expect(cost('{ nodes { id name } }')).to.deep.equal({ seen: 21, messages: [] });
    expect(cost('{ nodes(first: 3) { children(first: 2) { id } } }')).to.deep.equal({ seen: 1 + 3 * (1 + 2 * 1), messages: [] });
    expect(cost('{ tools { tags } }').seen).to.equal(1 + 10 * 1);
  });
  it('refuses an expensive query with its cost and the limit', () => {
    expect(cost('{ nodes(first: 100) { children(first: 100) { id } } }')).to.deep.equal({
      seen: 10101,
      messages: ['The query costs 10101; the limit is 5000. Select fewer fields, or request smaller lists.'],
    });
  });
  it('uses the variables to size lists', () => {
    const doc = 'query Q($n: Int) { nodes(first: $n) { children(first: $n) { id } } }';
    expect(cost(doc, { n: 100 }).messages).to.have.length(1);
    expect(cost(doc, { n: 5 }).messages).to.deep.equal([]);
  });
});

describe('defaults', () => {
  const strict = [...validationRulesFor(DEFAULT_GRAPHQL_LIMITS, { variables: {} })];
  it('let the full standard introspection query through (Apollo Sandbox sends it)', () => {
    for (const q of [getIntrospectionQuery(), getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true })]) {
      expect(() => parse(q, parseOptionsFor(DEFAULT_GRAPHQL_LIMITS))).not.to.throw();
      expect(errorsOf(q, strict)).to.deep.equal([]);
    }
  });
  it("let toolcat's own schema be introspected, and the REST facade's fixed documents run", () => {
    const catalog = buildSchema(readFileSync(join(__dirname, '..', '..', '..', '..', 'schema.graphql'), 'utf8'));
    expect(errorsOf(getIntrospectionQuery({ specifiedByUrl: true }), strict, catalog)).to.deep.equal([]);
    for (const [doc, variables] of [[LIST_TOOLS, { view: 'compact' }], [GET_TOOL, { toolId: 'ext.a' }], [CAPABILITIES, {}]] as const)
      expect(validate(catalog, parse(doc), [...specifiedRules, ...validationRulesFor(DEFAULT_GRAPHQL_LIMITS, { variables })]).map((e) => e.message)).to.deep.equal([]);
  });
  it('still refuse the introspection cycle attack (fields → type → fields …)', () => {
    const attack = `{ __schema { types { ${'fields { type { '.repeat(6)}name${' } }'.repeat(6)} } } }`;
    // graphql-js 16's own MaxIntrospectionDepthRule agrees.
    expect(errorsOf(attack, strict)).to.include.members(['The anonymous operation is nested 15 levels deep; the limit is 12.', 'Maximum introspection depth exceeded']);
  });
  it('stop the parser at maxTokens', () => {
    const big = `{ ${Array.from({ length: 3000 }, (_, i) => `f${i}: id`).join(' ')} }`;
    expect(() => parse(big, parseOptionsFor(DEFAULT_GRAPHQL_LIMITS))).to.throw(/Document contains more th.. 5000 tokens/);
  });
});
