/**
 * Issue 19 item 3: OpenTelemetry tracing, over real HTTP on loopback, with an in-process exporter
 * (InMemorySpanExporter). A request that carries a W3C `traceparent` yields spans of that trace: the HTTP server
 * span (child of the caller's span), GraphQL operation spans (Apollo's and the REST facade's) with database spans
 * nested under them, a sync span, and a tool call span whose upstream MCP request (a real stdio server that answers
 * the `_meta` it received) carries the trace context in `_meta` (SEP-414). Log lines written inside carry the
 * trace id. Without tracing configured, no OpenTelemetry module is loaded at all.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'chai';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';
import { type Tracing, startTracing } from '../../src/ops/tracing';
import { loadConfig } from '../../src/config/config';

const META_ECHO_BIN = join(__dirname, '..', 'fixtures', 'meta-echo-server.js');

/** A caller's trace context: a fresh trace id and the caller's own span id. */
function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

describe('tracing is off unless configured (issue 19)', () => {
  it('no OTEL_* variable: tracing is null; OTLP endpoint or OTEL_TRACES_EXPORTER=otlp: on; none or OTEL_SDK_DISABLED: off', () => {
    expect(loadConfig({}).tracing).to.equal(null);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).to.deep.equal({ serviceName: 'toolcat' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'cat-a' }).tracing).to.deep.equal({ serviceName: 'cat-a' });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).to.equal(null);
    expect(loadConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).to.equal(null);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).to.throw(/OTEL_TRACES_EXPORTER must be otlp or none/);
  });

  it('a host started without tracing serves a request having loaded no OpenTelemetry module (a child process, nothing preloaded)', function () {
    this.timeout(60000);
    const script = `
      require('reflect-metadata');
      const { createApp } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'app.js'))});
      const { testConfig } = require(${JSON.stringify(join(__dirname, '..', '..', 'src', 'config', 'config.js'))});
      (async () => {
        const app = await createApp(testConfig());
        const { url } = await app.listen(0, '127.0.0.1');
        const r = await fetch(url + '/tools');
        await app.close();
        const loaded = Object.keys(require.cache).filter((f) => /@opentelemetry[\\/](sdk-|context-async-hooks|exporter-|core)|ioredis|rate-limiter-flexible|ops[\\/]tracing\.js/.test(f));
        console.log(JSON.stringify({ status: r.status, loaded }));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' } }).trim().split('\n').pop()!) as { status: number; loaded: string[] };
    expect(out.status).to.equal(401);
    // (prom-client loads the no-op @opentelemetry/api for exemplars; no SDK, context manager or exporter is loaded.)
    expect(out.loaded, 'modules loaded with tracing and REDIS_URL off').to.deep.equal([]);
  });
});

forEachDatabase('tracing with an in-process exporter (issue 19)', (database) => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let host: TestHost;
  let drop: () => Promise<void>;
  let agent: { tenantId: string; key: string };

  const spansOf = (traceId: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  const parentOf = (s: ReadableSpan): string | undefined => s.parentSpanContext?.spanId;
  const gql = async (query: string, variables: Record<string, unknown>, traceparent: string) => {
    const r = await fetch(`${host.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${host.adminKey}`, 'content-type': 'application/json', traceparent, tracestate: 'caller=1' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await r.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
    expect(body.errors, JSON.stringify(body.errors)).to.equal(undefined);
    return body.data!;
  };

  before(async function () {
    this.timeout(60000);
    tracing = startTracing({ serviceName: 'toolcat-test' }, { spanProcessor: new SimpleSpanProcessor(exporter) });
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, {}, true, { tracing });
    agent = await aTenantWithKey(host, 'traced');
    await aGrant(host, { tenantId: agent.tenantId, toolPattern: 'mcp.*' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
    await tracing?.shutdown();
  });

  it('a GraphQL request with a traceparent: HTTP span under the caller\'s span, the operation span under it, database spans under that; logs carry the trace id', async () => {
    const caller = callerContext();
    await gql('query TracedTenants { me { kind } auditLog(first: 5) { action } }', {}, caller.traceparent);
    const spans = spansOf(caller.traceId);
    const http = spans.find((s) => s.name === 'POST' && s.attributes['url.path'] === '/graphql');
    expect(http, spans.map((s) => s.name).join(', ')).to.not.equal(undefined);
    expect(parentOf(http!), 'the HTTP span continues the caller\'s trace').to.equal(caller.spanId);
    expect(http!.attributes['http.response.status_code']).to.equal(200);
    const op = spans.find((s) => s.name === 'query TracedTenants');
    expect(op, spans.map((s) => s.name).join(', ')).to.not.equal(undefined);
    expect(parentOf(op!)).to.equal(http!.spanContext().spanId);
    expect(op!.attributes['graphql.operation.name']).to.equal('TracedTenants');
    const queries = spans.filter((s) => parentOf(s) === op!.spanContext().spanId && s.attributes['db.system.name'] !== undefined);
    expect(queries.length, 'database spans nested under the operation').to.be.greaterThan(0);
    expect(queries.map((q) => q.attributes['db.system.name'])).to.include(database.name === 'postgres' ? 'postgresql' : 'sqlite');
    expect(String(queries[0].attributes['db.query.text'])).to.match(/^\s*SELECT/i);
    // Log lines written inside the request carry its trace (and the span they were written in).
    const lines = host.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.trace_id === caller.traceId);
    expect(lines.length, 'log lines with the trace id').to.be.greaterThan(0);
    for (const l of lines) expect(l.span_id).to.match(/^[0-9a-f]{16}$/);
  });

  it('GET /tools/{id} through the REST facade: the fixed document is an operation span under the HTTP span', async () => {
    const caller = callerContext();
    const r = await fetch(`${host.url}/tools/mcp.none.none`, { headers: { authorization: `Bearer ${agent.key}`, traceparent: caller.traceparent } });
    expect(r.status).to.equal(404);
    const spans = spansOf(caller.traceId);
    const http = spans.find((s) => s.name === 'GET');
    const op = spans.find((s) => s.name === 'query RestGetTool');
    expect(op, spans.map((s) => s.name).join(', ')).to.not.equal(undefined);
    expect(parentOf(op!)).to.equal(http!.spanContext().spanId);
    expect(op!.attributes['graphql.transport']).to.equal('rest-facade');
  });

  it('a sync and a tool call to a real stdio MCP server: spans of the caller\'s trace, and the upstream request carries the traceparent in _meta', async function () {
    this.timeout(60000);
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
      i: { name: 'metaecho', transport: 'stdio', command: process.execPath, args: [META_ECHO_BIN], syncIntervalSeconds: 0 },
    });
    const syncCaller = callerContext();
    const synced = await gql('mutation { syncSource(name: "metaecho") { status error } }', {}, syncCaller.traceparent);
    expect(synced.syncSource).to.deep.include({ status: 'ok' });
    const sync = spansOf(syncCaller.traceId).find((s) => s.name === 'toolcat.sync');
    expect(sync, spansOf(syncCaller.traceId).map((s) => s.name).join(', ')).to.not.equal(undefined);
    expect(sync!.attributes['toolcat.source']).to.equal('metaecho');

    const caller = callerContext();
    const r = await fetch(`${host.url}/tools/mcp.metaecho.echo_meta/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json', traceparent: caller.traceparent, tracestate: 'caller=1' },
      body: JSON.stringify({ arguments: {} }),
    });
    const text = await r.text();
    expect(r.status, text).to.equal(200);
    const received = JSON.parse((JSON.parse(text) as { content: Array<{ text: string }> }).content[0].text) as Record<string, string>;
    const spans = spansOf(caller.traceId);
    const call = spans.find((s) => s.name === 'tools/call');
    expect(call, spans.map((s) => s.name).join(', ')).to.not.equal(undefined);
    expect(call!.attributes['gen_ai.tool.name']).to.equal('mcp.metaecho.echo_meta');
    // HTTP span (child of the caller's) -> the REST facade's call operation -> the call -> its database writes.
    const http = spans.find((s) => s.kind === 1 /* SERVER */);
    expect(parentOf(http!)).to.equal(caller.spanId);
    const op = spans.find((s) => s.name === 'mutation RestStartCall');
    expect(parentOf(op!)).to.equal(http!.spanContext().spanId);
    expect(parentOf(call!)).to.equal(op!.spanContext().spanId);
    expect(spans.filter((s) => parentOf(s) === call!.spanContext().spanId && s.attributes['db.system.name'] !== undefined).length, 'the call\'s own database writes').to.be.greaterThan(0);
    // What the upstream received: the caller's trace, as a child of the call's span; the caller's tracestate kept.
    expect(received.traceparent).to.equal(`00-${caller.traceId}-${call!.spanContext().spanId}-01`);
    expect(received.tracestate).to.equal('caller=1');

    // Red team (issue 19): a tracestate member carrying a credential (here the caller's own key) never goes upstream;
    // the other members do. A tracestate made only of such members is dropped.
    const callWith = async (tracestate: string) => {
      const res = await fetch(`${host.url}/tools/mcp.metaecho.echo_meta/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json', traceparent: callerContext().traceparent, tracestate },
        body: JSON.stringify({ arguments: {} }),
      });
      const body = await res.text();
      expect(res.status, body).to.equal(200);
      expect(body, body).to.not.include(agent.key);
      return JSON.parse((JSON.parse(body) as { content: Array<{ text: string }> }).content[0].text) as Record<string, string>;
    };
    expect((await callWith(`caller=1,k=${agent.key}`)).tracestate).to.equal('caller=1');
    expect(await callWith(`k=${agent.key}`)).to.not.have.property('tracestate');
  });
});
