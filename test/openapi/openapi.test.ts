/**
 * Issue 17: openapi.json describes the REST and MCP surface exactly. It validates with a maintained OpenAPI 3.1
 * validator (@seriousme/openapi-schema-validator, references into schemas/v2 included); the running host serves its
 * checked-in bytes; and every (path, method, status, header) that the real server answers for a set of requests that
 * produce each documented outcome, plus every status the facade's code maps an error code to, is in the document.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { testConfig } from '../../src/config/config';
import { CALL_STATUS_BY_CODE, HTTP_STATUS_BY_CODE } from '../../src/rest/http-status';
import { type ExtensionEndpoint, startExtensionEndpoint } from '../helpers/extension-endpoint';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';

const ROOT = join(__dirname, '..', '..', '..');
type SpecData = Parameters<Validator['validate']>[0];
const DOC = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as OpenApi;

interface OpenApi {
  paths: Record<string, Record<string, Operation | OtherMethods | unknown>>;
  components: { responses: Record<string, ResponseObject>; headers: Record<string, unknown> };
}
interface Operation {
  responses: Record<string, ResponseObject | { $ref: string }>;
}
interface OtherMethods {
  allow: string;
  response: { $ref: string };
}
interface ResponseObject {
  headers?: Record<string, unknown>;
}

/** The response headers a client may act on: each one the server sends must be documented where it is sent. */
const CONTRACT_HEADERS = ['etag', 'cache-control', 'vary', 'retry-after', 'www-authenticate', 'allow', 'ratelimit-limit', 'ratelimit-remaining', 'idempotent-replayed', 'mcp-session-id'];

function resolveResponse(r: ResponseObject | { $ref: string }): ResponseObject {
  if ('$ref' in r && typeof r.$ref === 'string') return DOC.components.responses[r.$ref.split('/').pop()!];
  return r as ResponseObject;
}

/** The documented response for (path template, method, status), or null. A 405 is documented per path. */
function documented(template: string, method: string, status: number): ResponseObject | null {
  const item = DOC.paths[template];
  if (!item) return null;
  const op = item[method.toLowerCase()] as Operation | undefined;
  if (op?.responses?.[String(status)]) return resolveResponse(op.responses[String(status)]);
  const other = item['x-toolcat-other-methods'] as OtherMethods | undefined;
  if (status === 405 && other && !op) return resolveResponse(other.response);
  return null;
}

function documentedHeaders(r: ResponseObject): Set<string> {
  return new Set(Object.keys(r.headers ?? {}).map((h) => h.toLowerCase()));
}

