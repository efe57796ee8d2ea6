/**
 * Issue 18: the optional embedding stage wired into the product, over real HTTP on loopback, on SQLite and
 * PostgreSQL, against the deterministic embeddings server (test/helpers/embedding-server.ts, a real HTTP server).
 * Proves: fusion changes the answer the way the vectors say (a misspelt task finds its tool, which the lexical ranking
 * cannot); vectors are stored in tool_embedding and not recomputed for unchanged text (the server's input count),
 * also across a restart; a changed description is re-embedded alone; an endpoint that fails or is slow gives the
 * lexical answer, never an error; another tenant's tools never change a caller's fused ranking; the API key is sent
 * to the endpoint and appears nowhere else (logs, errors, GraphQL, metrics). No wall clock is asserted: waits are on
 * the stage's own state (settled()).
 */
import { inspect } from 'node:util';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { type EmbeddingServer, startEmbeddingServer } from '../helpers/embedding-server';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';
import { ConfigError, loadConfig } from '../../src/config/config';
import { DEFAULT_EMBEDDING_SETTINGS, EmbeddingKey, type EmbeddingSettings } from '../../src/config/search-settings';
import { ToolEmbeddingStore } from '../../src/persistence/tool-embedding.store';
import type { EmbeddingSync } from '../../src/services/embedding-sync.service';

const SECRET = 'sk-test-9f8e7d6c5b4a-never-print-me';
const tool = (name: string, description: string, properties: Record<string, unknown> = {}) => ({ name, description, inputSchema: { type: 'object', properties } });

const TOOLS = [
  tool('get_forecast', 'Weather forecast for a city: temperature, rain and wind.', { city: { type: 'string' } }),
  tool('read_file', 'Read the contents of a file from disk.', { path: { type: 'string' } }),
  tool('write_file', 'Create or overwrite a file with the given text.', { path: { type: 'string' }, content: { type: 'string' } }),
  tool('send_email', 'Send an email message to a recipient.', { to: { type: 'string' }, body: { type: 'string' } }),
];
/** Misspelt: no query term is an indexed term, but the trigrams of the hashing server overlap with the forecast tool's. */
const TYPO = 'wether forcast';

function settingsFor(server: EmbeddingServer, extra: Partial<EmbeddingSettings> = {}): EmbeddingSettings {
  return {
    ...DEFAULT_EMBEDDING_SETTINGS, baseUrl: server.baseUrl, model: 'hashing-trick', apiKey: new EmbeddingKey(SECRET), batchSize: 2, retryAfterMs: 0, queryTimeoutMs: 2000, ...extra,
  };
}

const ids = (body: unknown): string[] => (body as Array<{ toolId: string }>).map((d) => d.toolId);

