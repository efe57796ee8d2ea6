/**
 * MCP servers as a source (issue 4), against real servers from npm (server-everything over stdio and
 * Streamable HTTP, server-memory over stdio) and a hostile fixture server that lies, leaks, paginates,
 * changes at runtime and misbehaves on demand.
 */
import { expect } from 'chai';
import type { ToolDescriptor } from '../../src/catalog/descriptor';
import { forEachDatabase } from '../helpers/databases';
import { EVERYTHING_BIN, HOSTILE_BIN, MEMORY_BIN, hostileControl, startEverythingHttp, until } from '../helpers/mcp-servers';
import { expectStandardDescriptor, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { DEFAULT_TOOLS } from '../fixtures/hostile-tools';
import { DEFAULT_SYNC_POLICY } from '../../src/config/sync-settings';

const REGISTER = 'mutation($i: SourceInput!) { registerSource(input: $i) { name status envNames headerNames url } }';
const SYNC = 'mutation($n: String!) { syncSource(name: $n) { source status toolCount quarantinedCount added changed removed error } }';
type Sync = { syncSource: { status: string; toolCount: number; quarantinedCount: number; error: string | null; added: number; removed: number } };
const LIMITS = { connectTimeoutMs: 4000, requestTimeoutMs: 1500, syncTimeoutMs: 4000, maxPages: 50, maxTools: 5000, maxMessageBytes: 16 * 1024 * 1024 };
// list_changed syncs come at most once per minimum interval (issue 12 defect 4); short here, so the tests below wait little.
const POLICY = { ...DEFAULT_SYNC_POLICY, minSyncIntervalMs: 300 };

forEachDatabase('MCP sources', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let agent: string;
  const hostile = hostileControl();
  const stable = hostileControl();

  before(async function () {
    this.timeout(60000);
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, { syncLimits: LIMITS, syncPolicy: POLICY });
    const t = await aTenantWithKey(host, 'agents');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'mcp.*' });
    agent = t.key;
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  const tools = async (prefix: string) => ((await host.get('/tools', agent)).json() as ToolDescriptor[]).filter((d) => d.toolId.startsWith(prefix));
  const register = (i: Record<string, unknown>) => host.gqlOk<{ registerSource: Record<string, unknown> }>(REGISTER, { i: { syncIntervalSeconds: 0, ...i } });
  const sync = async (name: string) => (await host.gqlOk<Sync>(SYNC, { n: name })).syncSource;
  const hostileSource = (name: string, control: ReturnType<typeof hostileControl>, extra: Record<string, unknown> = {}) =>
    register({ name, transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: Object.entries(control.env).map(([n, value]) => ({ name: n, value })), ...extra });

  it('server-everything over stdio: every tool is listed, unclassified ones are write, claims stay with admins', async function () {
    this.timeout(30000);
    await register({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });
    const r = await sync('everything');
    expect(r.status, r.error ?? '').to.equal('ok');
    expect(r.toolCount).to.be.greaterThan(5);
    const served = await tools('mcp.everything.');
    expect(served).to.have.length(r.toolCount);
    expectStandardList(served);
    for (const d of served) expect(d).to.include({ source: 'mcp', safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open' });
    expect(served.map((d) => d.name)).to.include('echo');
    const upstream = await host.gqlOk<{ upstreamTools: Array<{ name: string; claims: unknown; quarantineReason: string | null }> }>('{ upstreamTools(source: "everything") { name claims quarantineReason } }');
    expect(upstream.upstreamTools.filter((u) => u.quarantineReason === null)).to.have.length(r.toolCount);
  });

  it('server-everything over Streamable HTTP lists the same tools; header and URL secrets are write-only', async function () {
    this.timeout(30000);
    const server = await startEverythingHttp();
    try {
      const secret = 'Bearer s3cr3t-value-never-shown-0123456789';
      const saved = await register({ name: 'everything-http', transport: 'http', url: { value: `${server.url}?token=querysecret123` }, headers: [{ name: 'Authorization', value: secret }] });
      expect(saved.registerSource).to.deep.include({ url: server.url, headerNames: ['Authorization'] });
      const r = await sync('everything-http');
      expect(r.status, r.error ?? '').to.equal('ok');
      const viaHttp = (await tools('mcp.everything-http.')).map((d) => d.name).sort();
      const viaStdio = (await tools('mcp.everything.')).map((d) => d.name).sort();
      expect(viaHttp).to.deep.equal(viaStdio);
      const everything = await host.gqlOk('{ sources { name transport command args url envNames headerNames status lastError } }');
      const all = JSON.stringify(everything) + (await host.get('/tools', agent)).text + host.logs.join('');
      expect(all).not.to.include('s3cr3t-value');
      expect(all).not.to.include('querysecret123');
    } finally {
      server.stop();
    }
  });

  it('server-memory over stdio', async function () {
    this.timeout(30000);
    await register({ name: 'memory', transport: 'stdio', command: process.execPath, args: [MEMORY_BIN], env: [{ name: 'MEMORY_FILE_PATH', value: '/tmp/toolcat-memory-test.jsonl' }] });
    const r = await sync('memory');
    expect(r.status, r.error ?? '').to.equal('ok');
    expect((await tools('mcp.memory.')).map((d) => d.name)).to.include.members(['create_entities', 'read_graph']);
  });

  it('a hostile server: lies are ignored, credentials removed, pages followed, bad tools quarantined, the rest served', async function () {
    this.timeout(30000);
    await hostileSource('hostile', hostile);
    const r = await sync('hostile');
    expect(r.status).to.equal('degraded');
    expect(r).to.include({ quarantinedCount: 2, toolCount: DEFAULT_TOOLS.length - 2 });
    const served = await tools('mcp.hostile.');
    expectStandardList(served);
    expect(served.map((d) => d.toolId)).to.deep.equal([
      'mcp.hostile.delete_everything', 'mcp.hostile.no_type', 'mcp.hostile.post_message', 'mcp.hostile.read_record', 'mcp.hostile.weird~20name~2F~C3~BC',
    ]);
    const liar = served.find((d) => d.name === 'delete_everything')!;
    expect(liar).to.include({ safetyTier: 'write' });
    expect(liar.annotations).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    const text = (await host.get('/tools', agent)).text;
    expect(text).not.to.include('xoxb-1234567890');
    const q = await host.gqlOk<{ upstreamTools: Array<{ name: string; quarantineReason: string | null; claims: Record<string, unknown> | null }> }>('{ upstreamTools(source: "hostile") { name quarantineReason claims } }');
    const reasons = Object.fromEntries(q.upstreamTools.filter((u) => u.quarantineReason).map((u) => [u.name.slice(0, 12), u.quarantineReason]));
    expect(reasons).to.have.keys('bad_schema', 'xxxxxxxxxxxx');
    expect(reasons.bad_schema).to.match(/not a valid JSON Schema/);
    expect(reasons.xxxxxxxxxxxx).to.match(/cannot form a toolId/);
    expect(q.upstreamTools.find((u) => u.name === 'delete_everything')!.claims).to.include({ readOnlyHint: true });
    expect((await host.get('/tools/mcp.hostile.bad_schema', agent)).status).to.equal(404);
  });

  it('TC-DESC-2: toolIds survive a re-ordered listing and a restart unchanged', async function () {
    this.timeout(30000);
    const before = (await host.get('/tools', agent)).text;
    hostile.setTools([...DEFAULT_TOOLS].reverse());
    await sync('hostile');
    expect((await host.get('/tools', agent)).text).to.equal(before);
    const opts = host.app.dataSource.options as { database?: string; url?: string };
    await host.close();
    host = await startHost(database.name === 'sqlite' ? { type: 'sqlite', path: String(opts.database) } : { type: 'postgres', url: String(opts.url), poolSize: 5 }, { syncLimits: LIMITS, syncPolicy: POLICY });
    await sync('hostile');
    expect((await host.get('/tools', agent)).text).to.equal(before);
  });

  it('stays current: notifications/tools/list_changed triggers a sync', async function () {
    this.timeout(20000);
    await sync('hostile'); // opens the live session that receives notifications
    hostile.setTools([...DEFAULT_TOOLS, { name: 'added_later', inputSchema: { type: 'object' } }]);
    await until(async () => (await tools('mcp.hostile.')).some((d) => d.name === 'added_later'));
    const changes = await host.gqlOk<{ toolChanges: Array<{ kind: string; toolName: string }> }>('{ toolChanges(source: "hostile", first: 5) { kind toolName } }');
    expect(changes.toolChanges[0]).to.deep.equal({ kind: 'added', toolName: 'added_later' });
  });

  it('drift review (withhold): a classified tool that changes is withheld until an admin approves it', async function () {
    this.timeout(20000);
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.hostile.read_record", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
    expect((await host.get('/tools/mcp.hostile.read_record', agent)).json()).to.include({ safetyTier: 'read' });
    const changed = DEFAULT_TOOLS.map((t) => (t.name === 'read_record' ? { ...t, description: 'Reads one record. Also deletes it.' } : t));
    hostile.setTools(changed);
    await until(async () => (await host.get('/tools/mcp.hostile.read_record', agent)).status === 404);
    const review = await host.gqlOk<{ upstreamTools: Array<{ name: string; reviewState: string }> }>('{ upstreamTools(source: "hostile") { name reviewState } }');
    expect(review.upstreamTools.find((u) => u.name === 'read_record')!.reviewState).to.equal('pending');
    await host.gqlOk('mutation { approveTool(toolId: "mcp.hostile.read_record") }');
    const d = (await host.get('/tools/mcp.hostile.read_record', agent)).json() as ToolDescriptor;
    expectStandardDescriptor(d);
    expect(d).to.include({ safetyTier: 'read', description: 'Reads one record. Also deletes it.' });
    const history = await host.gqlOk<{ toolChanges: Array<{ kind: string }> }>('{ toolChanges(toolId: "mcp.hostile.read_record", first: 3) { kind } }');
    expect(history.toolChanges.map((c) => c.kind).slice(0, 2)).to.deep.equal(['approved', 'changed']);
  });

  it('drift review (keep-serving): the changed tool stays listed but loses its classification until approved', async function () {
    this.timeout(20000);
    await host.gqlOk('mutation($i: SourceInput!) { updateSource(input: $i) { driftPolicy } }', {
      i: { name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], driftPolicy: 'keep-serving', syncIntervalSeconds: 0 },
    });
    await sync('hostile');
    const changed = DEFAULT_TOOLS.map((t) => (t.name === 'read_record' ? { ...t, description: 'Now it also emails the record.' } : t));
    hostile.setTools(changed);
    await until(async () => ((await host.get('/tools/mcp.hostile.read_record', agent)).json() as ToolDescriptor).description === 'Now it also emails the record.');
    expect((await host.get('/tools/mcp.hostile.read_record', agent)).json()).to.include({ safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open' });
  });

  describe('faults: the last good snapshot keeps serving, other sources are unaffected', () => {
    let baseline: string;
    before(async function () {
      this.timeout(20000);
      stable.setTools(DEFAULT_TOOLS.filter((t) => !['bad_schema'].includes(t.name) && t.name.length < 100));
      await hostileSource('steady', stable);
      await sync('steady');
      await sync('hostile');
      baseline = JSON.stringify((await tools('mcp.hostile.')).map((d) => d.toolId));
    });
    const cases: Array<[string, RegExp]> = [
      ['hang', /timed out|timeout/i],
      ['crash-mid-list', /exited \(code 1\)/],
      ['garbage', /timed out|invalid/i], // the bogus response is dropped by the JSON-RPC layer; the request times out
      ['flood', /more than 5000 tools/],
      ['endless-line', /larger than/],
      ['hang-init', /timed out|timeout/i],
      ['exit-at-start', /exited \(code 3\)/],
    ];
    for (const [mode, re] of cases) {
      it(`${mode}: sync fails within bounds with a clear status; nothing served changes`, async function () {
        this.timeout(30000);
        hostile.setMode(mode);
        await host.app.services.sync.drop('hostile'); // force a fresh connection, as after a restart
        // The bound is the sync's own (its error names what timed out); a hang past it fails on mocha's timeout.
        const r = await sync('hostile');
        expect(r.status).to.equal('failing');
        expect(r.error).to.match(re);
        expect(JSON.stringify((await tools('mcp.hostile.')).map((d) => d.toolId))).to.equal(baseline);
        const status = await host.gqlOk<{ sources: Array<{ name: string; status: string; lastError: string | null; toolCount: number }> }>('{ sources { name status lastError toolCount } }');
        expect(status.sources.find((s) => s.name === 'steady')).to.include({ status: 'ok' });
        expect(status.sources.find((s) => s.name === 'hostile')).to.include({ status: 'failing' });
        expect((await tools('mcp.steady.')).length).to.equal(DEFAULT_TOOLS.length - 2);
        expect(host.logs.join('')).not.to.include('uncaught');
        hostile.setMode('normal');
      });
    }

    it('a 5 MB schema is quarantined by the ingest bounds; the server\'s other tools are served', async function () {
      this.timeout(30000);
      hostile.setMode('huge-schema');
      await host.app.services.sync.drop('hostile');
      const r = await sync('hostile');
      expect(r).to.include({ status: 'degraded', quarantinedCount: 1, toolCount: 1 });
      const q = await host.gqlOk<{ upstreamTools: Array<{ name: string; quarantineReason: string | null }> }>('{ upstreamTools(source: "hostile") { name quarantineReason } }');
      expect(q.upstreamTools.find((u) => u.name === 'huge')!.quarantineReason).to.match(/larger than 262144 bytes/);
      hostile.setMode('normal');
      await host.app.services.sync.drop('hostile');
      expect((await sync('hostile')).status).to.equal('degraded');
    });
  });

  describe('removal', () => {
    it('removing a source withdraws its tools at once and stops its server', async () => {
      expect((await tools('mcp.steady.')).length).to.be.greaterThan(0);
      await host.gqlOk('mutation { removeSource(name: "steady") }');
      expect(await tools('mcp.steady.')).to.deep.equal([]);
      const left = await host.gqlOk<{ sources: Array<{ name: string }> }>('{ sources { name } }');
      expect(left.sources.map((s) => s.name)).not.to.include('steady');
    });
  });
});
