/**
 * Issue 12 defect 3: a reclassification could be silently lost. When `classifyTool` raced a sync of a source whose
 * annotations change on every listing, the sync's projection (which read the decisions before the mutation
 * committed) rewrote the tool with the old tier after the mutation had answered with the new one: classification
 * row `write`, served row `read`, until the next projection. A hostile server controls both the churn and
 * `list_changed`, so it could defeat a tightening. Here every round races one churned listing against one
 * reclassification (alternating tiers, so each round changes it) and then compares the served row with the
 * classification row.
 */
import { expect } from 'chai';
import { ClassificationEntity } from '../../src/persistence/classification.entity';
import { ToolEntity } from '../../src/persistence/tool.entity';
import { forEachDatabase } from '../helpers/databases';
import { hostPerSuite } from '../helpers/test-host';

const ROUNDS = 30;
const TOOLS = 800;
const CLASSIFY = 'mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId descriptor { safetyTier } } }';

/** The churning listing: the same definitions every time, annotations that differ on every listing. */
function listing(round: number): unknown[] {
  return Array.from({ length: TOOLS }, (_, i) => ({
    name: `tool_${String(i).padStart(4, '0')}`,
    description: `Tool ${i} of a source whose annotations change on every listing.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string', description: `id of record ${i}` }, limit: { type: 'integer' } } },
    annotations: { readOnlyHint: round % 2 === 0, title: `listing ${round}`, churn: round },
  }));
}

forEachDatabase('issue 12 defect 3: a reclassification can be silently lost', (database) => {
  const suite = hostPerSuite(database, { startSources: false });

  it(`${ROUNDS} rounds of classifyTool racing a churning sync: the served tier is always the classified tier`, async function () {
    this.timeout(180_000);
    const { host } = suite;
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name: 'churn', transport: 'stdio', command: 'not-run', enabled: false, syncIntervalSeconds: 0 } });
    // How long one churned sync takes here: the mutations are spread over that span (a schedule, not an assertion).
    const t0 = Date.now();
    await host.app.services.snapshots.apply('churn', listing(0));
    const span = Math.max(20, Date.now() - t0);
    // The tool the mutations target is listed last, so a stale projection reaches it after the mutation committed.
    const toolId = `mcp.churn.tool_${String(TOOLS - 1).padStart(4, '0')}`;
    await host.gqlOk(CLASSIFY, { i: { toolId, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
    const lost: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const tier = round % 2 === 1 ? 'write' : 'read';
      // Staggered starts (tenths of a sync's span, both orders) so that the mutation lands at every point of the sync.
      const lead = Math.round((span * ((round * 7) % 10)) / 10);
      const syncFirst = round % 3 !== 0;
      const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const [, answer] = await Promise.all([
        (async () => {
          if (!syncFirst) await delay(lead);
          return host.app.services.snapshots.apply('churn', listing(round));
        })(),
        (async () => {
          if (syncFirst) await delay(lead);
          return host.gqlOk<{ classifyTool: { descriptor: { safetyTier: string } } }>(CLASSIFY, { i: { toolId, safetyTier: tier, replayPolicy: 'non-idempotent', egress: 'open' } });
        })(),
      ]);
      const decided = await host.app.dataSource.getRepository(ClassificationEntity).findOneByOrFail({ toolId });
      const served = await host.app.dataSource.getRepository(ToolEntity).findOneByOrFail({ toolId });
      const claims = JSON.parse(served.claims ?? 'null') as { churn?: number } | null;
      if (answer.classifyTool.descriptor.safetyTier !== tier || decided.safetyTier !== tier || served.safetyTier !== decided.safetyTier) {
        lost.push(`round ${round}: mutation answered ${answer.classifyTool.descriptor.safetyTier}, classification row ${decided.safetyTier}, served row ${served.safetyTier} (claims of listing ${claims?.churn})`);
      }
      expect(claims?.churn, `round ${round}: the listing of this round is the one served`).to.equal(round);
    }
    expect(lost, 'reclassifications lost to a concurrent sync').to.deep.equal([]);
    // And what agents get agrees with the rows: the REST descriptor carries the last tier.
    const last = await host.gqlOk<{ adminTool: { descriptor: { safetyTier: string } } }>('query($id: String!) { adminTool(toolId: $id) { descriptor { safetyTier } } }', { id: toolId });
    expect(last.adminTool.descriptor.safetyTier).to.equal(ROUNDS % 2 === 1 ? 'write' : 'read');
  });
});
