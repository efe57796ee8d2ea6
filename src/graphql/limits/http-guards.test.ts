/**
 * Pins the limits end to end over real HTTP on 127.0.0.1: the /graphql guards (size → 413, batching → 400, bad
 * JSON → 400, all in the GraphQL error shape), and Apollo wired with the rules, parse options and cost plugin
 * exactly as app.ts is to wire them.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import { expect } from 'chai';
import { buildSchema } from 'graphql';
import express from 'express';
import { DEFAULT_GRAPHQL_LIMITS, type GraphQLLimits, complexityLimitPlugin, graphqlHttpGuards, parseOptionsFor, validationRulesFor } from './index';

const TEST_SDL = /* GraphQL */ `
  type Query { node(id: ID!): Node, nodes(first: Int): [Node!]!, tools: [Tool!]! }
  type Node { id: ID!, name: String, parent: Node, children(first: Int): [Node!]! }
  type Tool { id: ID!, tags: [String!]! }
`;

interface Body {
  data?: unknown;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

type Obj = { id: string; name: string; parent: () => Obj; children: (a: { first?: number }) => Obj[] };
const mk = (id: string): Obj => ({ id, name: `n${id}`, parent: () => mk(`${id}p`), children: ({ first }) => Array.from({ length: Math.min(first ?? 2, 3) }, (_, i) => mk(`${id}${i}`)) });
const rootValue = { node: ({ id }: { id: string }) => mk(id), nodes: ({ first }: { first?: number }) => Array.from({ length: Math.min(first ?? 2, 3) }, (_, i) => mk(String(i))), tools: () => [] };

async function start(app: express.Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

describe('GraphQL limits over HTTP', () => {
  const limits: GraphQLLimits = { ...DEFAULT_GRAPHQL_LIMITS, maxRequestBytes: 65536 };
  let apollo: ApolloServer;
  let server: Server;
  let url: string;

  before(async () => {
    apollo = new ApolloServer({
      schema: buildSchema(TEST_SDL),
      rootValue,
      validationRules: validationRulesFor(limits),
      parseOptions: parseOptionsFor(limits),
      plugins: [complexityLimitPlugin({ maximumComplexity: limits.maxComplexity })],
    });
    await apollo.start();
    const app = express();
    app.use('/graphql', ...graphqlHttpGuards(limits), expressMiddleware(apollo));
    ({ server, url } = await start(app));
  });
  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await apollo.stop();
  });

  const post = async (body: string | Readable, headers: Record<string, string> = {}) => {
    const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body as string, duplex: 'half' } as RequestInit);
    return { status: r.status, body: (await r.json()) as Body };
  };
  const query = (q: string, variables?: unknown) => post(JSON.stringify({ query: q, variables }));
  const codeOf = (b: Body) => b.errors?.[0]?.extensions?.code;

  it('serves an ordinary query', async () => {
    const r = await query('{ node(id: "1") { id parent { name } } }');
    expect(r).to.deep.equal({ status: 200, body: { data: { node: { id: '1', parent: { name: 'n1p' } } } } });
  });

  it('refuses a batched (array) body with 400 BAD_REQUEST', async () => {
    const r = await post(JSON.stringify([{ query: '{ tools { id } }' }, { query: '{ tools { id } }' }]));
    expect(r.status).to.equal(400);
    expect(r.body).to.deep.equal({ errors: [{ message: 'Batched GraphQL requests are not accepted: send one operation per request.', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('refuses an oversize body with 413, declared or streamed', async () => {
    const big = JSON.stringify({ query: `{ tools { id } } # ${'x'.repeat(70_000)}` });
    const declared = await post(big);
    expect(declared.status).to.equal(413);
    expect(declared.body).to.deep.equal({ errors: [{ message: 'The request body is larger than 65536 bytes.', extensions: { code: 'BAD_REQUEST' } }] });
    const streamed = await post(Readable.from([big.slice(0, 30_000), big.slice(30_000)]));
    expect(streamed.status).to.equal(413);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const r = await post('{ "query": ');
    expect(r.status).to.equal(400);
    expect(codeOf(r.body)).to.equal('BAD_REQUEST');
  });

  it('refuses too deep, too many aliases and too many tokens with 400 and a clear message', async () => {
    const deep = await query(`{ node(id: "1") { ${'parent { '.repeat(12)}id${' }'.repeat(12)} } }`);
    expect(deep.status).to.equal(400);
    expect(codeOf(deep.body)).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(deep.body.errors![0].message).to.equal('The anonymous operation is nested 14 levels deep; the limit is 12.');
    const aliases = await query(`{ ${Array.from({ length: 40 }, (_, i) => `a${i}: tools { id }`).join(' ')} }`);
    expect([aliases.status, codeOf(aliases.body)]).to.deep.equal([400, 'GRAPHQL_VALIDATION_FAILED']);
    const tokens = await query(`{ ${'a '.repeat(6000)}}`);
    expect([tokens.status, codeOf(tokens.body)]).to.deep.equal([400, 'GRAPHQL_PARSE_FAILED']);
  });

  it('costs the operation with the request variables (plugin), per request', async () => {
    const doc = 'query Q($n: Int) { nodes(first: $n) { children(first: $n) { id } } }';
    const cheap = await query(doc, { n: 2 });
    expect(cheap.status).to.equal(200);
    const costly = await query(doc, { n: 100 });
    expect(costly.status).to.equal(400);
    expect(codeOf(costly.body)).to.equal('GRAPHQL_VALIDATION_FAILED');
    expect(costly.body.errors![0].message).to.equal('The query costs 10101; the limit is 5000. Select fewer fields, or request smaller lists.');
    // The same document again (now in Apollo's validated-document cache) is still costed by its new variables.
    expect((await query(doc, { n: 3 })).status).to.equal(200);
    expect((await query(doc, { n: 1000 })).status).to.equal(400);
  });
});

describe('batching allowed up to maxBatch', () => {
  let server: Server;
  let url: string;
  before(async () => {
    const app = express();
    app.use('/graphql', ...graphqlHttpGuards({ ...DEFAULT_GRAPHQL_LIMITS, maxBatch: 3 }), (_req, res) => void res.json({ ok: true }));
    ({ server, url } = await start(app));
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('passes arrays of 1 to 3 operations and refuses empty or longer ones', async () => {
    const send = (n: number) => fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.from({ length: n }, () => ({ query: '{ a }' }))) });
    expect((await send(3)).status).to.equal(200);
    const four = await send(4);
    expect(four.status).to.equal(400);
    expect(((await four.json()) as Body).errors![0].message).to.equal('A batched request must hold 1 to 3 operations; it held 4.');
    expect((await send(0)).status).to.equal(400);
  });
});
