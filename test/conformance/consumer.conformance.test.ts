/**
 * Consumer conformance (issue 17): the spec's consumer clauses, proved for toolcat/client. Against real toolcat hosts
 * holding each subset of sources (host extensions only, MCP only, both, none) and against a minimal independent host
 * (test/helpers/minimal-host.ts) that advertises any subset, omits every optional field and adds fields the client does
 * not know, in a seeded property test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import { type CallEvent, createToolcatClient } from '../../src/client';
import { toOpenAIChatTools, toolIdForFunctionCall } from '../../src/client/adapters';
import { type ExtensionEndpoint, startExtensionEndpoint } from '../helpers/extension-endpoint';
import { EVERYTHING_BIN } from '../helpers/mcp-servers';
import { type MinimalHost, startMinimalHost } from '../helpers/minimal-host';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { clause } from './clause';

type Subset = 'host-extension only' | 'mcp only' | 'both' | 'none';
const SUBSETS: readonly Subset[] = ['host-extension only', 'mcp only', 'both', 'none'];

describe('consumer conformance: toolcat/client (issue 17)', () => {
  const hosts = new Map<Subset, { host: TestHost; key: string; callable: string[] }>();
  let endpoint: ExtensionEndpoint;
  let minimal: MinimalHost;
  let dir: string;

  before(async function () {
    this.timeout(120000);
    dir = mkdtempSync(join(tmpdir(), 'toolcat-consumer-'));
    endpoint = await startExtensionEndpoint();
    minimal = await startMinimalHost();
    for (const subset of SUBSETS) {
      const host = await startHost({ type: 'sqlite', path: join(dir, `${subset.replace(/ /g, '-')}.sqlite`) });
      const t = await aTenantWithKey(host, 'consumer');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
      const callable: string[] = [];
      if (subset === 'host-extension only' || subset === 'both') {
        await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
          i: { name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', implementation: { http: { url: { value: endpoint.url }, secret: { value: endpoint.secret } } } },
        });
        callable.push('ext.echo');
      }
      if (subset === 'mcp only' || subset === 'both') {
        await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'], syncIntervalSeconds: 0 } });
        await host.gqlOk('mutation { syncSource(name: "everything") { status } }');
        callable.push('mcp.everything.echo');
      }
      hosts.set(subset, { host, key: t.key, callable });
    }
  });
  after(async () => {
    for (const { host } of hosts.values()) await host.close();
    await endpoint?.close();
    await minimal?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** What a consumer does with a host: read what it advertises, list in both views, read each tool, adapt the list. */
  async function consume(url: string, key: string | undefined): Promise<{ sources: readonly string[]; ids: string[]; compactIds: string[] }> {
    const client = createToolcatClient({ baseUrl: url, token: key });
    const caps = await client.capabilities();
    const sources = caps.toolCatalog?.sources ?? [];
    const list = await client.listTools();
    const compact = await client.listTools({ view: 'compact' });
    for (const t of list.tools) expect((await client.getTool(t.toolId)).toolId).to.equal(t.toolId);
    // The list adapts and maps back whatever its sources are.
    const fns = toOpenAIChatTools(list.tools);
    for (const [i, f] of fns.entries()) expect(toolIdForFunctionCall(list.tools, f.function.name)).to.equal(list.tools[i].toolId);
    return { sources, ids: list.tools.map((t) => t.toolId), compactIds: compact.tools.map((t) => t.toolId) };
  }

  describe('TC-CAT-6', () => {
    for (const subset of SUBSETS) {
      clause('TC-CAT-6', `a consumer tolerates a toolcat host whose catalog holds ${subset === 'none' ? 'no source' : subset}: lists, reads, adapts and calls`, async function () {
        this.timeout(60000);
        const { host, key, callable } = hosts.get(subset)!;
        const r = await consume(host.url, key);
        expect(r.compactIds).to.deep.equal(r.ids);
        const sourcesSeen = new Set(r.ids.map((id) => (id.startsWith('ext.') ? 'host-extension' : 'mcp')));
        for (const s of sourcesSeen) expect(r.sources).to.include(s);
        if (subset === 'none') expect(r.ids).to.deep.equal([]);
        const client = createToolcatClient({ baseUrl: host.url, token: key });
        for (const toolId of callable) {
          const args = toolId === 'ext.echo' ? { text: 'hi' } : { message: 'hi' };
          const out = await client.callTool(toolId, args);
          expect(out.isError, JSON.stringify(out)).to.equal(false);
          expect(out.toolId).to.equal(toolId);
        }
      });
    }

    clause('TC-CAT-6', 'a consumer tolerates any advertised subset of sources, unknown ones included, and descriptors that omit every optional field or carry unknown ones (minimal independent host, seeded property)', async function () {
      this.timeout(60000);
      const sourceName = fc.constantFrom('mcp', 'host-extension', 'a2a', 'openapi');
      const optional = fc.record(
        { name: fc.string({ minLength: 1, maxLength: 10 }), description: fc.string({ maxLength: 20 }), safetyTier: fc.constantFrom('pure', 'read', 'write'), replayPolicy: fc.constantFrom('deterministic', 'idempotent', 'non-idempotent', 'speculative'), annotations: fc.constant({ readOnlyHint: true }) },
        { requiredKeys: [] },
      );
      const extra = fc.dictionary(fc.constantFrom('x-vendor', 'labels', 'deprecated', 'origin'), fc.jsonValue(), { maxKeys: 2 });
      const toolIdArb = fc.stringMatching(/^[a-z][a-z0-9._~-]{0,30}$/);
      const descriptor = fc.record({ toolId: toolIdArb, optional, extra, source: fc.option(sourceName, { nil: undefined }) }).map((d) => ({
        ...d.extra, ...d.optional, ...(d.source ? { source: d.source } : {}), toolId: d.toolId, inputSchema: { type: 'object' },
      }));
      await fc.assert(
        fc.asyncProperty(fc.uniqueArray(sourceName, { maxLength: 4 }), fc.uniqueArray(descriptor, { selector: (d) => d.toolId, maxLength: 5 }), async (sources, tools) => {
          minimal.state.sources = sources;
          minimal.state.tools = tools;
          const r = await consume(minimal.url, undefined);
          expect(r.sources).to.deep.equal(sources);
          expect(r.ids).to.deep.equal(tools.map((t) => t.toolId));
          // A host without a compact view answers the standard one; the client reads it the same way.
          expect(r.compactIds).to.deep.equal(r.ids);
          // Unknown fields are kept, not stripped.
          const listed = (await createToolcatClient({ baseUrl: minimal.url }).listTools()).tools;
          expect(listed).to.deep.equal(tools);
        }),
        { seed: 17, numRuns: 40 },
      );
    });
  });

  describe('TC-SESS-2', () => {
    clause('TC-SESS-2', 'a consumer reads a streamed call whether or not the host brackets it with session events', async function () {
      this.timeout(60000);
      minimal.state.tools = [{ toolId: 'echo', inputSchema: { type: 'object' } }];
      for (const sessionEvents of [true, false]) {
        minimal.state.sessionEvents = sessionEvents;
        minimal.state.jsonOnly = false;
        const events: CallEvent[] = [];
        const out = await createToolcatClient({ baseUrl: minimal.url }).callTool('echo', { a: 1 }, { stream: true, onEvent: (e) => events.push(e) });
        expect(out.content).to.deep.equal([{ type: 'text', text: '{"a":1}' }]);
        expect(events.map((e) => e.type)).to.deep.equal(sessionEvents ? ['tool.session.opened', 'tool.call.result', 'tool.session.closed'] : ['tool.call.result']);
      }
    });

    clause('TC-SESS-2', 'a consumer that asked for events reads a host that answers the call as JSON instead', async () => {
      minimal.state.tools = [{ toolId: 'echo', inputSchema: { type: 'object' } }];
      minimal.state.jsonOnly = true;
      const events: CallEvent[] = [];
      const out = await createToolcatClient({ baseUrl: minimal.url }).callTool('echo', { b: 2 }, { stream: true, onEvent: (e) => events.push(e) });
      expect(out.content).to.deep.equal([{ type: 'text', text: '{"b":2}' }]);
      expect(events).to.deep.equal([]);
      minimal.state.jsonOnly = false;
    });

    clause('TC-SESS-2', 'against toolcat (which sends session events) the same consumer code gets the same result, streamed or not', async function () {
      this.timeout(60000);
      const { host, key } = hosts.get('host-extension only')!;
      const client = createToolcatClient({ baseUrl: host.url, token: key });
      const events: CallEvent[] = [];
      const streamed = await client.callTool('ext.echo', { text: 's' }, { stream: true, onEvent: (e) => events.push(e) });
      const plain = await client.callTool('ext.echo', { text: 's' });
      expect(events.map((e) => e.type)).to.deep.equal(['tool.session.opened', 'tool.call.result', 'tool.session.closed']);
      expect({ ...streamed, callId: '' }).to.deep.equal({ ...plain, callId: '' });
    });
  });
});
