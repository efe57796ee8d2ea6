/**
 * The optional embedding stage (issue 18) against the deterministic local server (test/helpers/embedding-server.ts):
 * vectors computed once per text, recomputed only when it changes; cosine over the visible set only; RRF fusion;
 * lexical results when the endpoint fails or is slow.
 */
import { expect } from 'chai';
import { EmbeddingClient, EmbeddingError, EmbeddingStage, RRF_K, rrf } from '../../src/search/embeddings';
import type { SearchDocument } from '../../src/search/fields';
import { SearchIndex } from '../../src/search/index';
import { type EmbeddingServer, hashingVector, startEmbeddingServer } from '../helpers/embedding-server';

const DOCS: SearchDocument[] = [
  { toolId: 'mcp.w.forecast', tenantId: null, name: 'get_forecast', description: 'Weather forecast for a city', inputSchema: { properties: { city: {} } }, source: 'w' },
  { toolId: 'mcp.f.read_file', tenantId: null, name: 'read_file', description: 'Read a file from disk', inputSchema: {}, source: 'f' },
  { toolId: 'mcp.f.write_file', tenantId: null, name: 'write_file', description: 'Write a file to disk', inputSchema: {}, source: 'f' },
  { toolId: 'mcp.o.secret', tenantId: 'other', name: 'weather_secret', description: 'Weather forecast of another tenant', inputSchema: {}, source: 'o' },
];

