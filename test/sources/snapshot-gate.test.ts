/**
 * A sync gates each listed tool once and the projection reuses that result (src/sources/snapshot.ts). What it
 * stores must be exactly what gating the stored listing afresh gives: after applying real captured listings,
 * a projection that gates everything again changes nothing, with or without the host's decisions.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { projectSource } from '../../src/sources/source-projection';
import { forEachDatabase } from '../helpers/databases';
import { hostPerSuite } from '../helpers/test-host';

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'mcp-tools');

forEachDatabase('sync: the gate runs once per tool', (database) => {
  const suite = hostPerSuite(database, { startSources: false });

  it('the rows a sync stores equal a fresh projection of the stored listing (every captured server, classified or not)', async function () {
    this.timeout(30000);
    const { host } = suite;
    let served = 0;
    for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json'))) {
      const name = file.replace(/\.json$/, '').replace(/[^a-z0-9]/g, '');
      const tools = (JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { tools: unknown[] }).tools;
      await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name, transport: 'stdio', command: 'not-run', enabled: false, syncIntervalSeconds: 0 } });
      const first = await host.app.services.snapshots.apply(name, tools);
      expect(first.served, file).to.equal(tools.length - first.quarantined);
      served += first.served;
      // Classify one tool, drop it from the listing, list it again: it comes back through the reused gate output,
      // and the host's decision (kept for its definition) must be applied to it.
      const one = (await host.gqlOk<{ upstreamTools: Array<{ toolId: string; name: string }> }>('query($n: String!) { upstreamTools(source: $n) { toolId name } }', { n: name })).upstreamTools.find((u) => u.toolId);
      if (one) {
        await host.gqlOk('mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }', { i: { toolId: one.toolId, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' } });
        await host.app.services.snapshots.apply(name, tools.filter((t) => (t as { name: string }).name !== one.name));
      }
      await host.app.services.snapshots.apply(name, [...tools].reverse());
      if (one) {
        const row = (await host.gqlOk<{ adminTool: { classified: boolean; descriptor: { safetyTier: string } } }>('query($id: String!) { adminTool(toolId: $id) { classified descriptor { safetyTier } } }', { id: one.toolId })).adminTool;
        expect(row, `${file} ${one.toolId}`).to.deep.equal({ classified: true, descriptor: { safetyTier: 'read' } });
      }
      const again = await host.app.dataSource.transaction((m) => projectSource(m, name, host.app.log));
      expect(again, file).to.deep.equal({ served: first.served, changed: false });
    }
    expect(served).to.be.greaterThan(100);
  });
});
