/**
 * Issue 18, end to end: another tenant's tools cannot change a caller's search. A seeded random catalog is served
 * over HTTP; the caller's GraphQL searchTools answers (order, scores, matched) and REST bytes and ETags for random
 * task texts are recorded, a second tenant then syncs its own random tools drawn from the same words (so they match
 * the same queries), and every answer must be identical; again after that tenant's source is removed.
 * The seed is printed; SEARCH_SEED=<n> replays a run.
 */
import { expect } from 'chai';
import { mulberry32 } from '../compact/sampler';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const SEED = Number(process.env.SEARCH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORDS = ['weather', 'forecast', 'file', 'read', 'write', 'stock', 'price', 'route', 'map', 'news', 'pdf', 'image', 'email', 'search', 'calendar', 'invoice', 'translate', 'database', 'query', 'music'];
const TOOLS = 30;
const QUERIES = 12;

function catalog(rnd: () => number, prefix: string): Array<{ name: string; description: string; inputSchema: unknown }> {
  const word = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const words = (n: number) => Array.from({ length: n }, word);
  return Array.from({ length: TOOLS }, (_, i) => ({
    name: `${prefix}_${i}_${words(2).join('_')}`,
    description: words(1 + Math.floor(rnd() * 12)).join(' '),
    inputSchema: { type: 'object', properties: Object.fromEntries(words(Math.floor(rnd() * 3)).map((w) => [w, { type: 'string', description: words(3).join(' ') }])) },
  }));
}

const SEARCH = `query($q: String!) { searchTools(query: $q, limit: 100) { matched hits { score tool { ... on ToolDescriptor { toolId } } } } }`;

forEachDatabase('issue 18: cross-tenant search isolation (seeded property, over HTTP)', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, { startSources: false });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  it(`a neighbour tenant's matching tools change no answer of the caller (seed ${SEED})`, async function () {
    this.timeout(60_000);
    console.log(`      search isolation seed ${SEED} (SEARCH_SEED to replay)`);
    const rnd = mulberry32(SEED);
    const caller = await aTenantWithKey(host, 'caller');
    const neighbour = await aTenantWithKey(host, 'neighbour');
    await aSimulatedSource(host, 'shared');
    await applyListing(host, 'shared', catalog(rnd, 'g'));
    await aSimulatedSource(host, 'mine', caller.tenantId);
    await applyListing(host, 'mine', catalog(rnd, 'm'));
    await aGrant(host, { tenantId: caller.tenantId, toolPattern: '*' });
    await aGrant(host, { tenantId: neighbour.tenantId, toolPattern: '*' });
    const queries = Array.from({ length: QUERIES }, () => Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' '));
    const answers = async () =>
      Promise.all(
        queries.map(async (q) => {
          const g = await host.gqlOk(SEARCH, { q }, caller.key);
          const r = await host.get(`/tools?q=${encodeURIComponent(q)}&limit=100`, caller.key);
          expect(r.status).to.equal(200);
          return { g, body: r.text, etag: r.headers.get('etag') };
        }),
      );
    const alone = await answers();
    expect(alone.some((a) => (a.g as { searchTools: { matched: number } }).searchTools.matched > 0)).to.equal(true);
    await aSimulatedSource(host, 'theirs', neighbour.tenantId);
    await applyListing(host, 'theirs', catalog(rnd, 't'));
    // Indexed: the neighbour finds its own tools with the very same queries.
    const theirs = await host.gqlOk<{ searchTools: { hits: Array<{ tool: { toolId: string } }> } }>(SEARCH, { q: queries.join(' ') }, neighbour.key);
    expect(theirs.searchTools.hits.some((h) => h.tool.toolId.startsWith('mcp.theirs.'))).to.equal(true);
    expect(await answers()).to.deep.equal(alone);
    await host.gqlOk('mutation { removeSource(name: "theirs") }');
    expect(await answers()).to.deep.equal(alone);
  });
});
