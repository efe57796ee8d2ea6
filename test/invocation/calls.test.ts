/**
 * Tool calls through the catalog (issue 14), over real HTTP on loopback, on SQLite and PostgreSQL: host extensions
 * called through a real signed HTTP implementation (test/helpers/extension-endpoint.ts), the decision matrix with
 * the catalog's identical 404 bytes, validation before forwarding, outputSchema checks, upstream failures, replay
 * safety from the host's classification, Idempotency-Key across a restart and a second replica, the caller's own
 * past calls, the call log and hostile input.
 */
import { createServer } from 'node:net';
import { expect } from 'chai';
import { DEFAULT_CALL_SETTINGS } from '../../src/config/call-settings';
import { forEachDatabase } from '../helpers/databases';
import { type ExtensionEndpoint, startExtensionEndpoint } from '../helpers/extension-endpoint';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVERYTHING_BIN, HOSTILE_BIN, MEMORY_BIN, hostileControl, startEverythingHttp, until } from '../helpers/mcp-servers';
import { parseSse } from '../helpers/sse';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, startHost } from '../helpers/test-host';
import { CALL_TOOLS, DEFAULT_TOOLS } from '../fixtures/hostile-tools';
import type { DatabaseConfig } from '../../src/config/config';
import type { ArgumentValidator } from '../../src/invocation/argument-validator';

const UPSERT = 'mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }';
const OUTPUT_SCHEMA = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
// Short bounds so the failure cases end quickly; retries stay at their default count.
const CALLS = { ...DEFAULT_CALL_SETTINGS, timeoutMs: 3000, maxResultBytes: 256 * 1024, retryBackoffMs: 10, concurrencyPerSource: 4, queuePerSource: 2, breakerFailures: 3, breakerOpenSeconds: 30 };

