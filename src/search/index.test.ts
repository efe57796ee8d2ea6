/** Pins the ranking core (issue 18): BM25F sanity, counts, ties, determinism, incremental maintenance, bad input. */
import { expect } from 'chai';
import fc from 'fast-check';
import type { SearchDocument } from './fields';
import { SearchIndex, type VisibleSetRef } from './index';
import { MAX_QUERY_CHARS, SearchQueryError } from './query';

const SEED = Number(process.env.FC_SEED ?? 1801);

function doc(toolId: string, name: string, description = '', extra: Partial<SearchDocument> = {}): SearchDocument {
  return { toolId, tenantId: null, name, description, inputSchema: { type: 'object', properties: {} }, source: 'src', ...extra };
}

function all(ids: readonly string[], key: string | null = null): VisibleSetRef {
  return { key, ids };
}

const CORPUS: SearchDocument[] = [
  doc('mcp.weather.get_forecast', 'get_forecast', 'Weather forecast for a city for the next days.', { inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City name' } } } }),
  doc('mcp.weather.get_alerts', 'get_alerts', 'Active weather alerts for a US state.'),
  doc('mcp.files.read_file', 'read_file', 'Read the complete contents of a file from the file system.', { inputSchema: { type: 'object', properties: { path: { type: 'string' } } } }),
  doc('mcp.files.write_file', 'write_file', 'Create a new file or overwrite an existing file with new content.'),
  doc('mcp.maps.geocode', 'geocode_address', 'Convert an address into coordinates. Mentions weather once.'),
  doc('mcp.stocks.quote', 'getStockQuote', 'Current price of a stock ticker.'),
  doc('mcp.cn.news', 'get-toutiao-trending', '获取今日头条热榜'),
];
const IDS = CORPUS.map((d) => d.toolId);

function indexOf(docs: readonly SearchDocument[]): SearchIndex {
  const index = new SearchIndex();
  for (const d of docs) index.upsert(d);
  return index;
}

describe('SearchIndex', () => {
  it('ranks name matches above description-only mentions, and counts only matches', () => {
    const index = indexOf(CORPUS);
    const r = index.rank(all(IDS), 'What is the weather forecast in Paris tomorrow?', 10);
    expect(r.hits[0].toolId).to.equal('mcp.weather.get_forecast');
    expect(r.hits.map((h) => h.toolId)).to.include.members(['mcp.weather.get_alerts', 'mcp.maps.geocode']);
    expect(r.matched).to.equal(r.hits.length);
    expect(r.visible).to.equal(CORPUS.length);
    expect(r.hits.every((h) => h.score > 0)).to.equal(true);
    for (let i = 1; i < r.hits.length; i++) expect(r.hits[i - 1].score).to.be.at.least(r.hits[i].score);
  });

  it('matches camelCase names, parameter names and CJK descriptions', () => {
    const index = indexOf(CORPUS);
    expect(index.rank(all(IDS), 'stock quote for AAPL', 1).hits[0].toolId).to.equal('mcp.stocks.quote');
    expect(index.rank(all(IDS), 'getStockQuote', 1).hits[0].toolId).to.equal('mcp.stocks.quote');
    expect(index.rank(all(IDS), 'read the file at this path', 1).hits[0].toolId).to.equal('mcp.files.read_file');
    expect(index.rank(all(IDS), '今日头条', 1).hits[0].toolId).to.equal('mcp.cn.news');
  });

  it('returns at most k, and nothing for a query of stop words or numbers only', () => {
    const index = indexOf(CORPUS);
    expect(index.rank(all(IDS), 'file weather', 2).hits).to.have.length(2);
    const none = index.rank(all(IDS), 'the of and 42', 5);
    expect(none.hits).to.deep.equal([]);
    expect(none.matched).to.equal(0);
  });

  it('breaks equal scores by toolId and answers the same bytes every time', () => {
    const twins = ['mcp.b.t', 'mcp.a.t', 'mcp.c.t'].map((id) => doc(id, 'twin_tool', 'Identical text.'));
    const index = indexOf(twins);
    const ids = twins.map((d) => d.toolId);
    const r = index.rank(all(ids), 'twin tool', 3);
    expect(r.hits.map((h) => h.toolId)).to.deep.equal(['mcp.a.t', 'mcp.b.t', 'mcp.c.t']);
    expect(new Set(r.hits.map((h) => h.score)).size).to.equal(1);
    const again = indexOf([...twins].reverse());
    expect(JSON.stringify(again.rank(all([...ids].reverse(), 'k'), 'twin tool', 3).hits)).to.equal(JSON.stringify(r.hits));
    expect(JSON.stringify(index.rank(all(ids, 'k'), 'twin tool', 3).hits)).to.equal(JSON.stringify(r.hits));
  });

  it('re-indexes only changed text; a removed tool is gone; an unknown visible id is ignored', () => {
    const index = indexOf(CORPUS);
    expect(index.upsert(CORPUS[0])).to.equal(false);
    expect(index.upsert({ ...CORPUS[5], description: 'Current price of a stock ticker and its weather.' })).to.equal(true);
    expect(index.rank(all(IDS), 'weather', 10).hits.map((h) => h.toolId)).to.include('mcp.stocks.quote');
    expect(index.remove('mcp.weather.get_forecast')).to.equal(true);
    expect(index.remove('mcp.weather.get_forecast')).to.equal(false);
    const r = index.rank(all([...IDS, 'mcp.never.indexed']), 'weather forecast', 10);
    expect(r.hits.map((h) => h.toolId)).to.not.include('mcp.weather.get_forecast');
    expect(r.visible).to.equal(CORPUS.length - 1);
  });

  it('incremental maintenance (adds, edits, removals, compaction) ranks exactly like a fresh build', function () {
    this.timeout(120_000);
    const vocab = ['weather', 'file', 'read', 'write', 'stock', 'price', 'map', 'route', 'city', 'news', 'image', 'pdf', 'search', 'paper', 'email', 'calendar'];
    const textArb = fc.array(fc.constantFrom(...vocab), { minLength: 0, maxLength: 12 }).map((ws) => ws.join(' '));
    const opArb = fc.record({ id: fc.integer({ min: 0, max: 59 }), kind: fc.constantFrom('upsert', 'upsert', 'remove'), name: textArb, description: textArb, tenant: fc.constantFrom(null, 't1') });
    const queries = ['weather in the city', 'read a pdf file', 'stock price news', 'search paper email calendar route'];
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 400 }), (ops) => {
        const live = new Map<string, SearchDocument>();
        const index = new SearchIndex();
        for (const op of ops) {
          const id = `mcp.s.tool${op.id}`;
          if (op.kind === 'remove') {
            index.remove(id);
            live.delete(id);
          } else {
            const d = doc(id, op.name.replace(/ /g, '_') || 'x', op.description, { tenantId: op.tenant });
            index.upsert(d);
            live.set(id, d);
          }
        }
        const fresh = indexOf([...live.values()]);
        const ids = [...live.keys()];
        for (const q of queries) expect(index.rank(all(ids), q, 20)).to.deep.equal(fresh.rank(all(ids), q, 20));
        expect(index.size).to.equal(live.size);
      }),
      { numRuns: 60, seed: SEED },
    );
    console.log(`      incremental = rebuild: 60 runs, seed ${SEED}`);
  });

  it('pruning (MaxScore with the view\'s tight term bounds, candidates dropped) gives exactly the exhaustive top k', function () {
    this.timeout(120_000);
    // Skewed vocabulary (a few very common words, many rare ones) and long queries: the case where pruning starts
    // early and drops candidates. With k >= the visible count nothing is pruned, so that ranking is the reference.
    const common = ['file', 'data', 'get', 'list', 'search'];
    const rare = ['weather', 'stock', 'pdf', 'email', 'calendar', 'route', 'image', 'invoice', 'paper', 'news', 'map', 'price', 'city', 'chart', 'sql'];
    const wordArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...common) }, { weight: 1, arbitrary: fc.constantFrom(...rare) });
    const textArb = fc.array(wordArb, { minLength: 0, maxLength: 16 }).map((ws) => ws.join(' '));
    const toolArb = fc.record({ name: textArb, description: textArb, visible: fc.boolean() });
    const queryArb = fc.array(fc.constantFrom(...common, ...rare), { minLength: 1, maxLength: 30 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.array(toolArb, { minLength: 1, maxLength: 150 }), fc.array(queryArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 8 }), (tools, queries, k) => {
        const docs = tools.map((t, i) => doc(`mcp.s.t${String(i).padStart(3, '0')}`, t.name.replace(/ /g, '_') || 'x', t.description));
        const index = indexOf(docs);
        const visible = all(docs.filter((_, i) => tools[i].visible || i % 3 === 0).map((d) => d.toolId), 'v');
        for (const q of queries) {
          const full = index.rank(visible, q, docs.length + 1);
          const top = index.rank(visible, q, k);
          expect(top.hits).to.deep.equal(full.hits.slice(0, k));
          expect(top.matched).to.equal(full.matched);
        }
      }),
      { numRuns: 150, seed: SEED },
    );
    console.log(`      pruned top k = exhaustive top k: 150 runs, seed ${SEED}`);
  });

  it('compacts dead postings and still ranks correctly', () => {
    const docs = Array.from({ length: 600 }, (_, i) => doc(`mcp.s.t${String(i).padStart(4, '0')}`, `tool_${i % 7}`, `alpha beta gamma delta epsilon zeta eta theta iota kappa ${i % 3 ? 'weather' : 'file'}`));
    const index = indexOf(docs);
    for (let i = 0; i < 450; i++) index.remove(docs[i].toolId);
    const st = index.stats();
    expect(st.deadPostings * 4).to.be.at.most(st.postings + 1024 + 16); // compaction ran (or the rest is under the floor)
    const kept = docs.slice(450);
    expect(index.rank(all(docs.map((d) => d.toolId)), 'weather', 200)).to.deep.equal(indexOf(kept).rank(all(kept.map((d) => d.toolId)), 'weather', 200));
  });

  describe('bad input', () => {
    const index = indexOf(CORPUS);
    const code = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        if (e instanceof SearchQueryError) return e.code;
        throw e;
      }
      return 'no error';
    };

    it('refuses empty, blank, non-string and over-long queries with a clear code and message', () => {
      expect(code(() => index.rank(all(IDS), '', 5))).to.equal('query_empty');
      expect(code(() => index.rank(all(IDS), ' \n\t ', 5))).to.equal('query_empty');
      expect(code(() => index.rank(all(IDS), 42 as unknown as string, 5))).to.equal('query_not_text');
      const mb = 'weather '.repeat(131072); // 1 MiB
      expect(code(() => index.rank(all(IDS), mb, 5))).to.equal('query_too_long');
      try {
        index.rank(all(IDS), mb, 5);
      } catch (e) {
        expect((e as Error).message).to.contain(String(MAX_QUERY_CHARS));
      }
      expect(() => index.rank(all(IDS), 'weather', 0)).to.throw(RangeError);
      expect(() => index.rank(all(IDS), 'weather', 1.5)).to.throw(RangeError);
    });

    it('accepts control characters, lone surrogates and pasted data safely', () => {
      expect(index.rank(all(IDS), 'weather\u0000\u0007forecast\u202e\ud800', 1).hits[0].toolId).to.equal('mcp.weather.get_forecast');
      const png = `What does this image mean? ${'iVBORw0KGgoAAAANSUhEUgAA'.repeat(2000)}`;
      expect(png.length).to.be.below(MAX_QUERY_CHARS);
      const r = index.rank(all(IDS), png, 5);
      expect(r.query.terms).to.deep.equal(['imag', 'mean']); // "does" is a stop word, the data run is dropped
      expect(index.rank(all(IDS), '\u0000\u0001', 5).hits).to.deep.equal([]);
    });

    it('indexes tools with empty, huge or hostile text without failing', () => {
      const ix = new SearchIndex();
      ix.upsert(doc('mcp.s.empty', 'empty', ''));
      ix.upsert(doc('mcp.s.huge', 'huge', 'weather '.repeat(2048), { inputSchema: '{not json' }));
      ix.upsert(doc('mcp.s.ctl', 'ctl\u0000name', '\u202eweather\ud800', { inputSchema: { properties: { a: { properties: { b: { description: 'deep weather' } } } } } }));
      const r = ix.rank(all(['mcp.s.empty', 'mcp.s.huge', 'mcp.s.ctl']), 'weather', 5);
      expect(r.hits.map((h) => h.toolId).sort()).to.deep.equal(['mcp.s.ctl', 'mcp.s.huge']);
      expect(r.hits[0].toolId).to.equal('mcp.s.ctl'); // one honest mention beats 2,048 repeats
    });
  });
});
