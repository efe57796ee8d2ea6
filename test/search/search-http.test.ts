/**
 * Issue 18: tool search wired into the product, over real HTTP on loopback, on SQLite and PostgreSQL.
 * GET /tools?q= and POST /tools/search answer the caller's visible tools in relevance order, in the list's shape
 * (validated against schemas/v2), with an ETag over the exact bytes; GraphQL searchTools gives the same order with
 * scores. The index follows the catalog: a sync that adds, changes or removes a tool, a classification that hides
 * one, a removed source and a deleted tenant are searchable on the next request.
 */
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { expectCompactList, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';
import { MAX_SEARCH_BODY_BYTES } from '../../src/rest/search-routes';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../src/services/tool-search.service';
import { MAX_QUERY_CHARS } from '../../src/search/query';

const tool = (name: string, description: string, properties: Record<string, unknown> = {}) => ({ name, description, inputSchema: { type: 'object', properties } });

const WEATHER = [
  tool('get_forecast', 'Weather forecast for a city: temperature, rain and wind for the next days.', { city: { type: 'string', description: 'City name' }, days: { type: 'integer' } }),
  tool('get_alerts', 'Active weather alerts (storms, floods) for a US state.', { state: { type: 'string' } }),
];
const FILES = [
  tool('read_file', 'Read the contents of a file from disk.', { path: { type: 'string', description: 'Absolute file path' } }),
  tool('write_file', 'Create or overwrite a file with the given text.', { path: { type: 'string' }, content: { type: 'string' } }),
  tool('list_directory', 'List the entries of a directory.', { path: { type: 'string' } }),
];

const SEARCH_GQL = `query($q: String!, $l: Int, $v: String) {
  searchTools(query: $q, limit: $l, view: $v) { appliedView matched truncated hits { score tool { ... on ToolDescriptor { toolId } ... on CompactToolDescriptor { toolId } } } }
}`;
interface GqlSearch {
  searchTools: { appliedView: string; matched: number; truncated: boolean; hits: Array<{ score: number; tool: { toolId: string } }> };
}

forEachDatabase('issue 18: tool search over REST and GraphQL', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let db: Parameters<typeof startHost>[0];
  let agent: { tenantId: string; principalId: string; key: string };
  let other: { tenantId: string; principalId: string; key: string };

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    db = created.db;
    host = await startHost(created.db, { startSources: false, compactView: true });
    agent = await aTenantWithKey(host, 'searcher');
    other = await aTenantWithKey(host, 'neighbour');
    await aSimulatedSource(host, 'weather');
    await applyListing(host, 'weather', WEATHER);
    await aSimulatedSource(host, 'files');
    await applyListing(host, 'files', FILES);
    await anExtension(host, { name: 'calculator', title: 'Calculator', description: 'Evaluate an arithmetic expression.', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    await aGrant(host, { tenantId: agent.tenantId, toolPattern: '*' });
    await aGrant(host, { tenantId: other.tenantId, toolPattern: '*' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  const ids = (body: unknown): string[] => (Array.isArray(body) ? body : (body as { tools: Array<{ toolId: string }> }).tools).map((d: { toolId: string }) => d.toolId);
  const search = (q: string, key = agent.key, extra = '') => host.get(`/tools?q=${encodeURIComponent(q)}${extra}`, key);
  const post = (body: unknown, key = agent.key, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${host.url}/tools/search`, { method: 'POST', headers: { authorization: `Bearer ${key}`, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) }).then(async (r) => ({
      status: r.status, headers: r.headers, text: await r.text(),
    }));
  const gqlSearch = (q: string, limit: number | null = null, key = agent.key) => host.gqlOk<GqlSearch>(SEARCH_GQL, { q, l: limit }, key);

  it('ranks the caller\'s visible tools by relevance, in the list\'s shape for both views (schemas/v2)', async () => {
    const r = await search('what will the weather be in Paris tomorrow, any rain?');
    expect(r.status, r.text).to.equal(200);
    expectStandardList(r.json());
    expect(ids(r.json())[0]).to.equal('mcp.weather.get_forecast');
    expect(ids(r.json())).to.include('mcp.weather.get_alerts');
    expect(r.headers.get('cache-control')).to.equal('private, no-cache');
    const c = await search('read a file from disk', agent.key, '&view=compact&limit=2');
    expect(c.status, c.text).to.equal(200);
    expectCompactList(c.json());
    expect(ids(c.json())).to.have.length(2);
    expect(ids(c.json())[0]).to.equal('mcp.files.read_file');
  });

  it('without q, GET /tools is unchanged: every visible tool, sorted by toolId', async () => {
    const r = await host.get('/tools?limit=1', agent.key);
    const plain = await host.get('/tools', agent.key);
    expect(r.text).to.equal(plain.text);
    expect(r.headers.get('etag')).to.equal(plain.headers.get('etag'));
    expect(ids(r.json())).to.deep.equal([...ids(r.json())].sort());
    expect(ids(r.json())).to.have.length(6);
  });

  it('limit: the default, the bound, and the order of GraphQL searchTools is the REST order with its scores', async () => {
    const g = await gqlSearch('file', null);
    expect(g.searchTools.hits.length).to.be.at.most(DEFAULT_SEARCH_LIMIT);
    expect(g.searchTools.matched).to.equal(3); // read_file and write_file by name, list_directory by its source (files)
    const scores = g.searchTools.hits.map((h) => h.score);
    expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
    const r = await search('file');
    expect(ids(r.json())).to.deep.equal(g.searchTools.hits.map((h) => h.tool.toolId));
    expect((await search('file', agent.key, `&limit=${MAX_SEARCH_LIMIT}`)).status).to.equal(200);
  });

  it('determinism: the same catalog and query give the same bytes and ETag, GET and POST alike; If-None-Match answers 304', async () => {
    const q = 'list the files of a directory and read one';
    const a = await search(q);
    const b = await search(q);
    expect(a.status).to.equal(200);
    expect(b.text).to.equal(a.text);
    const etag = a.headers.get('etag')!;
    expect(etag).to.match(/^"q/);
    expect(b.headers.get('etag')).to.equal(etag);
    const p = await post({ query: q });
    expect(p.status, p.text).to.equal(200);
    expectStandardList(JSON.parse(p.text));
    expect(p.text).to.equal(a.text);
    expect(p.headers.get('etag')).to.equal(etag);
    const cond = await host.get(`/tools?q=${encodeURIComponent(q)}`, agent.key, { 'if-none-match': etag, 'cache-control': 'no-cache' });
    expect(cond.status).to.equal(304);
    expect(cond.text).to.equal('');
    // Another limit is another answer (its own ETag), even when it happens to hold the same tools.
    const limited = await search(q, agent.key, '&limit=9');
    expect(limited.headers.get('etag')).to.not.equal(etag);
  });

  it('control and format characters separate words: the same ranking as with spaces', async () => {
    const spaced = await search('weather forecast city');
    const controlled = await search('weather\u0000forecast\u0007\u200bcity');
    expect(controlled.status, controlled.text).to.equal(200);
    expect(controlled.text).to.equal(spaced.text);
    expect(controlled.headers.get('etag')).to.equal(spaced.headers.get('etag'));
  });

  describe('bad input', () => {
    const reasonOf = (text: string) => (JSON.parse(text) as { error: { code: string; details?: { reason?: string } } }).error;

    it('an empty, blank or control-only q is 400 BAD_USER_INPUT query_empty', async () => {
      for (const q of ['', '   ', '\u0000\u0001\t', '\u200b']) {
        const r = await search(q);
        expect(r.status, JSON.stringify(q)).to.equal(400);
        expect(reasonOf(r.text)).to.deep.include({ code: 'BAD_USER_INPUT', details: { reason: 'query_empty' } });
      }
      const p = await post({ query: ' ' });
      expect(p.status).to.equal(400);
      expect(reasonOf(p.text).details).to.deep.equal({ reason: 'query_empty' });
      const g = await host.gql(SEARCH_GQL, { q: '' }, agent.key);
      expect(g.errors?.[0].extensions).to.deep.include({ code: 'BAD_USER_INPUT', details: { reason: 'query_empty' } });
    });

    it('a repeated q, a limit out of range or not an integer is 400 (limit_out_of_range)', async () => {
      expect(reasonOf((await host.get('/tools?q=a&q=b', agent.key)).text).details).to.deep.equal({ reason: 'query_not_text' });
      for (const l of ['0', String(MAX_SEARCH_LIMIT + 1), 'abc', '-1', '1.5', '99999999999']) {
        const r = await search('file', agent.key, `&limit=${l}`);
        expect(r.status, l).to.equal(400);
        expect(reasonOf(r.text)).to.deep.include({ code: 'BAD_USER_INPUT', details: { reason: 'limit_out_of_range' } });
      }
      for (const limit of [0, 101, 2.5, '3']) {
        const p = await post({ query: 'file', limit });
        expect(p.status, String(limit)).to.equal(400);
        expect(reasonOf(p.text).details).to.deep.equal({ reason: 'limit_out_of_range' });
      }
    });

    it('POST: a 1 MB body is 413 before it is parsed; a long query under the body bound is 400 query_too_long', async () => {
      const huge = await post({ query: 'x '.repeat(512 * 1024) });
      expect(huge.status).to.equal(413);
      expect(reasonOf(huge.text).code).to.equal('BAD_REQUEST');
      const long = 'y'.repeat(MAX_QUERY_CHARS + 1);
      expect(JSON.stringify({ query: long }).length).to.be.below(MAX_SEARCH_BODY_BYTES);
      const r = await post({ query: long });
      expect(r.status).to.equal(400);
      expect(reasonOf(r.text).details).to.deep.equal({ reason: 'query_too_long' });
      // At the bound it is accepted: a whole task text with pasted data is a valid query.
      const pasted = `read the file at this path and summarise it ${'A'.repeat(MAX_QUERY_CHARS - 100)}`;
      const ok = await post({ query: pasted });
      expect(ok.status, ok.text.slice(0, 200)).to.equal(200);
      expect(ids(JSON.parse(ok.text))[0]).to.equal('mcp.files.read_file');
    });

    it('POST: a body that is not JSON is 415 (content type) or 400; unknown fields and a non-string query are 400', async () => {
      expect((await post({ query: 'file' }, agent.key, { 'content-type': 'text/plain' })).status).to.equal(415);
      expect((await post('{"query": ', agent.key)).status).to.equal(400);
      expect((await post('[]', agent.key)).status).to.equal(400);
      expect((await post({ query: 'file', extra: 1 })).status).to.equal(400);
      const notText = await post({ query: 42 });
      expect(notText.status).to.equal(400);
      expect(reasonOf(notText.text).details).to.deep.equal({ reason: 'query_not_text' });
    });

    it('no credential is 401 on both routes; GET and HEAD on /tools/search stay the tool route (404)', async () => {
      const r = await host.get('/tools?q=file', null);
      expect(r.status).to.equal(401);
      expect(r.headers.get('www-authenticate')).to.equal('Bearer realm="toolcat"');
      expect((await fetch(`${host.url}/tools/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"file"}' })).status).to.equal(401);
      expect((await host.get('/tools/search', agent.key)).status).to.equal(404);
      expect((await host.request('PUT', '/tools/search', agent.key, '{}')).status).to.equal(405);
    });
  });

  describe('visibility before ranking', () => {
    it('another tenant\'s matching tools change neither the caller\'s order, nor its scores, nor matched', async () => {
      const queries = ['weather forecast for a city', 'read a file', 'write text to a file', 'storm alerts', 'calculator arithmetic'];
      const before = await Promise.all(queries.map((q) => gqlSearch(q, MAX_SEARCH_LIMIT)));
      const beforeRest = await Promise.all(queries.map((q) => search(q)));
      // The neighbour tenant gets its own tools, stuffed with the very words of the queries.
      await aSimulatedSource(host, 'neighbour-src', other.tenantId);
      const stuffed = queries.map((q, i) => tool(`stuffed_${i}`, `${q} ${q} ${q} weather file forecast read write alerts calculator`, { city: { type: 'string', description: q } }));
      await applyListing(host, 'neighbour-src', stuffed);
      await anExtension(host, { name: 'neighbour_weather', description: 'weather forecast weather forecast city rain', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: other.tenantId });
      // The neighbour sees and finds them: they are indexed.
      const theirs = await gqlSearch('weather forecast for a city', MAX_SEARCH_LIMIT, other.key);
      expect(theirs.searchTools.hits.map((h) => h.tool.toolId)).to.include('mcp.neighbour-src.stuffed_0');
      const after = await Promise.all(queries.map((q) => gqlSearch(q, MAX_SEARCH_LIMIT)));
      expect(after).to.deep.equal(before);
      const afterRest = await Promise.all(queries.map((q) => search(q)));
      expect(afterRest.map((r) => r.text)).to.deep.equal(beforeRest.map((r) => r.text));
      expect(afterRest.map((r) => r.headers.get('etag'))).to.deep.equal(beforeRest.map((r) => r.headers.get('etag')));
    });

    it('a principal narrowed to some tools is ranked over those only (its counts are its own)', async () => {
      const narrowed = await aTenantWithKey(host, 'narrow');
      await aGrant(host, { tenantId: narrowed.tenantId, toolPattern: 'mcp.files.*' });
      const g = await gqlSearch('weather forecast and read a file', MAX_SEARCH_LIMIT, narrowed.key);
      expect(g.searchTools.hits.map((h) => h.tool.toolId).every((id) => id.startsWith('mcp.files.'))).to.equal(true);
      expect(g.searchTools.matched).to.equal(3); // the three files tools (the source name matches "file"), nothing else
    });
  });

  describe('the index follows the catalog', () => {
    it('a sync that adds, changes and removes tools is searchable on the next request', async () => {
      await aSimulatedSource(host, 'mail');
      expect(ids((await search('send an email message')).json())).to.not.include('mcp.mail.send_email');
      await applyListing(host, 'mail', [tool('send_email', 'Send an email message to a recipient.', { to: { type: 'string' } })]);
      expect(ids((await search('send an email message')).json())[0]).to.equal('mcp.mail.send_email');
      // Changed upstream: the new text is what is indexed.
      await applyListing(host, 'mail', [tool('send_email', 'Post a letter through the postal service.', { to: { type: 'string' } })]);
      expect(ids((await search('postal letter')).json())[0]).to.equal('mcp.mail.send_email');
      expect(ids((await search('message recipient')).json())).to.not.include('mcp.mail.send_email');
      // Removed upstream.
      await applyListing(host, 'mail', [tool('archive', 'Archive old mail.')]);
      expect(ids((await search('postal letter')).json())).to.not.include('mcp.mail.send_email');
      expect(host.app.searchIndex.index.has('mcp.mail.send_email')).to.equal(false);
      expect(ids((await search('archive mail')).json())[0]).to.equal('mcp.mail.archive');
    });

    it('a host extension added or changed is searchable on the next request', async () => {
      await anExtension(host, { name: 'translator', description: 'Translate text between languages.', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
      expect(ids((await search('translate this text into German')).json())[0]).to.equal('ext.translator');
      await anExtension(host, { name: 'translator', description: 'Convert currencies at the daily exchange rate.', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
      expect(ids((await search('exchange rate for currencies')).json())[0]).to.equal('ext.translator');
      expect(ids((await search('languages')).json())).to.not.include('ext.translator');
      const compact = await search('exchange rate', agent.key, '&view=compact');
      expectCompactList(compact.json());
    });

    it('a classification that takes a tool out of the caller\'s grant takes it out of its results', async () => {
      const tiered = await aTenantWithKey(host, 'tiered');
      await aGrant(host, { tenantId: tiered.tenantId, toolPattern: 'ext.*', maxSafetyTier: 'read' });
      expect(ids((await search('arithmetic expression', tiered.key)).json())).to.deep.equal(['ext.calculator']);
      await host.gqlOk('mutation { classifyTool(input: { toolId: "ext.calculator", safetyTier: "exec", replayPolicy: "non-idempotent", egress: "open" }) { toolId } }');
      expect(ids((await search('arithmetic expression', tiered.key)).json())).to.deep.equal([]);
      // Still indexed and found by those who may see it.
      expect(ids((await search('arithmetic expression')).json())).to.include('ext.calculator');
    });

    it('a removed source and a deleted tenant leave the index', async () => {
      await host.gqlOk('mutation { removeSource(name: "weather") }');
      const r = await search('weather forecast');
      expect(ids(r.json()).filter((id) => id.startsWith('mcp.weather.'))).to.deep.equal([]);
      expect(host.app.searchIndex.index.has('mcp.weather.get_forecast')).to.equal(false);
      expect(host.app.searchIndex.index.has('mcp.neighbour-src.stuffed_0')).to.equal(true);
      await host.gqlOk('mutation($id: ID!) { deleteTenant(id: $id) }', { id: other.tenantId });
      await search('weather forecast'); // the next search catches up with the change
      expect(host.app.searchIndex.index.has('mcp.neighbour-src.stuffed_0')).to.equal(false);
      expect(host.app.searchIndex.index.has('ext.neighbour_weather')).to.equal(false);
    });

    it('a restart loads every stored tool into the index before serving', async () => {
      const size = host.app.searchIndex.index.size;
      const second = await startHost(db, { startSources: false, compactView: true }, false);
      try {
        expect(second.app.searchIndex.ready).to.equal(true);
        expect(second.app.searchIndex.index.size).to.equal(size);
        const a = await search('read a file');
        const b = await second.get('/tools?q=read%20a%20file', agent.key);
        expect(b.text).to.equal(a.text);
        expect(b.headers.get('etag')).to.equal(a.headers.get('etag'));
      } finally {
        await second.close();
      }
    });
  });
});
