/**
 * Issue 13: the projection skipped a stored MCP tool that the current ingest gate refuses without a word. It is
 * still not served, and now a warn line says which tool of which source and why, with credential material redacted.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { projectSource } from '../../src/sources/source-projection';
import { forEachDatabase } from '../helpers/databases';
import { hostPerSuite } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** A GitHub PAT shape, fresh each run: a hit can only come from this test. */
const TOKEN = `ghp_${[...randomBytes(36)].map((b) => ALNUM[b % ALNUM.length]).join('')}`;

forEachDatabase('issue 13: a tool the projection skips is logged', (database) => {
  const suite = hostPerSuite(database, { startSources: false });

  it('a stored tool the current gate refuses is not served, and a warn line names source, tool and reason without the secret', async () => {
    const { host } = suite;
    await aSimulatedSource(host, 'docs');
    await applyListing(host, 'docs', [{ name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object' } }, { name: 'keep', inputSchema: { type: 'object' } }]);
    // What an older gate let through and this one refuses: a name holding a token the detector did not know then.
    const p = host.app.dataSource.options.type === 'postgres' ? ['$1', '$2'] : ['?', '?'];
    await host.app.dataSource.query(`UPDATE upstream_tool SET name = ${p[0]}, raw = ${p[1]} WHERE tool_id = 'mcp.docs.lookup'`, [
      `lookup-${TOKEN}`,
      JSON.stringify({ name: `lookup-${TOKEN}`, description: 'Looks a word up', inputSchema: { type: 'object' } }),
    ]);
    await host.app.dataSource.query(`UPDATE tool SET gate_version = '2' WHERE tool_id = 'mcp.docs.lookup'`);
    const from = host.logs.length;
    const r = await host.app.dataSource.transaction((m) => projectSource(m, 'docs', host.app.log));
    expect(r).to.deep.equal({ served: 1, changed: true });
    const ids = (await host.app.dataSource.query('SELECT tool_id FROM tool ORDER BY tool_id')) as Array<{ tool_id: string }>;
    expect(ids.map((x) => x.tool_id)).to.deep.equal(['mcp.docs.keep']);
    const lines = host.logs.slice(from).join('').split('\n').filter((l) => l.includes('no longer passes the ingest gate'));
    expect(lines, host.logs.slice(from).join('')).to.have.length(1);
    const line = JSON.parse(lines[0]) as Record<string, unknown>;
    expect(line).to.include({ level: 40, source: 'docs', tool: 'lookup-[redacted]', toolId: 'mcp.docs.lookup', reason: 'name contains credential material' });
    expect(lines[0]).to.not.include(TOKEN);
    expect(host.logs.join('')).to.not.include(TOKEN);
  });
});
