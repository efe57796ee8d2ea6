/**
 * Visibility before ranking (issue 18): a caller's results, scores and counts depend only on the tools it may see.
 * Property: for any catalog, adding, editing or removing tools outside a caller's visible set (another tenant's, or
 * global tools it has no grant for) leaves its hits, scores, `matched` and `visible` exactly equal, and a caller
 * sharing the index with a big neighbour ranks exactly as in an index holding only its own visible tools.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { SearchDocument } from '../../src/search/fields';
import { SearchIndex } from '../../src/search/index';

const SEED = Number(process.env.FC_SEED ?? 1802);
const RUNS = 80;
const WORDS = ['weather', 'forecast', 'file', 'read', 'write', 'stock', 'price', 'route', 'map', 'news', 'pdf', 'image', 'email', 'search', 'calendar', 'invoice'];
const QUERIES = ['weather forecast for my city', 'read and write a pdf file', 'stock price news today', 'email search invoice calendar', 'map route image'];

const textArb = fc.array(fc.constantFrom(...WORDS), { maxLength: 10 }).map((w) => w.join(' '));
const toolArb = fc.record({ owner: fc.constantFrom<string | null>(null, 'acme', 'other'), name: textArb, description: textArb, visible: fc.boolean() });

function docOf(i: number, t: { owner: string | null; name: string; description: string }, tag = ''): SearchDocument {
  return {
    toolId: `mcp.${t.owner ?? 'global'}${tag}.tool${String(i).padStart(3, '0')}`, tenantId: t.owner, name: t.name.replace(/ /g, '_') || 'tool',
    description: t.description, inputSchema: {}, source: t.owner ?? 'global',
  };
}

describe('search visibility (cross-tenant)', () => {
  it(`another tenant's tools and invisible global tools never change a caller's ranking (${RUNS} runs, seed ${SEED})`, function () {
    this.timeout(120_000);
    fc.assert(
      fc.property(fc.array(toolArb, { minLength: 1, maxLength: 40 }), fc.array(toolArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 12 }), (base, noise, k) => {
        // The caller is a principal of tenant acme: it may see some global and some acme tools, never other's.
        const docs = base.map((t, i) => docOf(i, t));
        const visibleIds = docs.filter((d, i) => base[i].visible && d.tenantId !== 'other').map((d) => d.toolId);
        const visible = { key: 'acme-agent', ids: visibleIds };
        const shared = new SearchIndex();
        for (const d of docs) shared.upsert(d);
        const before = QUERIES.map((q) => shared.rank(visible, q, k));
        // Outside the set: other's tools and invisible global/acme tools come, change and go.
        const outside = noise.map((t, i) => docOf(i, t, 'x'));
        for (const d of outside) shared.upsert(d);
        for (const [i, d] of docs.entries()) if (!visibleIds.includes(d.toolId) && i % 2 === 0) shared.remove(d.toolId);
        for (const d of outside.slice(0, outside.length >> 1)) shared.upsert({ ...d, description: `${d.description} weather stock file` });
        for (const d of outside.filter((_, i) => i % 3 === 0)) shared.remove(d.toolId);
        const after = QUERIES.map((q) => shared.rank({ key: 'acme-agent-2', ids: visibleIds }, q, k));
        expect(after).to.deep.equal(before);
        // And exactly as if the index held the visible tools alone.
        const alone = new SearchIndex();
        for (const d of docs) if (visibleIds.includes(d.toolId)) alone.upsert(d);
        expect(QUERIES.map((q) => alone.rank({ key: null, ids: visibleIds }, q, k))).to.deep.equal(before);
        for (const r of before) for (const h of r.hits) expect(visibleIds).to.include(h.toolId);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    console.log(`      visibility independence: ${RUNS} runs, seed ${SEED} (FC_SEED to replay)`);
  });

  it('a query never reads another tenant\'s partition', () => {
    const index = new SearchIndex();
    index.upsert(docOf(1, { owner: 'acme', name: 'weather', description: 'weather forecast' }));
    index.upsert(docOf(2, { owner: null, name: 'weather_alerts', description: 'weather' }));
    for (let i = 0; i < 200; i++) index.upsert(docOf(i, { owner: 'other', name: 'weather', description: 'weather forecast weather' }, 'o'));
    const partitions = (index as unknown as { partitions: Map<string | null, { postings: Map<string, unknown> }> }).partitions;
    const other = partitions.get('other')!;
    const reads: string[] = [];
    const real = other.postings;
    other.postings = new Proxy(real, {
      get(target, prop, receiver) {
        reads.push(String(prop));
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Map<string, unknown>;
    const r = index.rank({ key: null, ids: ['mcp.acme.tool001', 'mcp.global.tool002'] }, 'weather forecast', 5);
    expect(r.hits.map((h) => h.toolId)).to.deep.equal(['mcp.acme.tool001', 'mcp.global.tool002']);
    expect(reads).to.deep.equal([]);
  });
});