describe('openapi.json (issue 17)', () => {
  it('is a valid OpenAPI 3.1 document, its references into schemas/v2 included', async () => {
    const v = new Validator();
    for (const f of ['tool-descriptor', 'compact-tool-descriptor']) {
      const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'v2', `${f}.schema.json`), 'utf8')) as object;
      // The validator resolves a $ref by its literal text (no base-URI resolution): the document's refs name the
      // schemas by their path from the repository root, the compact schema's refs by their path beside it.
      await v.addSpecRef(structuredClone(schema) as SpecData, `schemas/v2/${f}.schema.json`);
      await v.addSpecRef(structuredClone(schema) as SpecData, `${f}.schema.json`);
    }
    const r = await v.validate(structuredClone(DOC) as unknown as SpecData);
    expect(r.errors, JSON.stringify(r.errors)).to.equal(undefined);
    expect(r.valid).to.equal(true);
    expect(v.version).to.equal('3.1');
  });

  it('the validator is not lenient: a document missing a required part, or with a dangling $ref, is refused', async () => {
    const broken = structuredClone(DOC) as unknown as Record<string, unknown>;
    delete broken.info;
    expect((await new Validator().validate(broken as SpecData)).valid).to.equal(false);
    // Without the schemas registered, the references into schemas/v2 do not resolve.
    expect((await new Validator().validate(structuredClone(DOC) as unknown as SpecData)).valid).to.equal(false);
  });

  it('documents every status the facade maps an error code to, on the routes that map them', () => {
    const statuses = (template: string, method: string) => Object.keys((DOC.paths[template][method] as Operation).responses).map(Number);
    for (const s of new Set(Object.values(CALL_STATUS_BY_CODE))) expect(statuses('/tools/{toolId}/calls', 'post'), `POST calls ${s}`).to.include(s);
    for (const [template, method] of [['/tools', 'get'], ['/tools/{toolId}', 'get'], ['/capabilities', 'get'], ['/tools/{toolId}/calls/{callId}', 'get']] as const) {
      for (const s of new Set(Object.values(HTTP_STATUS_BY_CODE))) {
        // BAD_USER_INPUT and parse failures come only from a toolId: /capabilities has none.
        if (s === 400 && template === '/capabilities') continue;
        expect(statuses(template, method), `${method} ${template} ${s}`).to.include(s);
      }
    }
  });

  describe('against a real host', () => {
    let host: TestHost;
    let limited: TestHost;
    let endpoint: ExtensionEndpoint;
    let dir: string;
    let key: string;
    let limitedKey: string;
    const seen: Array<{ template: string; method: string; status: number; headers: Headers; what: string }> = [];

    const send = async (what: string, template: string, method: string, path: string, init: { key?: string | null; body?: string; headers?: Record<string, string>; on?: TestHost } = {}) => {
      const h: Record<string, string> = { ...init.headers };
      const k = init.key === undefined ? key : init.key;
      if (k) h.authorization = `Bearer ${k}`;
      if (init.body !== undefined) h['content-type'] ??= 'application/json';
      const ac = new AbortController();
      const res = await fetch((init.on ?? host).url + path, { method, headers: h, body: init.body, signal: ac.signal });
      // Event streams stay open: status and headers are what is checked.
      if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream') && method !== 'POST') ac.abort();
      const body = ac.signal.aborted ? '' : await res.text();
      seen.push({ template, method, status: res.status, headers: res.headers, what });
      return { status: res.status, headers: res.headers, body };
    };

    before(async function () {
      this.timeout(60000);
      dir = mkdtempSync(join(tmpdir(), 'toolcat-openapi-'));
      host = await startHost({ type: 'sqlite', path: join(dir, 'a.sqlite') });
      limited = await startHost({ type: 'sqlite', path: join(dir, 'b.sqlite') }, { security: { ...testConfig().security, rateLimit: { capacity: 2, refillPerSecond: 1, maxKeys: 1000 } } });
      endpoint = await startExtensionEndpoint();
      const t = await aTenantWithKey(host, 'openapi');
      key = t.key;
      await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
      const upsert = 'mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }';
      const base = { description: 'for the OpenAPI test', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' };
      await host.gqlOk(upsert, { i: { ...base, name: 'echo', implementation: { http: { url: { value: endpoint.url }, secret: { value: endpoint.secret } } } } });
      await host.gqlOk(upsert, { i: { ...base, name: 'http500', implementation: { http: { url: { value: endpoint.url }, secret: { value: endpoint.secret } } } } });
      await host.gqlOk(upsert, { i: { ...base, name: 'unimplemented' } });
      limitedKey = (await aTenantWithKey(limited, 'openapi-limited')).key;
    });
    after(async () => {
      await host?.close();
      await limited?.close();
      await endpoint?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('serves the checked-in bytes of openapi.json and the schemas it references, without a credential', async () => {
      for (const [path, file] of [['/openapi.json', 'openapi.json'], ['/schemas/v2/tool-descriptor.schema.json', 'schemas/v2/tool-descriptor.schema.json'], ['/schemas/v2/compact-tool-descriptor.schema.json', 'schemas/v2/compact-tool-descriptor.schema.json']]) {
        const res = await fetch(host.url + path);
        expect(res.status).to.equal(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(ROOT, file)))).to.equal(true);
        const again = await fetch(host.url + path, { headers: { 'if-none-match': res.headers.get('etag')! } });
        expect(again.status).to.equal(304);
      }
    });

    it('every (path, method, status, header) the server answers is documented', async function () {
      this.timeout(60000);
      const list = await send('list', '/tools', 'GET', '/tools');
      await send('list, not modified', '/tools', 'GET', '/tools', { headers: { 'if-none-match': list.headers.get('etag')! } });
      await send('compact list', '/tools', 'GET', '/tools?view=compact');
      await send('list, HEAD', '/tools', 'HEAD', '/tools');
      await send('no key', '/tools', 'GET', '/tools', { key: null });
      await send('refused key', '/tools', 'GET', '/tools', { key: 'tc_not-a-key' });
      await send('write on the catalog', '/tools', 'DELETE', '/tools');
      const one = await send('one tool', '/tools/{toolId}', 'GET', '/tools/ext.echo');
      await send('one tool, not modified', '/tools/{toolId}', 'GET', '/tools/ext.echo', { headers: { 'if-none-match': one.headers.get('etag')! } });
      await send('unknown tool', '/tools/{toolId}', 'GET', '/tools/ext.nope');
      await send('bad percent-encoding', '/tools/{toolId}', 'GET', '/tools/%E0%A4%A');
      await send('toolId too long', '/tools/{toolId}', 'GET', `/tools/${'x'.repeat(1025)}`);
      await send('write on a tool', '/tools/{toolId}', 'PUT', '/tools/ext.echo', { body: '{}' });
      await send('capabilities', '/capabilities', 'GET', '/capabilities');
      await send('capabilities, no key', '/capabilities', 'GET', '/capabilities', { key: null });
      await send('capabilities, POST', '/capabilities', 'POST', '/capabilities', { body: '{}' });
      const called = await send('call', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 'a' } }) });
      await send('call, SSE', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 'a' } }), headers: { accept: 'text/event-stream' } });
      await send('call with a key', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 'k' } }), headers: { 'idempotency-key': 'openapi-k1' } });
      const replay = await send('call replayed', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 'k' } }), headers: { 'idempotency-key': 'openapi-k1' } });
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      await send('key reused', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 'other' } }), headers: { 'idempotency-key': 'openapi-k1' } });
      await send('call, bad JSON', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: '{' });
      await send('call, invalid arguments', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 1 } }) });
      await send('call, unknown tool', '/tools/{toolId}/calls', 'POST', '/tools/ext.nope/calls', { body: '{}' });
      await send('call, no implementation', '/tools/{toolId}/calls', 'POST', '/tools/ext.unimplemented/calls', { body: '{}' });
      await send('call, upstream 500', '/tools/{toolId}/calls', 'POST', '/tools/ext.http500/calls', { body: '{}' });
      await send('call, too large', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { body: JSON.stringify({ arguments: { text: 'x'.repeat(2 * 1024 * 1024) } }) });
      await send('call, no key', '/tools/{toolId}/calls', 'POST', '/tools/ext.echo/calls', { key: null, body: '{}' });
      await send('call, GET', '/tools/{toolId}/calls', 'GET', '/tools/ext.echo/calls');
      const past = JSON.parse(called.body) as { callId: string };
      await send('past call', '/tools/{toolId}/calls/{callId}', 'GET', `/tools/ext.echo/calls/${past.callId}`);
      await send('unknown past call', '/tools/{toolId}/calls/{callId}', 'GET', '/tools/ext.echo/calls/00000000-0000-0000-0000-000000000000');
      await send('past call, DELETE', '/tools/{toolId}/calls/{callId}', 'DELETE', `/tools/ext.echo/calls/${past.callId}`);
      await send('events', '/catalog/events', 'GET', '/catalog/events');
      await send('events, no key', '/catalog/events', 'GET', '/catalog/events', { key: null });
      await send('events, POST', '/catalog/events', 'POST', '/catalog/events', { body: '{}' });
      await send('events, foreign Origin', '/catalog/events', 'GET', '/catalog/events', { headers: { origin: 'https://evil.example' } });
      const mcpHeaders = { accept: 'application/json, text/event-stream' };
      await send('mcp tools/list', '/mcp', 'POST', '/mcp', { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', headers: mcpHeaders });
      await send('mcp initialize', '/mcp', 'POST', '/mcp', { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }), headers: mcpHeaders });
      await send('mcp, no key', '/mcp', 'POST', '/mcp', { key: null, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', headers: mcpHeaders });
      await send('mcp, unknown session', '/mcp', 'POST', '/mcp', { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', headers: { ...mcpHeaders, 'mcp-session-id': 'nope' } });
      await send('mcp GET without a session', '/mcp', 'GET', '/mcp');
      await send('mcp, foreign Origin', '/mcp', 'POST', '/mcp', { body: '{}', headers: { ...mcpHeaders, origin: 'https://evil.example' } });
      await send('protected resource', '/.well-known/oauth-protected-resource', 'GET', '/.well-known/oauth-protected-resource', { key: null });
      await send('protected resource of /mcp', '/.well-known/oauth-protected-resource/mcp', 'GET', '/.well-known/oauth-protected-resource/mcp', { key: null });
      await send('protected resource, POST', '/.well-known/oauth-protected-resource', 'POST', '/.well-known/oauth-protected-resource', { key: null, body: '{}' });
      await send('this document', '/openapi.json', 'GET', '/openapi.json', { key: null });
      await send('this document, POST', '/openapi.json', 'POST', '/openapi.json', { key: null, body: '{}' });
      await send('a schema', '/schemas/v2/{file}', 'GET', '/schemas/v2/tool-descriptor.schema.json', { key: null });
      await send('no such schema', '/schemas/v2/{file}', 'GET', '/schemas/v2/nope.json', { key: null });
      for (let i = 0; i < 4; i++) await send('over the budget', '/tools', 'GET', '/tools', { key: limitedKey, on: limited });

      const statuses = new Set(seen.map((s) => s.status));
      // The requests above do produce the outcomes they are named after (a scenario that silently answered 200
      // would check nothing).
      for (const s of [200, 304, 400, 401, 403, 404, 405, 413, 422, 429, 501, 502]) expect(statuses, `a ${s} was produced`).to.include(s);
      const problems: string[] = [];
      for (const s of seen) {
        const r = documented(s.template, s.method, s.status);
        if (!r) {
          problems.push(`${s.what}: ${s.method} ${s.template} ${s.status} is not documented`);
          continue;
        }
        const doc = documentedHeaders(r);
        for (const h of CONTRACT_HEADERS) if (s.headers.has(h) && !doc.has(h)) problems.push(`${s.what}: ${s.method} ${s.template} ${s.status} sends ${h}, not documented`);
      }
      expect(problems).to.deep.equal([]);
    });
  });
});
