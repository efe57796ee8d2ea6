/**
 * Issue 15: real MCP clients, no model needed, list and call through toolcat and see exactly the REST list's tools
 * and hints: the MCP Inspector CLI (`@modelcontextprotocol/inspector-cli`, a child process) and an agent framework's
 * MCP client (the Vercel AI SDK's `@ai-sdk/mcp`). The SDK `Client` is in mcp-face.test.ts.
 */
import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createMCPClient } from '@ai-sdk/mcp';
import { mcpNameOf } from '../../src/mcp-face/tool-name';
import { forEachDatabase } from '../helpers/databases';
import { EVERYTHING_BIN } from '../helpers/mcp-servers';
import { type TestHost, aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

const run = promisify(execFile);
// The CLI resolves its own package.json relative to the working directory: run it from its build folder.
const INSPECTOR = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');

interface Descriptor { toolId: string; annotations: Record<string, unknown>; title?: string }

forEachDatabase('real MCP clients through toolcat (issue 15)', (database) => {
  let agent: { tenantId: string; key: string };
  const s = hostPerSuite(database, {}, async (host: TestHost) => {
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], syncIntervalSeconds: 0 } });
    await host.gqlOk('mutation { syncSource(name: "everything") { status } }');
    agent = await aTenantWithKey(host, 'clients');
    await aGrant(host, { tenantId: agent.tenantId, toolPattern: 'mcp.everything.*' });
    await anExtension(host, { name: 'not_for_clients', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });
  const restList = async (): Promise<Descriptor[]> => {
    const body = (await s.host.get('/tools', agent.key)).json() as { tools: Descriptor[] } | Descriptor[];
    return Array.isArray(body) ? body : body.tools;
  };
  const inspector = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, [INSPECTOR, `${s.host.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${agent.key}`, ...args], { cwd: dirname(INSPECTOR), timeout: 30000 });
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  it('the MCP Inspector CLI lists the REST list (names and hints) and calls echo', async function () {
    this.timeout(60000);
    const rest = await restList();
    const listed = (await inspector('--method', 'tools/list')).tools as Array<{ name: string; annotations: Record<string, unknown> }>;
    expect(listed.map((t) => t.name)).to.deep.equal(rest.map((d) => mcpNameOf(d.toolId)));
    for (const [i, d] of rest.entries()) expect(listed[i].annotations).to.deep.equal({ ...(d.title !== undefined ? { title: d.title } : {}), ...d.annotations });
    const called = await inspector('--method', 'tools/call', '--tool-name', 'mcp.everything.echo', '--tool-arg', 'message=inspected');
    expect(called.content).to.deep.equal([{ type: 'text', text: 'Echo: inspected' }]);
  });

  it('the Vercel AI SDK MCP client lists the same tools and calls one through its tool set', async function () {
    this.timeout(60000);
    const client = await createMCPClient({ transport: { type: 'http', url: `${s.host.url}/mcp`, headers: { Authorization: `Bearer ${agent.key}` } }, name: 'toolcat-ai-sdk-test' });
    try {
      const rest = await restList();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).to.deep.equal(rest.map((d) => mcpNameOf(d.toolId)));
      for (const [i, d] of rest.entries()) expect(tools[i].annotations).to.deep.equal({ ...(d.title !== undefined ? { title: d.title } : {}), ...d.annotations });
      const set = await client.tools();
      expect(Object.keys(set)).to.not.include('ext.not_for_clients');
      const r = (await set['mcp.everything.echo'].execute!({ message: 'from the ai sdk' }, { toolCallId: '1', messages: [] })) as { content: unknown; isError: boolean };
      expect(r.isError).to.equal(false);
      expect(r.content).to.deep.equal([{ type: 'text', text: 'Echo: from the ai sdk' }]);
    } finally {
      await client.close();
    }
  });

  it('both refuse a wrong key (401), as REST does', async function () {
    this.timeout(60000);
    let failed = false;
    try {
      await run(process.execPath, [INSPECTOR, `${s.host.url}/mcp`, '--transport', 'http', '--header', 'Authorization: Bearer tc_wrong', '--method', 'tools/list'], { cwd: dirname(INSPECTOR), timeout: 30000 });
    } catch {
      failed = true;
    }
    expect(failed).to.equal(true);
    let err: unknown;
    try {
      await createMCPClient({ transport: { type: 'http', url: `${s.host.url}/mcp`, headers: { Authorization: 'Bearer tc_wrong' } } });
    } catch (e) {
      err = e;
    }
    expect(String(err)).to.match(/401/);
  });
});