forEachDatabase('issue 18: the embedding stage wired (tool_embedding, background pass, fusion, fallback)', (database) => {
  let server: EmbeddingServer;
  let host: TestHost;
  let drop: () => Promise<void>;
  let db: Parameters<typeof startHost>[0];
  let agent: { tenantId: string; key: string };
  let other: { tenantId: string; key: string };
  const stage = (): EmbeddingSync => host.app.searchIndex.embeddings!;
  const search = (q: string, key = agent.key, limit = 4) => host.get(`/tools?q=${encodeURIComponent(q)}&limit=${limit}`, key);

  before(async function () {
    this.timeout(60_000);
    server = await startEmbeddingServer({ dimensions: 128 });
    const created = await database.create();
    drop = created.drop;
    db = created.db;
    host = await startHost(db, { startSources: false, search: { embeddings: settingsFor(server) } });
    agent = await aTenantWithKey(host, 'searcher');
    other = await aTenantWithKey(host, 'neighbour');
    await aGrant(host, { tenantId: agent.tenantId, toolPattern: '*' });
    await aGrant(host, { tenantId: other.tenantId, toolPattern: '*' });
    await aSimulatedSource(host, 'kit');
    await applyListing(host, 'kit', TOOLS);
    await host.app.searchIndex.catchUp();
    await stage().settled();
  });
  after(async () => {
    await host?.close();
    await drop?.();
    await server?.close();
  });

  it('stores one vector per tool in tool_embedding, in batches, and sends the key to the endpoint', async () => {
    expect(stage().stats()).to.include({ vectors: 4, pending: 0, embedded: 4 });
    expect(await new ToolEmbeddingStore(host.app.dataSource).count()).to.equal(4);
    expect(server.counts.inputs).to.equal(4);
    expect(server.counts.requests).to.equal(2); // batch size 2
    expect(server.lastAuthorization).to.equal(`Bearer ${SECRET}`);
  });

  it('fuses: a misspelt task finds its tool through the vectors, which the lexical ranking alone cannot', async () => {
    const set = await host.app.cache.visibleSetOf((await host.app.services.tenancy.authenticate(agent.key))!);
    expect(host.app.searchIndex.index.rank({ key: null, ids: set.ids }, TYPO, 4).hits).to.deep.equal([]);
    const r = await search(TYPO);
    expect(r.status, r.text).to.equal(200);
    expect(ids(r.json())[0]).to.equal('mcp.kit.get_forecast');
    // A task both rankings agree on keeps its top tool; and the same query gives the same bytes and ETag.
    const agreed = await search('read the contents of a file');
    expect(ids(agreed.json())[0]).to.equal('mcp.kit.read_file');
    const again = await search('read the contents of a file');
    expect(again.text).to.equal(agreed.text);
    expect(again.headers.get('etag')).to.equal(agreed.headers.get('etag'));
    expect(stage().stats().fusedQueries).to.be.greaterThan(0);
  });

  it('does not recompute vectors of unchanged text: a re-sync and a classification send nothing', async () => {
    const before = server.counts.inputs;
    await applyListing(host, 'kit', TOOLS);
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.kit.read_file", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
    await host.app.searchIndex.catchUp();
    await stage().settled();
    expect(server.counts.inputs).to.equal(before);
    expect(stage().stats().pending).to.equal(0);
  });

  it('recomputes exactly the tool whose description changed, and stores the new vector', async () => {
    const store = new ToolEmbeddingStore(host.app.dataSource);
    const [old] = await store.read('hashing-trick', ['mcp.kit.send_email']);
    const before = server.counts.inputs;
    await applyListing(host, 'kit', TOOLS.map((t) => (t.name === 'send_email' ? { ...t, description: 'Send an electronic mail to a person.' } : t)));
    await host.app.searchIndex.catchUp();
    await stage().settled();
    expect(server.counts.inputs - before).to.equal(1);
    const [now] = await store.read('hashing-trick', ['mcp.kit.send_email']);
    expect(now.textHash).to.not.equal(old.textHash);
    expect(Array.from(now.vector)).to.not.deep.equal(Array.from(old.vector));
  });

  it('a restart on the same database reuses the stored vectors: nothing is embedded again', async function () {
    this.timeout(60_000);
    const before = server.counts.inputs;
    await host.close();
    host = await startHost(db, { startSources: false, search: { embeddings: settingsFor(server) } });
    await host.app.searchIndex.catchUp();
    await stage().settled();
    expect(stage().stats()).to.include({ vectors: 4, embedded: 0, reused: 4 });
    expect(server.counts.inputs).to.equal(before);
    expect(ids((await search(TYPO)).json())[0]).to.equal('mcp.kit.get_forecast');
  });

  it('endpoint failing or slow: the lexical answer, no error, counted and logged once', async function () {
    this.timeout(30_000);
    const lexical = async (q: string): Promise<string[]> => {
      const set = await host.app.cache.visibleSetOf((await host.app.services.tenancy.authenticate(agent.key))!);
      return host.app.searchIndex.index.rank({ key: null, ids: set.ids }, q, 4).hits.map((h) => h.toolId);
    };
    let fallbacks = -1;
    try {
      server.options = { dimensions: 128, failStatus: 503 };
      const down = await search('write some text into a file'); // a query text not cached yet
      expect(down.status, down.text).to.equal(200);
      expect(ids(down.json())).to.deep.equal(await lexical('write some text into a file'));
      fallbacks = stage().stats().lexicalFallbacks;
      server.options = { dimensions: 128, delayMs: 5000 };
      await host.close();
      host = await startHost(db, { startSources: false, search: { embeddings: settingsFor(server, { queryTimeoutMs: 100, retryAfterMs: 60_000 }) } });
      const slow = await search('send a message by email');
      expect(slow.status, slow.text).to.equal(200);
      expect(ids(slow.json())).to.deep.equal(await lexical('send a message by email'));
      // Resting after the failure: the next query does not wait for the endpoint at all.
      const requests = server.counts.requests;
      const resting = await search('email a recipient');
      expect(resting.status).to.equal(200);
      expect(server.counts.requests).to.equal(requests);
      expect(fallbacks).to.equal(1); // the failing endpoint, before the restart
      expect(stage().stats().lexicalFallbacks).to.equal(2);
      expect(host.logs.filter((l) => l.includes('serving the lexical ranking')).length).to.equal(1);
    } finally {
      server.options = { dimensions: 128 };
    }
    await host.close();
    host = await startHost(db, { startSources: false, search: { embeddings: settingsFor(server) } });
    await host.app.searchIndex.catchUp();
    await stage().settled();
  });

  it('another tenant\'s tools (and their vectors) never change a caller\'s fused ranking', async function () {
    this.timeout(30_000);
    const queries = [TYPO, 'read the contents of a file', 'wrte a fle', 'email'];
    const before = await Promise.all(queries.map((q) => search(q)));
    // The neighbour's own source: near-copies of every tool, and the typo itself, all embedded.
    await aSimulatedSource(host, 'mimic', other.tenantId);
    await applyListing(host, 'mimic', [...TOOLS.map((t) => ({ ...t, description: `${t.description} ${TYPO} wrte a fle email` })), tool('wether_forcast', TYPO)]);
    await host.app.searchIndex.catchUp();
    await stage().settled();
    expect(stage().stats().vectors).to.equal(9);
    const after = await Promise.all(queries.map((q) => search(q)));
    after.forEach((r, i) => {
      expect(r.text, queries[i]).to.equal(before[i].text);
      expect(r.headers.get('etag')).to.equal(before[i].headers.get('etag'));
    });
    // The neighbour does see its own tools ranked (the stage is on for it too).
    expect(ids((await search(TYPO, other.key)).json())[0]).to.match(/^mcp\.mimic\./);
  });

  it('a removed source takes its vectors out of memory and out of tool_embedding', async () => {
    await host.gqlOk('mutation { removeSource(name: "mimic") }');
    await host.app.searchIndex.catchUp();
    await stage().settled();
    expect(stage().stats().vectors).to.equal(4);
    expect(await new ToolEmbeddingStore(host.app.dataSource).count()).to.equal(4);
  });

  it('the key appears in no log line, no error, no GraphQL answer and no metric', async () => {
    const gql = await host.gql('{ capabilities { __typename } __schema { types { name description fields { name description } } } }');
    const bad = await host.get('/tools?q=%00%00', agent.key);
    const metrics = await host.get('/metrics');
    expect(metrics.status).to.equal(200);
    expect(metrics.text).to.match(/toolcat_search_embedding_queries_total\{outcome="fused"\} [1-9]/);
    expect(metrics.text).to.contain('toolcat_search_embedding_tools{state="held"} 4');
    for (const text of [...host.logs, JSON.stringify(gql), bad.text, metrics.text]) expect(text).to.not.contain(SECRET);
    expect(host.logs.join('\n')).to.not.contain('sk-test');
  });
});

