/**
 * The MCP face (issue 15) over real HTTP on loopback, on SQLite and PostgreSQL, driven by the official SDK client:
 * tools/list is exactly the REST list (names, hints, schemas, order, both views, cursors); tools/call goes through the
 * invocation core (progress and cancellation both ways, the same decision: unknown, not yours and made invisible
 * mid-session fail alike); list_changed reaches only the caller whose view changed, and GET /catalog/events is its
 * REST twin; sessions belong to the principal that opened them; Host/Origin are checked; 401s point at RFC 9728
 * metadata.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MCP_SETTINGS } from '../../src/config/mcp-settings';
import { mcpNameOf } from '../../src/mcp-face/tool-name';
import { forEachDatabase } from '../helpers/databases';
import { EVERYTHING_BIN, HOSTILE_BIN, hostileControl, until } from '../helpers/mcp-servers';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';
import { CALL_TOOLS } from '../fixtures/hostile-tools';
import { rawRequest as raw } from '../helpers/raw-http';

const MCP = { ...DEFAULT_MCP_SETTINGS, pageSize: 4, changeDebounceMs: 20, heartbeatMs: 200, maxSessionsPerPrincipal: 3 };

interface Descriptor { toolId: string; annotations: Record<string, unknown>; inputSchema: unknown; description: string; title?: string }

async function connect(url: string, key: string, path = '/mcp'): Promise<Client & { changes: number }> {
  const client = new Client({ name: 'toolcat-test', version: '1.0.0' }) as Client & { changes: number };
  client.changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    client.changes++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url + path), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

async function listAll(client: Client): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    out.push(...(page.tools as Array<Record<string, unknown>>));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachDatabase('the MCP face (issue 15)', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let ta: { tenantId: string; principalId: string; key: string };
  let tb: { tenantId: string; principalId: string; key: string };
  const clients: Client[] = [];
  const open = async (key: string, path?: string) => {
    const c = await connect(host.url, key, path);
    clients.push(c);
    return c;
  };

  before(async function () {
    this.timeout(90000);
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, { mcp: MCP });
    ta = await aTenantWithKey(host, 'mcp-a');
    tb = await aTenantWithKey(host, 'mcp-b');
    const hostile = hostileControl();
    hostile.setTools(CALL_TOOLS);
    const env = Object.entries(hostile.env).map(([name, value]) => ({ name, value }));
    const register = (i: Record<string, unknown>) => host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { syncIntervalSeconds: 0, ...i } });
    await register({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });
    await register({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env });
    for (const n of ['everything', 'hostile']) await host.gqlOk('mutation($n: String!) { syncSource(name: $n) { status } }', { n });
    await anExtension(host, { name: 'a_only', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: ta.tenantId });
    await anExtension(host, { name: 'b_only', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: tb.tenantId });
    await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'mcp.*' });
    await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'ext.*' });
    await aGrant(host, { tenantId: tb.tenantId, toolPattern: 'mcp.everything.*' });
    await aGrant(host, { tenantId: tb.tenantId, toolPattern: 'ext.*' });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await host?.close();
    await drop?.();
  });

  describe('tools/list is the REST list', () => {
    it('the SDK client lists exactly GET /tools: same tools in toolId order, the host-derived hints, the same schemas; two tenants differ', async function () {
      this.timeout(30000);
      for (const t of [ta, tb]) {
        const rest = (await host.get('/tools', t.key)).json() as { tools: Descriptor[] } | Descriptor[];
        const descriptors = Array.isArray(rest) ? rest : rest.tools;
        const client = await open(t.key);
        const tools = await listAll(client);
        expect(tools.map((x) => x.name)).to.deep.equal(descriptors.map((d) => mcpNameOf(d.toolId)));
        for (const [i, d] of descriptors.entries()) {
          const tool = tools[i];
          expect(tool.inputSchema).to.deep.equal(d.inputSchema);
          expect(tool.description).to.equal(d.description);
          // The hints are the host's (TC-ANN), never the upstream's own.
          expect(tool.annotations).to.deep.equal({ ...(d.title !== undefined ? { title: d.title } : {}), ...d.annotations });
          expect((tool._meta as Record<string, unknown>)['dev.toolcat/toolId']).to.equal(d.toolId);
        }
      }
      const aNames = (await listAll(await open(ta.key))).map((x) => x.name);
      const bNames = (await listAll(await open(tb.key))).map((x) => x.name);
      expect(aNames).to.include('ext.a_only').and.not.include('ext.b_only');
      expect(bNames).to.include('ext.b_only').and.not.include('ext.a_only');
      expect(bNames.some((n) => String(n).startsWith('mcp.hostile.'))).to.equal(false);
    });

    it('pages with opaque cursors (page size 4), and a forged cursor is invalid params', async () => {
      const client = await open(ta.key);
      const first = await client.listTools();
      expect(first.tools).to.have.length(4);
      expect(first.nextCursor).to.be.a('string');
      let err: unknown;
      try {
        await client.listTools({ cursor: 'not-a-cursor' });
      } catch (e) {
        err = e;
      }
      expect(String(err)).to.match(/Invalid cursor/);
      expect((err as { code?: number }).code).to.equal(-32602);
    });

    it('/mcp?view=compact serves the compact view of GET /tools?view=compact', async () => {
      const rest = (await host.get('/tools?view=compact', ta.key)).json() as { tools: Descriptor[] } | Descriptor[];
      const descriptors = Array.isArray(rest) ? rest : rest.tools;
      const tools = await listAll(await open(ta.key, '/mcp?view=compact'));
      expect(tools.map((t) => t.inputSchema)).to.deep.equal(descriptors.map((d) => d.inputSchema));
    });

    it('the direct JSON answer of tools/list and the SDK handler\'s (a batch goes through the SDK) give the same page', async () => {
      const h = { authorization: `Bearer ${ta.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };
      const init = await raw(host.url, '/mcp', 'POST', h, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
      const sh = { ...h, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-03-26' };
      const direct = await raw(host.url, '/mcp', 'POST', sh, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }));
      expect(direct.headers['content-type']).to.match(/^application\/json/);
      const viaSdk = await raw(host.url, '/mcp', 'POST', sh, JSON.stringify([{ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }]));
      const sdkMessages = viaSdk.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { id: number; result: unknown });
      const sdk = sdkMessages.length ? sdkMessages : (JSON.parse(viaSdk.text) as Array<{ id: number; result: unknown }>);
      expect(sdk.find((m) => m.id === 7)?.result).to.deep.equal((JSON.parse(direct.text) as { result: unknown }).result);
    });

    it('the direct answer is byte for byte the message the SDK sends for the same request, framed by its Content-Length (issue 21)', async () => {
      const h = { authorization: `Bearer ${ta.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };
      const init = await raw(host.url, '/mcp', 'POST', h, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
      const sh = { ...h, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      const first = JSON.parse((await raw(host.url, '/mcp', 'POST', sh, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).text) as { result: { nextCursor?: string } };
      expect(first.result.nextCursor, 'the tenant has more than one page').to.be.a('string');
      for (const [id, params] of [[9, {}], ['é✓ "quoted" \\ \u2028', {}], [-3, { cursor: first.result.nextCursor }]] as const) {
        const direct = await raw(host.url, '/mcp', 'POST', sh, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params }));
        expect(direct.status).to.equal(200);
        expect(direct.headers['transfer-encoding']).to.equal(undefined);
        expect(Number(direct.headers['content-length'])).to.equal(Buffer.byteLength(direct.text));
        // A batch of one goes through the SDK's transport and handler (its own framing: SSE in a session, or JSON).
        const viaSdk = await raw(host.url, '/mcp', 'POST', sh, JSON.stringify([{ jsonrpc: '2.0', id, method: 'tools/list', params }]));
        const lines = viaSdk.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
        const sdk = lines.length ? lines : (JSON.parse(viaSdk.text) as unknown[]).map((m) => JSON.stringify(m));
        expect(sdk.find((m) => (JSON.parse(m) as { id: unknown }).id === id)).to.equal(direct.text);
      }
    });

    it('a tools/list the SDK refuses (an extra envelope key, a non-string cursor) is refused, never listed (issue 21)', async () => {
      const h = { authorization: `Bearer ${ta.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };
      const init = await raw(host.url, '/mcp', 'POST', h, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
      const sh = { ...h, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      for (const bad of [{ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {}, extra: 1 }, { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { cursor: 5 } }]) {
        const r = await raw(host.url, '/mcp', 'POST', sh, JSON.stringify(bad));
        const lines = r.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
        const messages = (lines.length ? lines : [r.text]).map((m) => JSON.parse(m) as { result?: unknown; error?: { code: number } });
        expect(messages.some((m) => m.result !== undefined), `${JSON.stringify(bad)}: ${r.status} ${r.text}`).to.equal(false);
        expect(messages.some((m) => m.error !== undefined), `${JSON.stringify(bad)}: ${r.status} ${r.text}`).to.equal(true);
      }
    });

    it('negotiates each protocol version from 2025-11-25 back to 2025-03-26 (Streamable HTTP\'s first)', async () => {
      for (const v of ['2025-11-25', '2025-06-18', '2025-03-26']) {
        const h = { authorization: `Bearer ${tb.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' };
        const r = await raw(host.url, '/mcp', 'POST', h, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
        const msg = r.text.split('\n').find((l) => l.startsWith('data: '));
        const result = (JSON.parse(msg ? msg.slice(6) : r.text) as { result: { protocolVersion: string; capabilities: { tools?: { listChanged?: boolean } } } }).result;
        expect(result.protocolVersion).to.equal(v);
        expect(result.capabilities.tools?.listChanged).to.equal(true);
      }
    });

    it('stateless use: a tools/list without initialize answers JSON; GET without a session is 405', async () => {
      const r = await raw(host.url, '/mcp', 'POST', { authorization: `Bearer ${tb.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: 'localhost' }, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
      expect(r.status, r.text).to.equal(200);
      const body = JSON.parse(r.text) as { result: { tools: Array<{ name: string }> } };
      expect(body.result.tools.map((t) => t.name)).to.include('ext.b_only');
      const g = await raw(host.url, '/mcp', 'GET', { authorization: `Bearer ${tb.key}`, accept: 'text/event-stream', host: 'localhost' });
      expect(g.status).to.equal(405);
    });
  });

  describe('tools/call goes through the invocation core', () => {
    it('calls echo like POST /tools/{toolId}/calls does, with the call id in _meta', async function () {
      this.timeout(30000);
      const client = await open(ta.key);
      const r = await client.callTool({ name: 'mcp.everything.echo', arguments: { message: 'via mcp' } });
      expect(r.isError).to.equal(false);
      expect(r.content).to.deep.equal([{ type: 'text', text: 'Echo: via mcp' }]);
      const callId = (r._meta as Record<string, string>)['dev.toolcat/callId'];
      const past = await host.get(`/tools/mcp.everything.echo/calls/${callId}`, ta.key);
      expect(past.status, 'the call is in the caller\'s own call log').to.equal(200);
    });

    it('invalid arguments are a tool error listing each problem; nothing is forwarded', async () => {
      const client = await open(ta.key);
      const r = await client.callTool({ name: 'mcp.everything.get-sum', arguments: { a: 'two' } });
      expect(r.isError).to.equal(true);
      expect((r.content as Array<{ text: string }>)[0].text).to.match(/^INVALID_ARGUMENTS/);
    });

    it('progress passes to the caller', async function () {
      this.timeout(30000);
      const client = await open(ta.key);
      const seen: number[] = [];
      const r = await client.callTool({ name: 'mcp.everything.trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, undefined, { onprogress: (p) => seen.push(p.progress) });
      expect(r.isError).to.equal(false);
      expect(seen).to.deep.equal([1, 2, 3]);
    });

    it('a caller that cancels cancels the upstream call (the call log says cancelled)', async function () {
      this.timeout(30000);
      const client = await open(ta.key);
      const ac = new AbortController();
      const pending = client.callTool({ name: 'mcp.hostile.hang', arguments: {} }, undefined, { signal: ac.signal });
      await sleep(300);
      ac.abort();
      let err: unknown;
      try {
        await pending;
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(Error);
      const rows = await until(async () => {
        const r = await host.gqlOk<{ toolCalls: Array<{ status: string; outcome: string | null }> }>('query { toolCalls(toolId: "mcp.hostile.hang", first: 5) { status outcome } }');
        return r.toolCalls.find((c) => c.status !== 'running') ? r.toolCalls : null;
      });
      expect(rows[0].outcome).to.equal('cancelled');
    });

    it('unknown, another tenant\'s and made-invisible-mid-session tools fail alike (same error, same message for the same name)', async function () {
      this.timeout(30000);
      const errorOf = async (client: Client, name: string) => {
        try {
          await client.callTool({ name, arguments: {} });
        } catch (e) {
          return { code: (e as { code?: number }).code, message: (e as Error).message };
        }
        return null;
      };
      const b = await open(tb.key);
      const unknown = await errorOf(b, 'mcp.hostile.no_such_tool');
      expect(unknown?.code).to.equal(-32602);
      const notYours = await errorOf(b, 'mcp.hostile.echo');
      expect(notYours).to.deep.equal({ code: -32602, message: unknown!.message.replace('no_such_tool', 'echo') });
      expect(await errorOf(b, 'ext.a_only')).to.deep.equal({ code: -32602, message: unknown!.message.replace('mcp.hostile.no_such_tool', 'ext.a_only') });
      // Made invisible mid-session: the session stays, the call fails exactly as for an unknown tool.
      const t = await aTenantWithKey(host, 'mcp-revoke');
      const grant = await aGrant(host, { tenantId: t.tenantId, toolPattern: 'mcp.everything.echo' });
      const c = await open(t.key);
      expect((await c.callTool({ name: 'mcp.everything.echo', arguments: { message: 'x' } })).isError).to.equal(false);
      await host.gqlOk('mutation($id: ID!) { deleteGrant(id: $id) }', { id: grant });
      const gone = await errorOf(c, 'mcp.everything.echo');
      const never = await errorOf(c, 'mcp.everything.nope');
      expect(gone).to.deep.equal({ code: never!.code, message: never!.message.replace('mcp.everything.nope', 'mcp.everything.echo') });
    });
  });

  describe('change notifications leak nothing', () => {
    it('a grant change reaches the affected session as list_changed within a second; the other tenant hears nothing', async function () {
      this.timeout(30000);
      const tc = await aTenantWithKey(host, 'mcp-changes');
      await aGrant(host, { tenantId: tc.tenantId, toolPattern: 'mcp.everything.echo' });
      const a = await open(tc.key);
      const b = await open(tb.key);
      await listAll(a);
      await listAll(b);
      await sleep(100); // the standalone GET streams are open
      const grant = await aGrant(host, { tenantId: tc.tenantId, toolPattern: 'mcp.everything.get-sum' });
      const started = process.hrtime.bigint();
      await until(async () => a.changes > 0, 1000, 10);
      const tookMs = Number(process.hrtime.bigint() - started) / 1e6;
      // A change to tools only tenant A can see: B's view did not change.
      await anExtension(host, { name: 'a_only', safetyTier: 'write', replayPolicy: 'idempotent', egress: 'none', tenantId: ta.tenantId });
      await host.app.generation.advance();
      await sleep(300);
      expect(b.changes, 'tenant B heard nothing').to.equal(0);
      console.log(`      [${database.name}] list_changed reached the session ${tookMs.toFixed(0)} ms after the grant committed`);
      await host.gqlOk('mutation($id: ID!) { deleteGrant(id: $id) }', { id: grant });
    });

    it('GET /catalog/events: catalog.changed with the new list ETag for the caller only; Last-Event-ID resumes; heartbeats', async function () {
      this.timeout(30000);
      const stream = async (key: string, lastEventId?: string) => {
        const ac = new AbortController();
        const res = await fetch(`${host.url}/catalog/events`, { headers: { authorization: `Bearer ${key}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal: ac.signal });
        const chunks: string[] = [];
        const reading = (async () => {
          const dec = new TextDecoder();
          try {
            for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(dec.decode(c));
          } catch {
            /* aborted */
          }
        })();
        return { status: res.status, text: () => chunks.join(''), stop: async () => { ac.abort(); await reading; } };
      };
      const etagA = (await host.get('/tools', ta.key)).headers.get('etag')!;
      const a = await stream(ta.key);
      const b = await stream(tb.key, (await host.get('/tools', tb.key)).headers.get('etag')!);
      expect(a.status).to.equal(200);
      await until(async () => a.text().includes('catalog.changed'), 2000, 10);
      expect(a.text()).to.include(`id: ${etagA}\n`);
      await anExtension(host, { name: 'a_events', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: ta.tenantId });
      const newEtag = (await host.get('/tools', ta.key)).headers.get('etag')!;
      expect(newEtag).to.not.equal(etagA);
      await until(async () => a.text().includes(`data: {"etag":${JSON.stringify(newEtag)}}`), 1000, 10);
      await sleep(450);
      expect(b.text(), 'B resumed at its current ETag and its view did not change').to.not.include('catalog.changed');
      expect(b.text()).to.include(': keep-alive');
      await a.stop();
      await b.stop();
      // Resumption: reconnecting with the last id seen sends nothing when nothing changed, the new ETag when it did.
      const same = await stream(ta.key, newEtag);
      await sleep(300);
      expect(same.text()).to.not.include('catalog.changed');
      await same.stop();
      const behind = await stream(ta.key, etagA);
      await until(async () => behind.text().includes(`id: ${newEtag}\n`), 2000, 10);
      await behind.stop();
    });
  });

  describe('provider profiles on the call paths (issue 16)', () => {
    it('POST /tools/{functionName}/calls?profile=openai calls the tool the caller\'s profile list names; unknown and not-yours names are the catalog 404', async function () {
      this.timeout(30000);
      const listed = (await host.get('/tools?view=compact&profile=openai', ta.key)).json() as { tools: Array<{ toolId: string; functionName: string }> };
      const echo = listed.tools.find((t) => t.toolId === 'mcp.everything.echo')!;
      expect(echo.functionName).to.match(/^[a-zA-Z0-9_-]{1,64}$/);
      const post = (path: string, key: string) => fetch(`${host.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ arguments: { message: 'by function name' } }) });
      const r = await post(`/tools/${echo.functionName}/calls?profile=openai`, ta.key);
      const body = (await r.json()) as { toolId: string; content: unknown };
      expect(r.status).to.equal(200);
      expect(body.toolId).to.equal('mcp.everything.echo');
      const notFound = (await host.get('/tools/ext.no-such-tool', ta.key)).text;
      const aOnly = listed.tools.find((t) => t.toolId === 'ext.a_only')!;
      const notYours = await post(`/tools/${aOnly.functionName}/calls?profile=openai`, tb.key);
      expect(notYours.status).to.equal(404);
      expect(await notYours.text()).to.equal(notFound);
      expect(await (await post('/tools/no_such_function/calls?profile=openai', ta.key)).text()).to.equal(notFound);
    });

    it('/mcp?view=compact&profile=openai lists the profile\'s schemas and accepts its function names', async () => {
      const rest = (await host.get('/tools?view=compact&profile=openai', tb.key)).json() as { tools: Array<{ inputSchema: unknown }> };
      const client = await open(tb.key, '/mcp?view=compact&profile=openai');
      const tools = await listAll(client);
      expect(tools.map((t) => t.inputSchema)).to.deep.equal(rest.tools.map((d) => d.inputSchema));
      // A model that calls by the profile's functionName reaches the same tool.
      const fn = (rest.tools as unknown as Array<{ toolId: string; functionName: string }>).find((d) => d.toolId === 'mcp.everything.echo')!.functionName;
      expect((await client.callTool({ name: fn, arguments: { message: 'fn' } })).content).to.deep.equal([{ type: 'text', text: 'Echo: fn' }]);
      let err: unknown;
      try {
        await client.callTool({ name: 'ext__a_only', arguments: {} });
      } catch (e) {
        err = e;
      }
      expect((err as { code?: number }).code).to.equal(-32602);
    });
  });

  describe('progressive discovery (issue 18): /mcp?discovery=search', () => {
    it('tools/list starts with find_tools only; find_tools adds the caller\'s own matches, with list_changed; another tenant\'s tools are never found', async function () {
      this.timeout(30000);
      const a = await open(ta.key, '/mcp?discovery=search');
      expect((await listAll(a)).map((t) => t.name)).to.deep.equal(['find_tools']);
      const found = await a.callTool({ name: 'find_tools', arguments: { query: 'echo back a message', limit: 3 } });
      const hits = (found.structuredContent as { tools: Array<{ toolId: string; name: string }> }).tools;
      expect(hits.map((h) => h.toolId)).to.include('mcp.everything.echo');
      await until(async () => a.changes > 0, 2000, 10);
      const listed = (await listAll(a)).map((t) => t.name);
      expect(listed[0]).to.equal('find_tools');
      expect(listed.slice(1)).to.deep.equal(hits.map((h) => h.name).sort());
      expect((await a.callTool({ name: 'mcp.everything.echo', arguments: { message: 'found' } })).content).to.deep.equal([{ type: 'text', text: 'Echo: found' }]);
      // B cannot see the hostile source: a query naming its tools finds none of them.
      const b = await open(tb.key, '/mcp?discovery=search');
      const bHits = ((await b.callTool({ name: 'find_tools', arguments: { query: 'hostile hang crash echo', limit: 20 } })).structuredContent as { tools: Array<{ toolId: string }> }).tools;
      expect(bHits.filter((h) => h.toolId.startsWith('mcp.hostile.'))).to.deep.equal([]);
      const bad = await b.callTool({ name: 'find_tools', arguments: { query: '' } });
      expect(bad.isError).to.equal(true);
    });
  });

  describe('a credential that stops holding ends its streams', () => {
    it('revoking the key ends its /catalog/events stream and closes its MCP session; its next request is 401', async function () {
      this.timeout(30000);
      const t = await aTenantWithKey(host, 'mcp-revoked');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: 'mcp.everything.echo' });
      const res = await fetch(`${host.url}/catalog/events`, { headers: { authorization: `Bearer ${t.key}` } });
      let ended = false;
      const reading = (async () => {
        for await (const _ of res.body as unknown as AsyncIterable<Uint8Array>) void _;
        ended = true;
      })();
      const client = await open(t.key);
      await listAll(client);
      await host.gqlOk('mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id: t.principalId });
      await until(async () => ended, 3000, 20);
      await reading;
      let err: unknown;
      try {
        await client.listTools();
      } catch (e) {
        err = e;
      }
      expect(String(err)).to.match(/Authentication required/);
    });
  });

  describe('MCP security practice', () => {
    const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const hdr = (key: string | null, extra: Record<string, string> = {}) => ({ ...(key ? { authorization: `Bearer ${key}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: `127.0.0.1`, ...extra });

    it('a forged Host or a foreign Origin is refused before anything runs; loopback origins pass', async () => {
      expect((await raw(host.url, '/mcp', 'POST', hdr(ta.key, { host: 'evil.example:8080' }), init)).status).to.equal(403);
      expect((await raw(host.url, '/mcp', 'POST', hdr(ta.key, { origin: 'https://evil.example' }), init)).status).to.equal(403);
      expect((await raw(host.url, '/catalog/events', 'GET', { authorization: `Bearer ${ta.key}`, host: 'rebound.example' })).status).to.equal(403);
      const ok = await raw(host.url, '/mcp', 'POST', hdr(ta.key, { origin: 'http://localhost:6274' }), init);
      expect(ok.status, ok.text).to.equal(200);
    });

    it('401 carries WWW-Authenticate with resource_metadata; the RFC 9728 document names the resource', async () => {
      const r = await raw(host.url, '/mcp', 'POST', hdr(null), init);
      expect(r.status).to.equal(401);
      const challenge = String(r.headers['www-authenticate']);
      const m = /resource_metadata="([^"]+)"/.exec(challenge);
      expect(m, challenge).to.not.equal(null);
      const bad = await raw(host.url, '/mcp', 'POST', hdr('tc_not_a_key'), init);
      expect(String(bad.headers['www-authenticate'])).to.include('error="invalid_token"');
      const meta = (await host.get(new URL(m![1]).pathname)).json() as Record<string, unknown>;
      expect(meta.resource).to.match(/\/mcp$/);
      expect(meta.bearer_methods_supported).to.deep.equal(['header']);
    });

    it('a session belongs to the principal that opened it: another key using its id gets the unknown-session 404', async () => {
      const opened = await raw(host.url, '/mcp', 'POST', hdr(ta.key), init);
      const sid = String(opened.headers['mcp-session-id']);
      expect(sid).to.match(/^[0-9a-f-]{36}$/);
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      const stolen = await raw(host.url, '/mcp', 'POST', hdr(tb.key, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }), list);
      const unknown = await raw(host.url, '/mcp', 'POST', hdr(tb.key, { 'mcp-session-id': '00000000-0000-0000-0000-000000000000', 'mcp-protocol-version': '2025-11-25' }), list);
      expect(stolen.status).to.equal(404);
      expect(stolen.text).to.equal(unknown.text);
    });

    it('hostile input: an oversized body is 413, broken JSON a parse error, a bad protocol version refused', async () => {
      const big = await raw(host.url, '/mcp', 'POST', hdr(ta.key), JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(MCP.maxRequestBytes) } }));
      expect(big.status).to.equal(413);
      const broken = await raw(host.url, '/mcp', 'POST', hdr(ta.key), '{"jsonrpc":');
      expect(broken.status).to.equal(400);
      expect(JSON.parse(broken.text).error.code).to.equal(-32700);
      const opened = await raw(host.url, '/mcp', 'POST', hdr(ta.key), init);
      const sid = String(opened.headers['mcp-session-id']);
      const wrongVersion = await raw(host.url, '/mcp', 'POST', hdr(ta.key, { 'mcp-session-id': sid, 'mcp-protocol-version': '1999-01-01' }), JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
      expect(wrongVersion.status).to.equal(400);
    });

    it('sessions per principal are bounded: past the bound the least recently used one is closed', async () => {
      const t = await aTenantWithKey(host, 'mcp-many');
      const ids: string[] = [];
      for (let i = 0; i < MCP.maxSessionsPerPrincipal + 2; i++) ids.push(String((await raw(host.url, '/mcp', 'POST', hdr(t.key), init)).headers['mcp-session-id']));
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
      const statuses = [];
      for (const sid of ids) statuses.push((await raw(host.url, '/mcp', 'POST', hdr(t.key, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }), list)).status);
      expect(statuses).to.deep.equal([404, 404, 200, 200, 200]);
    });
  });
});
