/**
 * The staged snapshot of issue 12 (src/sources/snapshot-session.ts): a listing examined in the ingest pool a chunk at
 * a time, staged, and published by one swap. What must not change from the one-transaction apply it replaced, and
 * what it adds: names listed twice are judged over the whole listing whatever chunk each copy fell in; a swap
 * planned before another projection of the source publishes nothing; an unchanged listing is not gated again.
 */
import { expect } from 'chai';
import { StaleSnapshotError } from '../../src/sources/source-snapshot.service';
import { heavyTool, heavyTools } from '../fixtures/heavy-tools';
import { forEachDatabase } from '../helpers/databases';
import { hostPerSuite } from '../helpers/test-host';

const CLASSIFY = 'mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }';

forEachDatabase('issue 12: staged snapshots', (database) => {
  const suite = hostPerSuite(database, { startSources: false });
  const register = (name: string) =>
    suite.host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name, transport: 'stdio', command: 'not-run', enabled: false, syncIntervalSeconds: 0 } });
  const upstream = async (source: string) =>
    (await suite.host.gqlOk<{ upstreamTools: Array<{ name: string; quarantineReason: string | null }> }>('query($s: String!) { upstreamTools(source: $s) { name quarantineReason } }', { s: source })).upstreamTools;

  it('a name listed twice with different definitions is quarantined whatever chunk each copy is in; identical copies collapse', async function () {
    this.timeout(60000);
    await register('dups');
    // ~22 KB per tool: the listing spans several pool chunks, and the copies sit in the first and the last.
    const tools = [...heavyTools(30), { ...heavyTool(0), description: 'the same name, another definition' }, heavyTool(1)];
    const out = await suite.host.app.services.snapshots.apply('dups', tools);
    expect(out).to.include({ served: 29, quarantined: 1, added: 29 });
    const listed = await upstream('dups');
    expect(listed).to.have.length(30);
    expect(listed.find((u) => u.name === 'heavy_00000')?.quarantineReason).to.equal('the server listed 2 different tools named "heavy_00000"');
    expect(listed.filter((u) => u.quarantineReason)).to.have.length(1);
    expect((await suite.host.app.dataSource.query("SELECT count(*) AS n FROM tool WHERE origin = 'dups'"))[0].n).to.satisfy((n: unknown) => Number(n) === 29);
  });

  it('a paged snapshot planned before a classification publishes nothing (stale); applied again, it keeps the decision', async function () {
    this.timeout(60000);
    const { host } = suite;
    await register('paged');
    await host.app.services.snapshots.apply('paged', heavyTools(12, 0, 'p'));
    const writer = await host.app.services.snapshots.begin('paged');
    await writer.add(heavyTools(12, 1, 'p')); // annotations changed: every served row would be rewritten
    await host.gqlOk(CLASSIFY, { i: { toolId: 'mcp.paged.p_00003', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
    const err = await writer.commit().then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(StaleSnapshotError);
    const claims = async () => (await host.app.dataSource.query("SELECT claims FROM tool WHERE tool_id = 'mcp.paged.p_00005'"))[0].claims as string;
    expect(JSON.parse(await claims())).to.include({ churn: 0 }); // nothing of the stale snapshot was published
    await host.app.services.snapshots.apply('paged', heavyTools(12, 1, 'p'));
    expect(JSON.parse(await claims())).to.include({ churn: 1 });
    const row = (await host.app.dataSource.query("SELECT safety_tier FROM tool WHERE tool_id = 'mcp.paged.p_00003'"))[0] as { safety_tier: string };
    expect(row.safety_tier).to.equal('read');
  });

  it('a listing streamed page by page is staged as it arrives and, when the source was projected meanwhile, fetched again from the start', async function () {
    this.timeout(60000);
    const { host } = suite;
    await register('streamed');
    await host.app.services.snapshots.apply('streamed', heavyTools(12, 0, 'q'));
    const pages = [heavyTools(12, 1, 'q').slice(0, 5), heavyTools(12, 1, 'q').slice(5, 10), heavyTools(12, 1, 'q').slice(10)];
    const events: string[] = [];
    let listings = 0;
    const out = await host.app.services.snapshots.applyListed('streamed', async (eachPage) => {
      const n = ++listings;
      for (const [i, page] of pages.entries()) {
        // The first listing is overtaken by a classification after its first page: its snapshot must not be published.
        if (n === 1 && i === 1) await host.gqlOk(CLASSIFY, { i: { toolId: 'mcp.streamed.q_00003', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
        events.push(`listing ${n} page ${i}`);
        await eachPage(page);
        events.push(`listing ${n} page ${i} staged`);
      }
    });
    expect(listings, 'fetched again after the stale attempt').to.equal(2);
    // Each page is examined and staged before the next is asked for: the listing is never held whole.
    expect(events).to.deep.equal([1, 2].flatMap((n) => [0, 1, 2].flatMap((i) => [`listing ${n} page ${i}`, `listing ${n} page ${i} staged`])));
    expect(out).to.include({ served: 12, changed: 12, added: 0 });
    const rows = (await host.app.dataSource.query("SELECT tool_id, safety_tier, claims FROM tool WHERE origin = 'streamed' ORDER BY tool_id")) as Array<{ tool_id: string; safety_tier: string; claims: string }>;
    expect(rows.map((r) => JSON.parse(r.claims).churn)).to.deep.equal(Array(12).fill(1));
    expect(rows.find((r) => r.tool_id === 'mcp.streamed.q_00003')?.safety_tier).to.equal('read');
    // A refusal before the commit publishes nothing.
    const refused = await host.app.services.snapshots.applyListed('streamed', async (eachPage) => eachPage(heavyTools(3, 2, 'q')), () => {
      throw new Error('lease lost');
    }).then(() => null, (e: Error) => e.message);
    expect(refused).to.equal('lease lost');
    expect((await host.app.dataSource.query("SELECT count(*) AS n FROM tool WHERE origin = 'streamed'"))[0].n).to.satisfy((n: unknown) => Number(n) === 12);
  });

  it('an unchanged listing is not examined again, and a row stored without a listing hash is compared by text once', async function () {
    this.timeout(60000);
    const { host } = suite;
    await register('same');
    const tools = heavyTools(20, 0, 's');
    await host.app.services.snapshots.apply('same', tools);
    const pool = host.app.services.snapshots.pool;
    const submit = pool.submit.bind(pool);
    let chunks = 0;
    pool.submit = (build) => {
      chunks++;
      return submit(build);
    };
    try {
      await host.app.dataSource.query("UPDATE upstream_tool SET raw_hash = NULL WHERE source_name = 'same' AND name = 's_00007'");
      const out = await host.app.services.snapshots.apply('same', tools);
      expect(out).to.deep.equal({ added: 0, changed: 0, removed: 0, quarantined: 0, served: 20 });
      expect(chunks, 'only the row without a stored hash was examined').to.equal(1);
      chunks = 0;
      await host.app.services.snapshots.apply('same', tools);
      expect(chunks, 'its hash was filled in').to.equal(0);
    } finally {
      pool.submit = submit;
    }
    const history = await host.gqlOk<{ toolChanges: Array<{ kind: string }> }>('{ toolChanges(source: "same", first: 50) { kind } }');
    expect(history.toolChanges.map((c) => c.kind)).to.deep.equal(Array(20).fill('added'));
    const removed = await host.app.services.snapshots.apply('same', tools.slice(5));
    expect(removed).to.include({ removed: 5, served: 15 });
  });
});
