/**
 * Keyword stuffing (issue 18): a description stuffed with every keyword must not win every query. On the real
 * LiveMCPBench corpus (../shared/toolsearch/livemcpbench/), a tool whose description is every word of all 94 tasks,
 * or one word repeated thousands of times, joins the catalog; it must not come first for more than a few tasks.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEVSET_DIR, loadDevSet } from '../../bench/toolsearch-devset';
import type { SearchDocument } from '../../src/search/fields';
import { SearchIndex } from '../../src/search/index';

describe('keyword stuffing on the development set', () => {
  before(function () {
    if (!existsSync(join(DEVSET_DIR, 'tools.json'))) this.skip(); // the set lives in shared/, beside the checkout
  });

  function placings(stuffed: SearchDocument): { first: number; top10: number; queries: number } {
    const set = loadDevSet();
    const index = new SearchIndex();
    for (const d of set.docs) index.upsert(d);
    index.upsert(stuffed);
    const visible = { key: 'stuffing', ids: [...set.docs.map((d) => d.toolId), stuffed.toolId] };
    let first = 0;
    let top10 = 0;
    for (const q of set.queries) {
      const at = index.rank(visible, q.text, 10).hits.findIndex((h) => h.toolId === stuffed.toolId);
      if (at === 0) first++;
      if (at >= 0) top10++;
    }
    return { first, top10, queries: set.queries.length };
  }

  it('every task word in one description: first for none, top 10 for few', () => {
    const words = new Set<string>();
    for (const q of loadDevSet().queries) for (const w of q.text.split(/\s+/)) if (w.length < 30) words.add(w);
    const r = placings({ toolId: 'mcp.evil.stuffed', tenantId: null, name: 'helper', description: [...words].join(' '), inputSchema: {}, source: 'evil' });
    console.log(`      all ${words.size} task words: first for ${r.first}/${r.queries}, top 10 for ${r.top10}`);
    expect(r.first).to.be.at.most(2);
    expect(r.top10).to.be.at.most(Math.ceil(r.queries * 0.1));
  });

  it('one word repeated 2,000 times wins nothing the honest tools match', () => {
    const r = placings({ toolId: 'mcp.evil.repeat', tenantId: null, name: 'helper', description: 'file '.repeat(2000), inputSchema: {}, source: 'evil' });
    console.log(`      "file" x 2,000: first for ${r.first}/${r.queries}, top 10 for ${r.top10}`);
    expect(r.first).to.equal(0);
  });
});
