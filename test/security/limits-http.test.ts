/**
 * Hardening limits of the real host over HTTP on 127.0.0.1 (issue 5): GraphQL depth, aliases, cost and tokens
 * (400, clear message), batching (400), body size (413), Apollo CSRF prevention, introspection and the Sandbox
 * landing page (on by default, introspection for admins only since issue 11; off when configured), and the
 * per-principal REST rate limit (429 + Retry-After).
 */
import { expect } from 'chai';
import { getIntrospectionQuery } from 'graphql';
import { testConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

interface GqlBody {
  data?: unknown;
  errors?: Array<{ message: string; extensions?: { code?: string } }>;
}

const CSRF = /blocked as a potential Cross-Site Request Forgery \(CSRF\)/;
/** 13 field levels through the introspection cycle fields → type → fields (ofType would not count). */
const LEVELS = ['__schema', 'types', 'fields', 'type', 'fields', 'type', 'fields', 'type', 'fields', 'type', 'fields', 'type'];
const DEEP_INTROSPECTION = `{ ${LEVELS.map((f) => `${f} {`).join(' ')} name ${'} '.repeat(LEVELS.length)}}`;

forEachDatabase('security: hardening limits over HTTP', (database) => {
  let open: TestHost; // defaults: introspection (for admins) and landing page on, default limits
  let hardened: TestHost; // introspection and landing page off, rate limit 5 burst / 1 per second
  const drops: Array<() => Promise<void>> = [];

  before(async function () {
    this.timeout(60_000);
    const a = await database.create();
    drops.push(a.drop);
    open = await startHost(a.db);
    const b = await database.create();
    drops.push(b.drop);
    hardened = await startHost(b.db, {
      security: { ...testConfig().security, introspection: 'off', graphqlIde: 'off', rateLimit: { capacity: 5, refillPerSecond: 1, maxKeys: 1000 } },
    });
    for (const h of [open, hardened]) await anExtension(h, { name: 'calc', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
  });
  after(async () => {
    await open?.close();
    await hardened?.close();
    for (const d of drops) await d();
  });

  const post = async (h: TestHost, body: string, headers: Record<string, string> = {}) => {
    const r = await fetch(`${h.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${h.adminKey}`, ...headers }, body });
    const text = await r.text();
    return { status: r.status, type: r.headers.get('content-type'), text, body: JSON.parse(text) as GqlBody };
  };
  const query = (h: TestHost, q: string, variables: Record<string, unknown> = {}) => post(h, JSON.stringify({ query: q, variables }));
  const first = (b: GqlBody) => ({ code: b.errors?.[0]?.extensions?.code, message: b.errors?.[0]?.message });

  it('depth: 13 levels answer 400 GRAPHQL_VALIDATION_FAILED naming the depth and the limit; nothing executes', async () => {
    const r = await query(open, DEEP_INTROSPECTION);
    expect(r.status, r.text).to.equal(400);
    expect(first(r.body)).to.deep.equal({ code: 'GRAPHQL_VALIDATION_FAILED', message: 'The anonymous operation is nested 13 levels deep; the limit is 12.' });
    expect(r.body.data).to.equal(undefined);
    // The limit leaves room for the full introspection query Apollo Sandbox sends (ofType chains do not count).
    const full = await query(open, getIntrospectionQuery());
    expect(full.status, full.text.slice(0, 300)).to.equal(200);
    expect(full.body.errors).to.equal(undefined);
  });

  it('aliases: 31 answer 400 with a clear message, 30 pass', async () => {
    const aliased = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: me { name }`).join(' ')} }`;
    const r = await query(open, aliased(31));
    expect(r.status).to.equal(400);
    expect(first(r.body)).to.deep.equal({ code: 'GRAPHQL_VALIDATION_FAILED', message: 'The anonymous operation uses more than 30 aliases; the limit is 30.' });
    expect((await query(open, aliased(30))).status).to.equal(200);
  });

  it('cost: a list asked for 10,000 items answers 400 naming the cost and the limit; with the variables of the request', async () => {
    const r = await query(open, '{ toolChanges(first: 10000) { id kind at } }');
    expect(r.status, r.text).to.equal(400);
    expect(first(r.body)).to.deep.equal({ code: 'GRAPHQL_VALIDATION_FAILED', message: 'The query costs 30001; the limit is 5000. Select fewer fields, or request smaller lists.' });
    const doc = 'query Q($n: Int!) { toolChanges(first: $n) { id kind at } }';
    expect((await query(open, doc, { n: 10 })).status).to.equal(200);
    const costly = await query(open, doc, { n: 2000 });
    expect([costly.status, first(costly.body).code]).to.deep.equal([400, 'GRAPHQL_VALIDATION_FAILED']);
  });

  it('tokens: a document of more than 5000 tokens answers 400 GRAPHQL_PARSE_FAILED before any rule runs', async () => {
    const r = await query(open, `{ ${'__typename '.repeat(6000)}}`);
    expect(r.status).to.equal(400);
    expect(first(r.body).code).to.equal('GRAPHQL_PARSE_FAILED');
    // graphql-js's own wording ("more that"), quoted as it is.
    expect(first(r.body).message).to.equal('Syntax Error: Document contains more that 5000 tokens. Parsing aborted.');
  });

  it('a batched (array) body is refused with 400, and none of its operations runs', async () => {
    const mk = (n: string) => ({ query: 'mutation($n: String!) { createTenant(name: $n) { id } }', variables: { n } });
    const r = await post(open, JSON.stringify([mk('batched-a'), mk('batched-b')]));
    expect(r.status).to.equal(400);
    expect(r.body).to.deep.equal({ errors: [{ message: 'Batched GraphQL requests are not accepted: send one operation per request.', extensions: { code: 'BAD_REQUEST' } }] });
    const names = (await open.gqlOk<{ tenants: Array<{ name: string }> }>('{ tenants { name } }')).tenants.map((t) => t.name);
    expect(names).not.to.include.members(['batched-a']).and.not.to.include('batched-b');
  });

  it('an oversize body (over 1 MiB) answers 413 in the GraphQL error shape', async () => {
    const r = await post(open, JSON.stringify({ query: `{ me { name } } # ${'x'.repeat(1024 * 1024 + 10)}` }));
    expect(r.status).to.equal(413);
    expect(r.body).to.deep.equal({ errors: [{ message: 'The request body is larger than 1048576 bytes.', extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('CSRF prevention: GET /graphql and a text/plain POST without apollo-require-preflight are refused; the mutation never runs', async () => {
    const auth = { authorization: `Bearer ${open.adminKey}` };
    const q = encodeURIComponent('{ me { name } }');
    const get = await fetch(`${open.url}/graphql?query=${q}`, { headers: auth });
    expect(get.status).to.equal(400);
    expect(await get.text()).to.match(CSRF);
    const mutation = JSON.stringify({ query: 'mutation { createTenant(name: "csrf-made") { id } }' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await fetch(`${open.url}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': type }, body: mutation });
      expect(r.status, type).to.equal(400);
      expect(await r.text(), type).to.match(CSRF);
    }
    const names = (await open.gqlOk<{ tenants: Array<{ name: string }> }>('{ tenants { name } }')).tenants.map((t) => t.name);
    expect(names).not.to.include('csrf-made');
    // Positive control: the same GET with the preflight header is a normal query.
    const ok = await fetch(`${open.url}/graphql?query=${q}`, { headers: { ...auth, 'apollo-require-preflight': 'true' } });
    expect(ok.status).to.equal(200);
    expect(await ok.json()).to.deep.equal({ data: { me: { name: 'test-admin' } } });
  });

  it('introspection (for admins, as here) and the bundled GraphiQL page (issue 20: no CDN) are on by default', async () => {
    const r = await query(open, '{ __schema { queryType { name } } }');
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ data: { __schema: { queryType: { name: 'Query' } } } });
    const page = await fetch(`${open.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    const html = await page.text();
    expect(html).to.match(/\/admin\/assets\/graphiql-/);
    expect(html).not.to.match(/embeddable-sandbox|https?:\/\//);
  });

  it('introspection off: __schema and __type queries are refused with 400; ordinary queries still work', async () => {
    for (const q of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }', 'query { a: __schema { types { name } } }']) {
      const r = await query(hardened, q);
      expect(r.status, q).to.equal(400);
      expect(first(r.body).code).to.equal('GRAPHQL_VALIDATION_FAILED');
      expect(first(r.body).message).to.match(/introspection is not allowed/);
      expect(r.text).not.to.include('"queryType"').and.not.to.include('"types"');
    }
    expect((await query(hardened, '{ me { name } }')).body).to.deep.equal({ data: { me: { name: 'test-admin' } } });
  });

  it('landing page off: GET /graphql with Accept text/html does not serve Apollo Sandbox', async () => {
    for (const accept of ['text/html', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const page = await fetch(`${hardened.url}/graphql`, { headers: { accept } });
      const text = await page.text();
      expect(page.headers.get('content-type') ?? '').not.to.match(/text\/html/);
      expect(text).not.to.match(/sandbox|<html/i);
      expect(page.status).to.be.within(400, 499);
    }
  });

  it('REST rate limit: the 6th rapid GET /tools by one principal is 429 with integer Retry-After >= 1 and RATE_LIMITED; another principal is unaffected', async () => {
    const t = await aTenantWithKey(hardened, 'rl-a');
    await aGrant(hardened, { tenantId: t.tenantId, toolPattern: '*' });
    const other = await aTenantWithKey(hardened, 'rl-b');
    await aGrant(hardened, { tenantId: other.tenantId, toolPattern: '*' });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await hardened.get('/tools', t.key);
      statuses.push(r.status);
      if (r.status === 200) expectStandardList(r.json());
      expect(r.headers.get('ratelimit-limit')).to.equal('5');
    }
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200]);
    const sixth = await hardened.get('/tools', t.key);
    expect(sixth.status).to.equal(429);
    const retryAfter = sixth.headers.get('retry-after') ?? '';
    expect(retryAfter).to.match(/^[0-9]+$/);
    expect(Number(retryAfter)).to.be.at.least(1);
    expect(sixth.headers.get('ratelimit-remaining')).to.equal('0');
    expect(JSON.parse(sixth.text)).to.have.nested.property('error.code', 'RATE_LIMITED');
    expect(sixth.text).not.to.include('ext.calc');
    // Single-tool reads spend the same budget.
    expect((await hardened.get('/tools/ext.calc', t.key)).status).to.equal(429);
    // Another principal has a bucket of its own.
    const b = await hardened.get('/tools', other.key);
    expect(b.status).to.equal(200);
    expectStandardList(b.json());
    expect(b.headers.get('ratelimit-remaining')).to.equal('4');
    // Requests without a principal spend no bucket: they are answered 401 however many there are.
    for (let i = 0; i < 7; i++) {
      const anon = await hardened.get('/tools', i % 2 ? 'tc_not-a-key' : null);
      expect(anon.status).to.equal(401);
      expect(anon.headers.get('ratelimit-limit')).to.equal(null);
    }
  });
});