describe('issue 18: embedding settings (TOOLCAT_EMBEDDINGS_*)', () => {
  const base = { TOOLCAT_SQLITE_PATH: ':memory:', TOOLCAT_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1/', TOOLCAT_EMBEDDINGS_MODEL: 'm', TOOLCAT_EMBEDDINGS_KEY: SECRET };

  it('reads the endpoint, model and key; the key prints as [redacted] in JSON, inspect and strings', () => {
    const c = loadConfig(base);
    expect(c.search.embeddings).to.include({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    expect(c.search.embeddings!.apiKey!.reveal()).to.equal(SECRET);
    // (config.secretEnv is the whole environment by design, for `{ fromEnv }` source secrets: the settings are what is passed on.)
    for (const text of [JSON.stringify(c.search), inspect(c.search, { depth: 10 }), String(c.search.embeddings!.apiKey), `${c.search.embeddings!.apiKey}`]) expect(text).to.not.contain(SECRET);
    expect(loadConfig({ TOOLCAT_SQLITE_PATH: ':memory:' }).search.embeddings).to.equal(null);
  });

  it('refuses a missing model, a non-http URL and credentials in the URL, without echoing the key', () => {
    for (const env of [
      { ...base, TOOLCAT_EMBEDDINGS_MODEL: '' },
      { ...base, TOOLCAT_EMBEDDINGS_URL: 'file:///etc/passwd' },
      { ...base, TOOLCAT_EMBEDDINGS_URL: `http://user:${SECRET}@127.0.0.1/v1` },
      { ...base, TOOLCAT_EMBEDDINGS_QUERY_TIMEOUT_MS: '0' },
    ]) {
      let err: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(ConfigError);
      expect((err as Error).message).to.not.contain(SECRET);
    }
  });
});