describe('embedding stage', () => {
  let server: EmbeddingServer;
  before(async () => {
    server = await startEmbeddingServer({ dimensions: 128 });
  });
  after(async () => server.close());

  function stage(extra: { timeoutMs?: number; batchSize?: number } = {}): EmbeddingStage {
    return new EmbeddingStage(new EmbeddingClient({ baseUrl: server.baseUrl, model: 'hashing-trick', ...extra }));
  }

  it('the test server is deterministic and unit-length', () => {
    const a = hashingVector('Weather forecast', 64);
    expect(hashingVector('Weather forecast', 64)).to.deep.equal(a);
    expect(Math.abs(a.reduce((s, x) => s + x * x, 0) - 1)).to.be.below(1e-4);
  });

  it('embeds in batches, and re-embeds only tools whose text changed', async () => {
    const s = stage({ batchSize: 2 });
    const before = { ...server.counts };
    expect(await s.sync(DOCS)).to.equal(4);
    expect(server.counts.requests - before.requests).to.equal(2);
    expect(await s.sync(DOCS)).to.equal(0);
    expect(await s.sync(DOCS.map((d) => (d.toolId === 'mcp.f.read_file' ? { ...d, description: 'Read a text file' } : d)))).to.equal(1);
    expect(server.counts.inputs - before.inputs).to.equal(5);
  });

  it('ranks by cosine over the visible tools only, and fuses with the lexical ranking by RRF', async () => {
    const s = stage();
    await s.sync(DOCS);
    const index = new SearchIndex();
    for (const d of DOCS) index.upsert(d);
    const visible = { key: 'v', ids: ['mcp.w.forecast', 'mcp.f.read_file', 'mcp.f.write_file'] };
    const vec = s.vectorRank(visible, await s.queryVector('weather forecast'), 10);
    expect(vec.map((h) => h.toolId)).to.not.include('mcp.o.secret');
    expect(vec[0].toolId).to.equal('mcp.w.forecast');
    const r = await s.rank(index, visible, 'weather forecast for Paris', 3);
    expect(r.fused).to.equal(true);
    expect(r.hits[0].toolId).to.equal('mcp.w.forecast');
    expect(r.hits[0].score).to.equal(2 / (RRF_K + 1));
    expect(r.hits.map((h) => h.toolId)).to.not.include('mcp.o.secret');
    expect(JSON.stringify((await s.rank(index, visible, 'weather forecast for Paris', 3)).hits)).to.equal(JSON.stringify(r.hits));
  });

  it('rrf sums 1 / (60 + rank) and breaks ties by toolId', () => {
    const a = [{ toolId: 'x', score: 9 }, { toolId: 'y', score: 1 }];
    const b = [{ toolId: 'y', score: 0.9 }, { toolId: 'x', score: 0.1 }];
    expect(rrf([a, b], 2).map((h) => h.toolId)).to.deep.equal(['x', 'y']);
    expect(rrf([a, b], 2)[0].score).to.equal(rrf([a, b], 2)[1].score);
  });

  it('serves the lexical ranking when the endpoint fails or is too slow', async () => {
    const index = new SearchIndex();
    for (const d of DOCS) index.upsert(d);
    const visible = { key: 'v', ids: DOCS.slice(0, 3).map((d) => d.toolId) };
    server.options = { dimensions: 128, failStatus: 503 };
    try {
      const r = await stage().rank(index, visible, 'read a file', 2);
      expect(r.fused).to.equal(false);
      expect(r.error).to.contain('503');
      expect(r.hits.map((h) => h.toolId)).to.deep.equal(index.rank(visible, 'read a file', 2).hits.map((h) => h.toolId));
      server.options = { dimensions: 128, delayMs: 400 };
      const slow = await stage({ timeoutMs: 50 }).rank(index, visible, 'write a file', 2);
      expect(slow.fused).to.equal(false);
      expect(slow.error).to.contain('did not answer within 50 ms');
    } finally {
      server.options = { dimensions: 128 };
    }
  });

  it('embeds tools with at most `concurrency` requests in flight, in input order', async () => {
    const s = new EmbeddingStage(new EmbeddingClient({ baseUrl: server.baseUrl, model: 'hashing-trick', batchSize: 1 }), { concurrency: 2 });
    server.options = { dimensions: 128, delayMs: 20 };
    server.counts.maxInFlight = 0;
    try {
      const inputs = DOCS.map((d) => s.inputOf(d));
      const vectors = await s.embedInputs(inputs);
      expect(server.counts.maxInFlight).to.equal(2);
      expect(vectors.map((v) => Array.from(v).map((x) => Math.round(x * 1e4)))).to.deep.equal(inputs.map((i) => hashingVector(i.text, 128).map((x) => Math.round(x * 1e4))));
    } finally {
      server.options = { dimensions: 128 };
    }
  });

  it('caches query vectors by text, and rests after a failure (injected clock)', async () => {
    let now = 1000;
    const s = new EmbeddingStage(new EmbeddingClient({ baseUrl: server.baseUrl, model: 'hashing-trick' }), { retryAfterMs: 500, now: () => now });
    const before = server.counts.requests;
    await s.queryVector('weather in Paris');
    await s.queryVector('weather in Paris');
    expect(server.counts.requests - before).to.equal(1);
    server.options = { dimensions: 128, failStatus: 500 };
    try {
      let err: unknown;
      await s.queryVector('weather in Rome').catch((e: unknown) => (err = e));
      expect(err).to.be.instanceOf(EmbeddingError);
      const afterFailure = server.counts.requests;
      server.options = { dimensions: 128 };
      await s.queryVector('weather in Rome').catch((e: unknown) => (err = e));
      expect((err as Error).message).to.contain('failed recently');
      expect(server.counts.requests).to.equal(afterFailure); // resting: not asked
      now += 500;
      expect((await s.queryVector('weather in Rome')).length).to.equal(128);
    } finally {
      server.options = { dimensions: 128 };
    }
  });

  it('refuses a malformed endpoint answer and a non-http base URL', async () => {
    expect(() => new EmbeddingClient({ baseUrl: 'file:///etc/passwd', model: 'm' })).to.throw(EmbeddingError);
    const bad = new EmbeddingClient({ baseUrl: `${server.baseUrl}/nowhere`, model: 'm' });
    let err: unknown;
    try {
      await bad.embed(['x']);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(EmbeddingError);
  });
});
