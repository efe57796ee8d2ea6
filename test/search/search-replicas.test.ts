/**
 * Issue 18 on several replicas (PostgreSQL): a sync published by one replica reaches the other replica's search
 * index through the catalog's own notification (LISTEN/NOTIFY; the version poll is off, so nothing else can have
 * told it), and both answer the same bytes and ETag. No wall clock is asserted: the wait loop only bounds how long
 * a broken notification path takes to fail the test.
 */
import { expect } from 'chai';
import { DATABASES } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const postgres = DATABASES.find((d) => d.name === 'postgres');

describe('issue 18: search on two replicas of one PostgreSQL database', function () {
  this.timeout(60_000);
  if (!postgres) {
    it('not run: set TEST_POSTGRES_URL (.ci/run sets it)');
    return;
  }
  let a: TestHost;
  let b: TestHost;
  let drop: () => Promise<void>;

  before(async () => {
    const created = await postgres.create();
    drop = created.drop;
    a = await startHost(created.db, { startSources: false, versionPollMs: 0 });
    b = await startHost(created.db, { startSources: false, versionPollMs: 0 }, false);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await drop?.();
  });

  it('a tool synced through one replica is found by the other, byte-identical', async () => {
    const agent = await aTenantWithKey(a, 'agents');
    await aGrant(a, { tenantId: agent.tenantId, toolPattern: '*' });
    await aSimulatedSource(a, 'geo');
    const q = '/tools?q=' + encodeURIComponent('geocode a street address to coordinates');
    expect((await b.get(q, agent.key)).json()).to.deep.equal([]); // b's index is warm before the change
    await applyListing(a, 'geo', [{ name: 'geocode', description: 'Geocode a street address to latitude and longitude coordinates.', inputSchema: { type: 'object', properties: { address: { type: 'string' } } } }]);
    const started = Date.now();
    let seen = await b.get(q, agent.key);
    while (seen.text === '[]' && Date.now() - started < 10_000) {
      await new Promise((r) => setTimeout(r, 20));
      seen = await b.get(q, agent.key);
    }
    const fromA = await a.get(q, agent.key);
    expect((fromA.json() as Array<{ toolId: string }>).map((d) => d.toolId)).to.deep.equal(['mcp.geo.geocode']);
    expect(seen.text).to.equal(fromA.text);
    expect(seen.headers.get('etag')).to.equal(fromA.headers.get('etag'));
    expect(b.app.searchIndex.index.has('mcp.geo.geocode')).to.equal(true);
  });
});