/** A TCP port with nothing listening (taken, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

forEachDatabase('tool calls (issue 14)', (database) => {
  let host: TestHost;
  let dbConfig: DatabaseConfig;
  let drop: () => Promise<void>;
  let endpoint: ExtensionEndpoint;
  let ta: { tenantId: string; principalId: string; key: string };
  let tb: { tenantId: string; principalId: string; key: string };
  let ta2: { principalId: string; key: string };
  let refusedUrl: string;

  const ext = (name: string, extra: Record<string, unknown> = {}, url?: string) =>
    host.gqlOk(UPSERT, {
      i: {
        name,
        description: `${name} for call tests`,
        inputSchema: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, additionalProperties: false },
        safetyTier: 'read',
        replayPolicy: 'idempotent',
        egress: 'none',
        implementation: { http: { url: { value: url ?? endpoint.url }, secret: { value: endpoint.secret } } },
        ...extra,
      },
    });

  const call = (toolId: string, key: string, body: unknown = { arguments: {} }, headers: Record<string, string> = {}) =>
    fetch(`${host.url}/tools/${toolId}/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, headers: r.headers, text: await r.text() }));

  const callLog = async (toolId: string) =>
    (await host.gqlOk<{ toolCalls: Array<Record<string, unknown>> }>('query($t: String) { toolCalls(toolId: $t, first: 50) { callId tenantId principalId principalKind toolId safetyTier replayPolicy egress status outcome argumentBytes resultBytes requestHash arguments idempotencyKeyUsed attempts durationMs } }', { t: toolId })).toolCalls;

  before(async function () {
    this.timeout(60000);
    const created = await database.create();
    drop = created.drop;
    dbConfig = created.db;
    host = await startHost(created.db, { calls: CALLS });
    endpoint = await startExtensionEndpoint();
    refusedUrl = `http://127.0.0.1:${await closedPort()}/calls`;
    ta = await aTenantWithKey(host, 'calls-a');
    tb = await aTenantWithKey(host, 'calls-b');
    ta2 = await aPrincipal(host, ta.tenantId, 'calls-a-second');
    await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'ext.*' });
    await aGrant(host, { tenantId: tb.tenantId, toolPattern: 'ext.*' });
    await ext('echo');
    await ext('fail');
    await ext('conform', { outputSchema: OUTPUT_SCHEMA });
    await ext('violate', { outputSchema: OUTPUT_SCHEMA });
    await ext('hang');
    await ext('huge');
    await ext('notjson');
    await ext('http500');
    await ext('redirect');
    await ext('reset_once', { replayPolicy: 'non-idempotent', safetyTier: 'write' });
    await ext('reset_idem', { replayPolicy: 'idempotent' });
    await ext('refused_once', { replayPolicy: 'non-idempotent', safetyTier: 'write' }, refusedUrl);
    await ext('refused_idem', { replayPolicy: 'idempotent' }, refusedUrl);
    await ext('echo_mine', { tenantId: ta.tenantId });
    await ext('deep');
    await ext('hang_q');
    await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
      i: { name: 'unimplemented', description: 'no implementation', inputSchema: { type: 'object' }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' },
    });
  });
  after(async () => {
    await host?.close();
    await endpoint?.close();
    await drop?.();
  });

  describe('a call that works', () => {
    it('POST /tools/{toolId}/calls answers the CallToolResult plus ids, signed upstream, with no caller token passed on', async () => {
      const before = endpoint.received.length;
      const r = await call('ext.echo', ta.key, { arguments: { text: 'hello' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^application\/json/);
      const body = JSON.parse(r.text) as Record<string, unknown>;
      expect(Object.keys(body).sort()).to.deep.equal(['callId', 'content', 'isError', 'structuredContent', 'toolId']);
      expect(body).to.deep.include({ toolId: 'ext.echo', isError: false, structuredContent: { echoed: { text: 'hello' } } });
      expect(body.callId).to.match(/^[0-9a-f-]{36}$/);
      const got = endpoint.received.slice(before);
      expect(got).to.have.length(1);
      expect(got[0]).to.deep.include({ name: 'echo', signature: null, callId: body.callId });
      expect(got[0].arguments).to.deep.equal({ text: 'hello' });
      // No token passthrough (MCP authorization spec): nothing of the caller's credential reaches the upstream.
      expect(got[0].headers.authorization).to.equal(undefined);
      expect(JSON.stringify(got[0].headers)).not.to.include(ta.key);
      // Who is calling, so the endpoint can keep tenants apart (red-team pass on issue 14): ids, never the key.
      expect(got[0].caller).to.deep.equal({ tenantId: ta.tenantId, principalKind: 'api-key', principalId: ta.principalId });
    });

    it("an endpoint that quotes its own signing secret: the caller, the stored answer and the replay get [redacted]", async () => {
      await ext('leak');
      const r = await call('ext.leak', ta.key, { arguments: {} }, { 'idempotency-key': 'leak-once' });
      expect(r.status, r.text).to.equal(200);
      const body = JSON.parse(r.text) as { callId: string; content: Array<{ text: string }>; structuredContent: unknown };
      expect(body.content[0].text).to.equal('signed with [redacted]');
      expect(body.structuredContent).to.deep.equal({ secret: '[redacted]' });
      const past = await host.get(`/tools/ext.leak/calls/${body.callId}`, ta.key);
      const replay = await call('ext.leak', ta.key, { arguments: {} }, { 'idempotency-key': 'leak-once' });
      for (const text of [r.text, past.text, replay.text]) expect(text).not.to.include(endpoint.secret);
      // Spelled with \u escapes in the endpoint's JSON (re-test of the fix): looked for in the parsed result.
      await ext('leakescaped');
      const esc = await call('ext.leakescaped', ta.key, { arguments: {} });
      expect(JSON.parse(esc.text)).to.deep.include({ content: [{ type: 'text', text: 'esc=[redacted]' }], structuredContent: { k: '[redacted]' } });
    });

    it('a tool error is a result (200, isError true), not a transport error', async () => {
      const r = await call('ext.fail', ta.key);
      expect(r.status).to.equal(200);
      expect(JSON.parse(r.text)).to.deep.include({ isError: true, content: [{ type: 'text', text: 'it did not work' }] });
    });

    it('with Accept: text/event-stream: opened first, the result, closed last; session events carry an id and a time only', async () => {
      const r = await call('ext.echo', ta.key, { arguments: { text: 'streamed' } }, { accept: 'text/event-stream' });
      expect(r.status).to.equal(200);
      expect(r.headers.get('content-type')).to.match(/^text\/event-stream/);
      const events = parseSse(r.text);
      expect(events.map((e) => e.event)).to.deep.equal(['tool.session.opened', 'tool.call.result', 'tool.session.closed']);
      for (const e of [events[0], events[2]]) expect(Object.keys(e.data).sort()).to.deep.equal(['at', 'callId']);
      expect(events[1].data).to.deep.include({ toolId: 'ext.echo', isError: false });
    });

    it('structuredContent is checked against the outputSchema: a match passes, a mismatch is a tool error and is counted', async () => {
      const ok = await call('ext.conform', ta.key);
      expect(JSON.parse(ok.text)).to.deep.include({ isError: false, structuredContent: { n: 1 } });
      const bad = await call('ext.violate', ta.key);
      expect(bad.status).to.equal(200);
      const b = JSON.parse(bad.text) as { isError: boolean; structuredContent?: unknown; content: Array<{ text: string }> };
      expect(b.isError).to.equal(true);
      expect(b.structuredContent, 'an invalid structuredContent is never passed off as valid').to.equal(undefined);
      expect(b.content[0].text).to.match(/does not match its outputSchema/);
      expect((await callLog('ext.violate'))[0]).to.include({ outcome: 'output-invalid' });
      expect(await host.get('/metrics', host.adminKey).then((m) => m.text)).to.match(/toolcat_tool_calls_total\{[^}]*outcome="output-invalid"[^}]*\} 1/);
    });
  });

  describe('one decision: a call is allowed exactly when GET /tools/{toolId} answers 200', () => {
    let notFound: string;
    before(async () => {
      notFound = (await host.get('/tools/ext.no-such-tool', ta.key)).text;
    });
    const expect404 = async (toolId: string, key: string) => {
      const viaGet = await host.get(`/tools/${toolId}`, key);
      const viaCall = await call(toolId, key, { arguments: { text: 'x' } });
      expect(viaGet.status, `GET ${toolId}`).to.equal(404);
      expect(viaCall.status, `POST ${toolId}/calls: ${viaCall.text}`).to.equal(404);
      expect(viaCall.text, 'identical 404 bytes').to.equal(notFound);
      expect(viaGet.text).to.equal(notFound);
    };

    it('unknown and other-tenant tools answer the catalog 404, same bytes, and nothing is forwarded', async () => {
      const before = endpoint.received.length;
      await expect404('ext.no-such-tool', ta.key);
      await expect404('ext.echo_mine', tb.key); // ta's own extension, called by tb
      await expect404('mcp.nothing.here', ta.key);
      expect(endpoint.received.length).to.equal(before);
      const mine = await call('ext.echo_mine', ta.key, { arguments: { text: 'x' } });
      expect(mine.status).to.equal(200);
    });

    it('a grant revoked between calls of a stream of calls applies to the very next call', async () => {
      const t = await aTenantWithKey(host, 'calls-revoke');
      const grant = await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.echo' });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call('ext.echo', t.key, { arguments: { text: String(i) } }));
      await host.gqlOk('mutation($id: ID!) { deleteGrant(id: $id) }', { id: grant });
      await expect404('ext.echo', t.key);
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 200]);
      // A past call stays its caller's after the revocation (README, "A past call belongs to its caller"): the outcome
      // of what it started, nothing more; no other path under the tool answers.
      const { callId } = JSON.parse(answers[2].text) as { callId: string };
      const past = await host.get(`/tools/ext.echo/calls/${callId}`, t.key);
      expect(past.status, past.text).to.equal(200);
      expect(past.json()).to.deep.include({ status: 'completed', outcome: 'ok' });
    });

    it('a reclassification between calls applies at once: above the grant ceiling it is 404, and the call log keeps the tier of each call', async () => {
      const t = await aTenantWithKey(host, 'calls-reclass');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.reclass', maxSafetyTier: 'read' });
      await ext('reclass', { safetyTier: 'read', replayPolicy: 'idempotent' });
      // The endpoint has no "reclass" behaviour: a 404 from it is an upstream protocol error (502), proving the call went out.
      expect((await call('ext.reclass', t.key)).status).to.equal(502);
      await ext('reclass', { safetyTier: 'write', replayPolicy: 'non-idempotent' });
      await expect404('ext.reclass', t.key);
      await ext('reclass', { safetyTier: 'read', replayPolicy: 'deterministic' });
      expect((await call('ext.reclass', t.key)).status).to.equal(502);
      const log = await callLog('ext.reclass');
      expect(log.map((c) => c.replayPolicy)[0]).to.equal('deterministic');
      expect(log.map((c) => c.replayPolicy).slice(-1)[0]).to.equal('idempotent');
    });

    it('withheld (drift review) and quarantined MCP tools answer the same 404', async function () {
      this.timeout(30000);
      const hostile = hostileControl();
      await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
        i: { name: 'callhostile', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0, env: Object.entries(hostile.env).map(([n, value]) => ({ name: n, value })) },
      });
      await host.gqlOk('mutation { syncSource(name: "callhostile") { status } }');
      const t = await aTenantWithKey(host, 'calls-mcp');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: 'mcp.callhostile.*' });
      // Quarantined: an invalid inputSchema.
      await expect404('mcp.callhostile.bad_schema', t.key);
      // Withheld: classified, then changed upstream.
      await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.callhostile.read_record", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
      expect((await host.get('/tools/mcp.callhostile.read_record', t.key)).status).to.equal(200);
      hostile.setTools(DEFAULT_TOOLS.map((x) => (x.name === 'read_record' ? { ...x, description: 'Reads one record. Also deletes it.' } : x)));
      await host.gqlOk('mutation { syncSource(name: "callhostile") { status } }');
      await expect404('mcp.callhostile.read_record', t.key);
      await host.gqlOk('mutation { removeSource(name: "callhostile") }').catch(() => undefined);
    });

    it("a past call is its caller's: another principal of the same tenant and another tenant get the same 404", async () => {
      const r = await call('ext.echo', ta.key, { arguments: { text: 'mine' } });
      const { callId } = JSON.parse(r.text) as { callId: string };
      const own = await host.get(`/tools/ext.echo/calls/${callId}`, ta.key);
      expect(own.status).to.equal(200);
      const past = own.json() as { status: string; outcome: string; result: { structuredContent: unknown } };
      expect(past).to.deep.include({ status: 'completed', outcome: 'ok' });
      expect(past.result.structuredContent).to.deep.equal({ echoed: { text: 'mine' } });
      for (const key of [ta2.key, tb.key]) {
        const other = await host.get(`/tools/ext.echo/calls/${callId}`, key);
        expect(other.status).to.equal(404);
        expect(other.text).to.equal(notFound);
      }
      const wrongTool = await host.get(`/tools/ext.fail/calls/${callId}`, ta.key);
      expect(wrongTool.text).to.equal(notFound);
      expect((await host.get('/tools/ext.echo/calls/00000000-0000-0000-0000-000000000000', ta.key)).text).to.equal(notFound);
    });
  });

  describe('validation before forwarding', () => {
    it('invalid arguments answer 400 listing each problem (JSON pointer and message); nothing is forwarded', async () => {
      const before = endpoint.count('echo');
      const r = await call('ext.echo', ta.key, { arguments: { text: 5, n: 'x', extra: true } });
      expect(r.status).to.equal(400);
      const e = JSON.parse(r.text) as { error: { code: string; details: { problems: Array<{ pointer: string; message: string }> } } };
      expect(e.error.code).to.equal('INVALID_ARGUMENTS');
      const pointers = e.error.details.problems.map((p) => p.pointer).sort();
      expect(pointers).to.deep.equal(['', '/n', '/text']);
      for (const p of e.error.details.problems) expect(p.message).to.be.a('string').and.not.equal('');
      expect(endpoint.count('echo')).to.equal(before);
      expect((await callLog('ext.echo'))[0]).to.include({ outcome: 'invalid-arguments' });
    });

    it('a changed inputSchema applies to the very next call: the descriptor kept for checking is per version of its bytes', async () => {
      const first = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false };
      const second = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
      await ext('echo_reschema', { inputSchema: first });
      expect((await call('ext.echo_reschema', ta.key, { arguments: { text: 'a' } })).status).to.equal(200);
      expect((await call('ext.echo_reschema', ta.key, { arguments: { n: 1 } })).status).to.equal(400);
      expect(endpoint.count('echo_reschema')).to.equal(1);
      await ext('echo_reschema', { inputSchema: second });
      // A descriptor (or a validator entry) kept from the first version would let the first call through and refuse the second.
      expect((await call('ext.echo_reschema', ta.key, { arguments: { text: 'a' } })).status).to.equal(400);
      expect((await call('ext.echo_reschema', ta.key, { arguments: { n: 1 } })).status).to.equal(200);
      expect(endpoint.count('echo_reschema')).to.equal(2);
      await ext('echo_reschema', { inputSchema: first });
      expect((await call('ext.echo_reschema', ta.key, { arguments: { text: 'b' } })).status).to.equal(200);
      expect((await call('ext.echo_reschema', ta.key, { arguments: { n: 2 } })).status).to.equal(400);
      expect(endpoint.count('echo_reschema')).to.equal(3);
    });

    it('hostile bodies: not JSON, not an object, unknown fields, arrays as arguments, too deep, too large, bad Idempotency-Key', async () => {
      const before = endpoint.received.length;
      const deep = JSON.stringify({ arguments: { text: 'x', n: 1, ...JSON.parse(`{"a":${'['.repeat(200)}${']'.repeat(200)}}`) } });
      const cases: Array<[unknown, number, Record<string, string>?]> = [
        ['{not json', 400],
        ['[1,2]', 400],
        ['null', 400],
        [{ arguments: {}, toolId: 'ext.other' }, 400],
        [{ arguments: [1, 2] }, 400],
        [{ arguments: 'text' }, 400],
        [deep, 400],
        [JSON.stringify({ arguments: { text: 'x'.repeat(CALLS.maxRequestBytes + 10) } }), 413],
        [{ arguments: {} }, 400, { 'idempotency-key': 'has spaces in it' }],
        [{ arguments: {} }, 400, { 'idempotency-key': 'k'.repeat(300) }],
      ];
      for (const [body, status, headers] of cases) {
        const r = await call('ext.echo', ta.key, body, headers ?? {});
        expect(r.status, `${String(body).slice(0, 40)} → ${r.text.slice(0, 200)}`).to.equal(status);
        expect(JSON.parse(r.text)).to.have.nested.property('error.code');
      }
      expect(endpoint.received.length, 'nothing forwarded').to.equal(before);
      // Other methods on the calls collection: 405 with Allow; the catalog endpoints stay read-only (TC-CAT-2).
      const put = await host.request('PUT', '/tools/ext.echo/calls', ta.key, '{}');
      expect(put.status).to.equal(405);
      expect(put.headers.get('allow')).to.equal('POST');
      expect((await host.request('POST', '/tools/ext.echo', ta.key, '{}')).status).to.equal(405);
      // Without a credential: 401 with the challenge, never a hint about the tool.
      const anon = await fetch(`${host.url}/tools/ext.echo/calls`, { method: 'POST', body: '{}' });
      expect(anon.status).to.equal(401);
      expect(anon.headers.get('www-authenticate')).to.match(/^Bearer/);
    });
  });

  describe('upstream failures', () => {
    it('each failure has its own code and status, and no message quotes the implementation URL', async function () {
      this.timeout(20000);
      const cases: Array<[string, number, string]> = [
        ['ext.hang', 504, 'UPSTREAM_TIMEOUT'],
        ['ext.huge', 502, 'RESULT_TOO_LARGE'],
        ['ext.notjson', 502, 'UPSTREAM_UNAVAILABLE'],
        ['ext.http500', 502, 'UPSTREAM_UNAVAILABLE'],
        ['ext.redirect', 502, 'UPSTREAM_UNAVAILABLE'],
        ['ext.unimplemented', 501, 'NOT_IMPLEMENTED'],
      ];
      for (const [toolId, status, code] of cases) {
        const r = await call(toolId, ta.key);
        expect(r.status, `${toolId}: ${r.text}`).to.equal(status);
        expect((JSON.parse(r.text) as { error: { code: string } }).error.code).to.equal(code);
        expect(r.text).not.to.include('127.0.0.1');
      }
      const outcomes = Object.fromEntries((await Promise.all(cases.map(async ([id]) => [id, (await callLog(id))[0]?.outcome]))));
      expect(outcomes).to.deep.equal({ 'ext.hang': 'timeout', 'ext.huge': 'too-large', 'ext.notjson': 'protocol', 'ext.http500': 'unavailable', 'ext.redirect': 'protocol', 'ext.unimplemented': 'not-implemented' });
    });

    it('replay safety: a refused connection is retried only for idempotent tools; a delivered request is never sent twice', async () => {
      expect((await call('ext.refused_idem', ta.key)).status).to.equal(502);
      expect((await call('ext.refused_once', ta.key)).status).to.equal(502);
      expect((await callLog('ext.refused_idem'))[0]).to.include({ attempts: 1 + CALLS.retries, outcome: 'unavailable' });
      expect((await callLog('ext.refused_once'))[0]).to.include({ attempts: 1, outcome: 'unavailable' });
      // The endpoint read the request, then dropped the connection: it may have run, so neither is sent again.
      const before = { once: endpoint.count('reset_once'), idem: endpoint.count('reset_idem') };
      expect((await call('ext.reset_once', ta.key)).status).to.equal(502);
      expect((await call('ext.reset_idem', ta.key)).status).to.equal(502);
      expect(endpoint.count('reset_once') - before.once, 'upstream requests for the non-idempotent tool').to.equal(1);
      expect(endpoint.count('reset_idem') - before.idem).to.equal(1);
    });

    it('a caller that goes away cancels the call: the log records it as cancelled', async function () {
      this.timeout(20000);
      const controller = new AbortController();
      const res = await fetch(`${host.url}/tools/ext.hang/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tb.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ arguments: {} }),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      expect(first).to.include('tool.session.opened');
      controller.abort();
      await until(async () => (await callLog('ext.hang')).some((c) => c.tenantId === tb.tenantId && c.outcome === 'cancelled'), 10000);
    });
  });

  describe('red-team follow-ups (issue 14)', () => {
    it('a result nested past the stack is a 502 and its call is recorded as ended, not left running', async () => {
      const r = await call('ext.deep', ta.key, { arguments: {} }, { 'idempotency-key': 'deep-1' });
      expect(r.status, r.text).to.equal(502);
      expect((await callLog('ext.deep'))[0]).to.include({ status: 'completed', outcome: 'protocol' });
      const again = await call('ext.deep', ta.key, { arguments: {} }, { 'idempotency-key': 'deep-1' });
      expect(again.status, 'the recorded answer, not 409').to.equal(502);
    });

    it('a body nested 100,000 levels deep is refused with 400, not a 500', async () => {
      const r = await call('ext.echo', ta.key, `{"arguments":{"text":"x","n":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
      expect(r.status, r.text.slice(0, 300)).to.equal(400);
    });

    it('there is no call mutation over HTTP GraphQL (calls go through REST, under its budget and cancellation)', async () => {
      const r = await host.gql('mutation { callTool(toolId: "ext.echo", arguments: {}) { callId } }', {}, ta.key);
      expect(r.status).to.equal(400);
      expect(r.errors?.[0]?.extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
    });

    it("one tenant's flood of costly checks leaves another tenant's checks through: a tenant holds a bounded share of the argument checker", async function () {
      // Red-team pass on issue 14 (item 6, Containment): the checker's one pool (2 threads, queue 8) was first come,
      // first served, so tenant A's calls against ^(a+)+$ kept it full and tenant B's check of "abc" against
      // ^[a-z]+$ answered 502 "could not be checked" on every call during the flood.
      this.timeout(30000);
      const pattern = (p: string) => ({ inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: p } }, required: ['s'] } });
      await ext('echo_redos', pattern('^(a+)+$'));
      await ext('echo_lower', pattern('^[a-z]+$'));
      const validator = (host.app.services.invocation as unknown as { validator: ArgumentValidator }).validator;
      const before = validator.stats.worker;
      // Twelve connections of A, each sending again as soon as it is answered, until B is done.
      let flooding = true;
      const answersOfA: Array<{ status: number; headers: Headers }> = [];
      const floodOne = async () => {
        while (flooding) answersOfA.push(await call('ext.echo_redos', ta.key, { arguments: { s: `${'a'.repeat(40)}!` } }));
      };
      const flood = Array.from({ length: 12 }, floodOne);
      // Every connection's first call has reached the checker before B calls (counted, not timed).
      await until(async () => validator.stats.worker - before >= 12, 10000, 5);
      const answersOfB: number[] = [];
      try {
        for (let i = 0; i < 5; i++) {
          const r = await call('ext.echo_lower', tb.key, { arguments: { s: 'abc' } });
          expect(r.status, r.text).to.equal(200);
          answersOfB.push(r.status);
        }
      } finally {
        flooding = false;
        await Promise.all(flood);
      }
      expect(answersOfB).to.have.length(5);
      // A gets its own answers: 502 at its budget, or 429 with Retry-After once its share of the queue is full.
      for (const r of answersOfA) {
        expect([429, 502]).to.include(r.status);
        if (r.status === 429) expect(r.headers.get('retry-after')).to.match(/^[1-9][0-9]*$/);
      }
    });

    it('a large call refused because its tenant holds its whole share of the checker is recorded too (overloaded, no hash, no key)', async function () {
      // Arguments over 64 KB are measured and hashed in the checker's worker; past the tenant's share that never
      // happens, and the refusal was answered without a row (issue 14 item 7: every call is recorded).
      this.timeout(30000);
      await ext('echo_redos_wide', { inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } }, required: ['s'] } });
      const wide = { s: `${'a'.repeat(40)}!`, pad: 'x'.repeat(70 * 1024) };
      const answers = await Promise.all(Array.from({ length: 12 }, () => call('ext.echo_redos_wide', ta.key, { arguments: wide }, { 'idempotency-key': `wide-${Math.random()}` })));
      const refused = answers.filter((a) => a.status === 429);
      expect(refused.length, answers.map((a) => a.status).join(',')).to.be.greaterThan(0);
      const rows = (await callLog('ext.echo_redos_wide')).filter((r) => r.outcome === 'overloaded');
      expect(rows).to.have.length(refused.length);
      for (const r of rows) expect(r).to.include({ requestHash: '', idempotencyKeyUsed: false, status: 'completed', tenantId: ta.tenantId }).and.have.property('argumentBytes').above(70 * 1024);
    });

    it('the request hash (bound to an Idempotency-Key) is the same function of (toolId, arguments) as before, small or large', async function () {
      // Pinned before the hash moved off the main thread for large arguments (red-team pass on issue 14, finding 2):
      // stored Idempotency-Key rows on every database compare against these bytes across restarts and replicas.
      this.timeout(30000);
      const large: Record<string, unknown> = {};
      for (let i = 0; i < 7000; i++) large[`k${String(7000 - i).padStart(5, '0')}`] = i % 3 === 0 ? { v: [i, 'x', null, true] } : i % 3 === 1 ? `v${i}` : i / 7;
      const cases: Array<[string, unknown, string]> = [
        ['ext.fail', { text: 'héllo "wörld"', n: 3 }, '8fe8976c452da03b7f5f31e4f2afaa133f9aaec8579f79d3befa9286e6509eba'],
        ['ext.fail', { n: 3, text: 'héllo "wörld"' }, '8fe8976c452da03b7f5f31e4f2afaa133f9aaec8579f79d3befa9286e6509eba'],
        ['ext.fail', {}, '0cbbe95541e31752731bb996bd9c78654720c0ea5e8c3bbf6ed8dcbf3a9290a5'],
        ['ext.fail', { z: [1.5, -0, 1e21, { b: 1, a: 2 }], 'a/b': '\u2028' }, 'aa7180261769d584a7adb064819a479217bae458833a5aad672a813d91b617c1'],
        ['ext.fail', large, '9df12bb34c0acf0850da6166589f4251db644c002aad49e47bbb5091486527ff'],
      ];
      for (const [i, [toolId, args, expected]] of cases.entries()) {
        await call(toolId, ta.key, { arguments: args }, { 'idempotency-key': `pin-hash-${i}` });
        expect((await callLog(toolId))[0].requestHash, `case ${i}`).to.equal(expected);
      }
    });

    it('a refusal where nothing was sent (queue full) releases the Idempotency-Key: the same call succeeds later', async function () {
      this.timeout(20000);
      const t = await aTenantWithKey(host, 'calls-release');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.hang_q' });
      // Three running (4 slots less the reserve) and one waiting (its half of the queue): the next is refused.
      const hanging = [0, 1, 2, 3].map(() => call('ext.hang_q', t.key));
      await until(async () => (await callLog('ext.hang_q')).filter((c) => c.status === 'running').length >= 4, 5000, 20);
      const refused = await call('ext.hang_q', t.key, { arguments: {} }, { 'idempotency-key': 'release-1' });
      expect(refused.status).to.equal(429);
      await Promise.all(hanging);
      // The endpoint's "hang" never answers, so the retry times out (504): it was made, not the 429 replayed.
      const retried = await call('ext.hang_q', t.key, { arguments: {} }, { 'idempotency-key': 'release-1' });
      expect(retried.status).to.equal(504);
      expect(retried.headers.get('idempotent-replayed')).to.equal(null);
      const mine = (await callLog('ext.hang_q')).filter((c) => c.tenantId === t.tenantId);
      expect(mine.find((c) => c.outcome === 'overloaded'), 'the refusal no longer holds the key').to.include({ idempotencyKeyUsed: false });
      expect(mine[0], 'the call made with it holds it').to.include({ outcome: 'timeout', idempotencyKeyUsed: true });
    });

    it('a call waiting in its source queue whose principal is revoked meanwhile is not sent: it ends with the catalog 404', async function () {
      this.timeout(20000);
      const t = await aTenantWithKey(host, 'calls-revoke-queued');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.hang_q' });
      const victim = await aPrincipal(host, t.tenantId, 'calls-revoke-victim');
      const before = endpoint.count('hang_q');
      // The tenant's three running calls leave only the reserve, which is not its to take: the victim's call waits.
      const hanging = [0, 1, 2].map(() => call('ext.hang_q', t.key));
      await until(async () => (await callLog('ext.hang_q')).filter((c) => c.status === 'running').length >= 3, 5000, 20);
      const queued = call('ext.hang_q', victim.key);
      await until(async () => (await callLog('ext.hang_q')).filter((c) => c.status === 'running').length >= 4, 5000, 20);
      await host.gqlOk('mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id: victim.principalId });
      await Promise.all(hanging);
      const r = await queued;
      expect(r.status, r.text).to.equal(404);
      expect(r.text).to.equal((await host.get('/tools/ext.no-such-tool', t.key)).text);
      expect(endpoint.count('hang_q') - before, 'only the three running calls reached the endpoint').to.equal(3);
      expect((await callLog('ext.hang_q')).find((c) => c.principalId === victim.principalId)).to.include({ outcome: 'revoked' });
    });

    it('with TOOLCAT_CALL_RECORD_ARGUMENTS the recorded arguments are shown with credentials redacted', async function () {
      this.timeout(20000);
      const recording = await startHost(dbConfig, { calls: { ...CALLS, recordArguments: true } }, false);
      try {
        const token = `ghp_${'A1b2C3d4E5'.repeat(3)}1234aB`;
        const r = await fetch(`${recording.url}/tools/ext.echo/calls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ta.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ arguments: { text: `use ${token} please` } }),
        });
        const { callId } = (await r.json()) as { callId: string };
        const row = (await callLog('ext.echo')).find((c) => c.callId === callId)!;
        expect(row.arguments, 'recorded').to.be.an('object');
        expect(JSON.stringify(row.arguments)).to.include('please').and.not.include(token);
      } finally {
        await recording.close();
      }
    });

    it('calls left running by a replica that died are closed with an answer; their key then replays it, never 409', async () => {
      const r = await call('ext.echo', ta.key, { arguments: { text: 'abandoned' } }, { 'idempotency-key': 'abandoned-1' });
      const { callId } = JSON.parse(r.text) as { callId: string };
      // As a replica that died mid-call leaves it: still running, started ten minutes ago (past the call timeout and
      // its grace, inside the Idempotency-Key window).
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000).toISOString();
      const p = database.name === 'postgres' ? ['$1', '$2'] : ['?', '?'];
      await host.app.dataSource.query(`UPDATE tool_call SET status = 'running', outcome = NULL, answer = NULL, started_at = ${p[0]} WHERE call_id = ${p[1]}`, [tenMinutesAgo, callId]);
      const rows = (await host.app.dataSource.query(`SELECT status, started_at FROM tool_call WHERE call_id = ${database.name === 'postgres' ? '$1' : '?'}`, [callId])) as Array<{ status: string; started_at: string }>;
      expect(rows, 'the row as a dead replica leaves it').to.deep.equal([{ status: 'running', started_at: tenMinutesAgo }]);
      expect(await host.app.services.invocation.closeAbandoned()).to.be.at.least(1);
      const again = await call('ext.echo', ta.key, { arguments: { text: 'abandoned' } }, { 'idempotency-key': 'abandoned-1' });
      expect(again.status, again.text).to.equal(502);
      expect(again.text).to.match(/whether the tool ran is unknown/);
    });
  });

  describe('Idempotency-Key', () => {
    const body = { arguments: { text: 'once only' } };
    it('the same key and body return the recorded outcome without calling again; another body answers 422', async () => {
      const before = endpoint.count('echo');
      const first = await call('ext.echo', ta.key, body, { 'idempotency-key': 'key-1' });
      const again = await call('ext.echo', ta.key, body, { 'idempotency-key': 'key-1' });
      expect(first.status).to.equal(200);
      expect(again.status).to.equal(200);
      expect(again.text).to.equal(first.text);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(endpoint.count('echo') - before).to.equal(1);
      const other = await call('ext.echo', ta.key, { arguments: { text: 'something else' } }, { 'idempotency-key': 'key-1' });
      expect(other.status).to.equal(422);
      expect((JSON.parse(other.text) as { error: { code: string } }).error.code).to.equal('IDEMPOTENCY_KEY_REUSED');
      // Keys are the caller's: another principal's same key is a new call.
      const theirs = await call('ext.echo', tb.key, body, { 'idempotency-key': 'key-1' });
      expect(theirs.status).to.equal(200);
      expect(JSON.parse(theirs.text).callId).not.to.equal(JSON.parse(first.text).callId);
      expect(endpoint.count('echo') - before).to.equal(2);
    });

    it('holds across a restart and on a second replica of the same database', async function () {
      this.timeout(60000);
      const post = (url: string, key: string) =>
        fetch(`${url}/tools/ext.echo/calls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'key-restart' },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, text: await r.text() }));
      // The call is made on a replica that then stops; a fresh one (a restart: nothing in memory) and the other
      // replica still running both answer the recorded outcome.
      const before = endpoint.count('echo');
      const first = await startHost(dbConfig, { calls: CALLS }, false);
      const made = await post(first.url, ta.key);
      await first.close();
      expect(made.status).to.equal(200);
      const restarted = await startHost(dbConfig, { calls: CALLS }, false);
      try {
        expect(await post(restarted.url, ta.key)).to.deep.equal(made);
        expect(await post(host.url, ta.key), 'the other replica').to.deep.equal(made);
      } finally {
        await restarted.close();
      }
      expect(endpoint.count('echo') - before, 'called once in all').to.equal(1);
    });
  });

  describe('MCP tools: through a managed session per source (stdio and Streamable HTTP)', () => {
    let dir: string;
    let http: { url: string; stop(): void };
    let countFile: string;
    const agentMcp = () => ta.key;
    const register = (i: Record<string, unknown>) => host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { syncIntervalSeconds: 0, ...i } });
    const sync = async (name: string) => {
      const r = await host.gqlOk<{ syncSource: { status: string; error: string | null } }>('mutation($n: String!) { syncSource(name: $n) { status error } }', { n: name });
      expect(r.syncSource.status, r.syncSource.error ?? '').to.be.oneOf(['ok', 'degraded']);
    };
    const classify = (toolId: string, replayPolicy: string, safetyTier = 'read') =>
      host.gqlOk('mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }', { i: { toolId, safetyTier, replayPolicy, egress: 'none' } });
    before(async function () {
      this.timeout(60000);
      dir = mkdtempSync(join(tmpdir(), 'toolcat-calls-mcp-'));
      countFile = join(dir, 'count');
      http = await startEverythingHttp();
      const hostile = hostileControl();
      hostile.setTools(CALL_TOOLS);
      const env = Object.entries({ ...hostile.env, HOSTILE_COUNT_FILE: countFile }).map(([name, value]) => ({ name, value }));
      await register({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });
      await register({ name: 'everything-http', transport: 'http', url: { value: http.url } });
      await register({ name: 'memory', transport: 'stdio', command: process.execPath, args: [MEMORY_BIN], env: [{ name: 'MEMORY_FILE_PATH', value: join(dir, 'memory.jsonl') }] });
      for (const name of ['hostile', 'slow', 'broken']) await register({ name, transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env });
      for (const name of ['everything', 'everything-http', 'memory', 'hostile', 'slow', 'broken']) await sync(name);
      await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'mcp.*' });
      await aGrant(host, { tenantId: tb.tenantId, toolPattern: 'mcp.*' });
    });
    after(async () => {
      http?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('server-everything over stdio and Streamable HTTP: echo and get-sum; a tool error is a result', async function () {
      this.timeout(30000);
      for (const source of ['everything', 'everything-http']) {
        const echo = await call(`mcp.${source}.echo`, agentMcp(), { arguments: { message: 'hi' } });
        expect(echo.status, echo.text).to.equal(200);
        expect(JSON.parse(echo.text)).to.deep.include({ toolId: `mcp.${source}.echo`, isError: false, content: [{ type: 'text', text: 'Echo: hi' }] });
        const sum = await call(`mcp.${source}.get-sum`, agentMcp(), { arguments: { a: 2, b: 40 } });
        expect(JSON.parse(sum.text).content[0].text).to.include('42');
      }
      // Invalid for the tool's own inputSchema: refused here, never forwarded.
      expect((await call('mcp.everything.get-sum', agentMcp(), { arguments: { a: 'two' } })).status).to.equal(400);
    });

    it('TC-SESS-1 with progress: opened, the progress the tool reports, the result, closed', async function () {
      this.timeout(30000);
      const r = await call('mcp.everything.trigger-long-running-operation', agentMcp(), { arguments: { duration: 0.3, steps: 3 } }, { accept: 'text/event-stream' });
      const events = parseSse(r.text);
      const names = events.map((e) => e.event);
      expect(names[0]).to.equal('tool.session.opened');
      expect(names[names.length - 1]).to.equal('tool.session.closed');
      expect(names[names.length - 2]).to.equal('tool.call.result');
      const progress = events.filter((e) => e.event === 'tool.call.progress').map((e) => e.data.progress as number);
      expect(progress, 'every step, in order').to.deep.equal([1, 2, 3]);
    });

    it('server-memory over stdio: an entity created by one call is read by the next (one session, state kept)', async function () {
      this.timeout(30000);
      const created = await call('mcp.memory.create_entities', agentMcp(), { arguments: { entities: [{ name: 'toolcat', entityType: 'service', observations: ['calls tools'] }] } });
      expect(created.status, created.text).to.equal(200);
      const graph = await call('mcp.memory.read_graph', agentMcp(), { arguments: {} });
      expect(JSON.parse(graph.text).content[0].text).to.include('calls tools');
    });

    it('a hostile server: a result violating its outputSchema is a counted tool error; a crash is 502; a hang is 504', async function () {
      this.timeout(30000);
      const bad = await call('mcp.hostile.bad_output', agentMcp());
      expect(JSON.parse(bad.text)).to.deep.include({ isError: true });
      expect(JSON.parse(bad.text).structuredContent).to.equal(undefined);
      expect((await call('mcp.hostile.crash', agentMcp())).status).to.equal(502);
      expect((await call('mcp.hostile.hang', agentMcp())).status).to.equal(504);
      // The session is re-established after the crash.
      expect((await call('mcp.hostile.echo', agentMcp(), { arguments: {} })).status).to.equal(200);
    });

    it('no retry of a non-idempotent tool: a server that counts, then crashes, is called once (the count file says so)', async function () {
      this.timeout(30000);
      const count = () => (existsSync(countFile) ? Number(readFileSync(countFile, 'utf8')) : 0);
      await classify('mcp.hostile.count', 'non-idempotent', 'write');
      const n0 = count();
      const r = await call('mcp.hostile.count', agentMcp(), { arguments: { crash: true } });
      expect(r.status, r.text).to.equal(502);
      expect(count() - n0, 'upstream invocations').to.equal(1);
      expect((await callLog('mcp.hostile.count'))[0]).to.include({ attempts: 1, replayPolicy: 'non-idempotent', safetyTier: 'write' });
      // Reclassified between calls: the next call is recorded with the new classification.
      await classify('mcp.hostile.count', 'idempotent', 'read');
      expect((await call('mcp.hostile.count', agentMcp(), { arguments: {} })).status).to.equal(200);
      expect((await callLog('mcp.hostile.count'))[0]).to.include({ replayPolicy: 'idempotent', safetyTier: 'read', outcome: 'ok' });
    });

    it('bounds: a full source queue answers 429 with Retry-After while other sources answer at once', async function () {
      this.timeout(30000);
      // Tenant a alone on the source "slow": three running (4 slots less the reserve) and one waiting (half of 2 places).
      const hanging = [0, 1, 2, 3].map(() => call('mcp.slow.hang', agentMcp()));
      await until(async () => (await callLog('mcp.slow.hang')).filter((c) => c.status === 'running').length >= 4, 5000, 20);
      const refused = await call('mcp.slow.hang', agentMcp());
      expect(refused.status, refused.text).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      // Fair shares: another tenant still gets a slot (the reserve) on the very same source, at once.
      const neighbour = await call('mcp.slow.echo', tb.key, { arguments: {} });
      expect(neighbour.status, neighbour.text).to.equal(200);
      // Another source is not held up by the hanging one (answered while all three still hang).
      const other = await call('mcp.everything.echo', agentMcp(), { arguments: { message: 'unaffected' } });
      expect(other.status).to.equal(200);
      const done = await Promise.all(hanging);
      expect(done.map((d) => d.status)).to.deep.equal([504, 504, 504, 504]);
    });

    it('a failing source opens its circuit: 503 SOURCE_UNAVAILABLE with Retry-After, nothing sent; other sources unaffected', async function () {
      this.timeout(30000);
      for (let i = 0; i < CALLS.breakerFailures; i++) expect((await call('mcp.broken.crash', agentMcp())).status).to.equal(502);
      const refused = await call('mcp.broken.echo', agentMcp(), { arguments: {} });
      expect(refused.status, refused.text).to.equal(503);
      expect((JSON.parse(refused.text) as { error: { code: string } }).error.code).to.equal('SOURCE_UNAVAILABLE');
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, CALLS.breakerOpenSeconds);
      expect((await call('mcp.hostile.echo', agentMcp(), { arguments: {} })).status).to.equal(200);
    });
  });

  describe('the call log', () => {
    it('records principal, tenant, classification, outcome, sizes and an argument hash, not the arguments; agents cannot read it', async () => {
      const r = await call('ext.echo', ta.key, { arguments: { text: 'audited' } });
      const { callId } = JSON.parse(r.text) as { callId: string };
      const row = (await callLog('ext.echo')).find((c) => c.callId === callId)!;
      expect(row).to.deep.include({ tenantId: ta.tenantId, principalId: ta.principalId, principalKind: 'api-key', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', status: 'completed', outcome: 'ok', arguments: null, idempotencyKeyUsed: false, attempts: 1 });
      expect(row.requestHash).to.match(/^[0-9a-f]{64}$/);
      expect(row.argumentBytes).to.equal(Buffer.byteLength('{"text":"audited"}'));
      expect(row.resultBytes).to.be.a('number').and.greaterThan(0);
      expect(JSON.stringify(row)).not.to.include('audited');
      const agent = await host.gql('{ toolCalls(first: 5) { callId } }', {}, ta.key);
      expect(agent.errors?.[0]?.extensions?.code).to.be.oneOf(['FORBIDDEN', 'GRAPHQL_VALIDATION_FAILED']);
    });

    it('pages newest first by offset, and refuses an offset past the bound with BAD_USER_INPUT (every skipped row is read)', async () => {
      const made: string[] = [];
      for (const text of ['first', 'second', 'third']) {
        made.push((JSON.parse((await call('ext.echo', ta.key, { arguments: { text } })).text) as { callId: string }).callId);
        await new Promise((r) => setTimeout(r, 3)); // start times a few ms apart: the log's order is by start time
      }
      const page = async (offset: number) =>
        (await host.gqlOk<{ toolCalls: Array<{ callId: string }> }>('query($o: Int!) { toolCalls(toolId: "ext.echo", first: 2, offset: $o) { callId } }', { o: offset })).toolCalls.map((c) => c.callId);
      expect(await page(0)).to.deep.equal([made[2], made[1]]);
      expect((await page(1))[0]).to.equal(made[1]);
      const deep = await host.gql('{ toolCalls(offset: 10001) { callId } }');
      expect(deep.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
      expect(deep.errors?.[0]?.message).to.match(/offset may be at most 10000/);
      expect((deep.errors?.[0]?.extensions as { details?: unknown } | undefined)?.details).to.deep.equal({ reason: 'offset_out_of_range', maxOffset: 10000 });
    });
  });
});
