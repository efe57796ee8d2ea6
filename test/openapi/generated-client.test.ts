/**
 * Issue 17: "a client generated from it by a mainstream generator compiles against the real server". openapi-typescript
 * (the generator, run as its CLI) turns openapi.json into types; a consumer written against them with openapi-fetch
 * is compiled by tsc in strict mode (a call the document does not allow must fail to compile: the @ts-expect-error
 * lines) and then run against a real toolcat.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ts from 'typescript';
import { type ExtensionEndpoint, startExtensionEndpoint } from '../helpers/extension-endpoint';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';

const ROOT = join(__dirname, '..', '..', '..');
// The generator's own command line, as its package.json declares it (the package exports no ./bin path).
const GENERATOR_PACKAGE = require.resolve('openapi-typescript/package.json');
const GENERATOR = join(GENERATOR_PACKAGE, '..', (require(GENERATOR_PACKAGE) as { bin: Record<string, string> }).bin['openapi-typescript']);

/** The consumer: typed calls through openapi-fetch on the generated `paths`. */
const CONSUMER = `
import createClient from 'openapi-fetch';
import type { paths, components } from './toolcat-api';

type Descriptor = components['schemas']['ToolDescriptor'];

export async function run(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: 'Bearer ' + key } });
  const caps = await client.GET('/capabilities');
  const sources: string[] = caps.data ? [...caps.data.toolCatalog.sources] : [];
  const list = await client.GET('/tools');
  const tools = (list.data ?? []) as Descriptor[];
  const ids: string[] = Array.isArray(tools) ? tools.map((t) => t.toolId) : [];
  const tiers: string[] = Array.isArray(tools) ? tools.map((t) => t.safetyTier) : [];
  const one = await client.GET('/tools/{toolId}', { params: { path: { toolId: 'ext.echo' } } });
  const missing = await client.GET('/tools/{toolId}', { params: { path: { toolId: 'ext.nope' } } });
  const missingCode: string | undefined = missing.error?.error.code;
  const call = await client.POST('/tools/{toolId}/calls', {
    params: { path: { toolId: 'ext.echo' }, header: { 'Idempotency-Key': 'generated-1' } },
    body: { arguments: { text: 'hi' } },
  });
  // The document offers JSON and an event stream for a call; without Accept: text/event-stream it is the JSON.
  const result = typeof call.data === 'object' ? call.data : undefined;
  const isError: boolean | undefined = result?.isError;
  const callId: string | undefined = result?.callId;
  const past = callId ? await client.GET('/tools/{toolId}/calls/{callId}', { params: { path: { toolId: 'ext.echo', callId } } }) : null;
  // @ts-expect-error the document has no such path
  void client.GET('/tool');
  // @ts-expect-error a call names its tool
  void client.POST('/tools/{toolId}/calls', { body: { arguments: {} } });
  // @ts-expect-error the arguments are an object
  void client.POST('/tools/{toolId}/calls', { params: { path: { toolId: 'x' } }, body: { arguments: 'text' } });
  return {
    sources, ids, tiers,
    oneStatus: one.response.status, oneId: (one.data as Descriptor | undefined)?.toolId,
    missingStatus: missing.response.status, missingCode,
    callStatus: call.response.status, isError, content: result?.content,
    pastStatus: past?.response.status, pastCallId: past?.data?.callId,
  };
}
`;

describe('a client generated from openapi.json (openapi-typescript + openapi-fetch, issue 17)', () => {
  let host: TestHost;
  let endpoint: ExtensionEndpoint;
  let dir: string;
  let gen: string;
  let key: string;

  before(async function () {
    this.timeout(60000);
    dir = mkdtempSync(join(tmpdir(), 'toolcat-genclient-'));
    // Inside the package, so the consumer resolves openapi-fetch from its node_modules like any app would.
    gen = join(ROOT, 'dist', `generated-client-${process.pid}`);
    mkdirSync(gen, { recursive: true });
    host = await startHost({ type: 'sqlite', path: join(dir, 'c.sqlite') });
    endpoint = await startExtensionEndpoint();
    const t = await aTenantWithKey(host, 'generated');
    key = t.key;
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
      i: { name: 'echo', description: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', implementation: { http: { url: { value: endpoint.url }, secret: { value: endpoint.secret } } } },
    });
  });
  after(async () => {
    await host?.close();
    await endpoint?.close();
    rmSync(dir, { recursive: true, force: true });
    if (gen) rmSync(gen, { recursive: true, force: true });
  });

  it('generates, compiles strictly (rejecting calls the document does not allow) and works against the real server', async function () {
    this.timeout(60000);
    await promisify(execFile)(process.execPath, [GENERATOR, join(ROOT, 'openapi.json'), '-o', join(gen, 'toolcat-api.ts')], { cwd: ROOT });
    writeFileSync(join(gen, 'consumer.ts'), CONSUMER);
    const program = ts.createProgram([join(gen, 'consumer.ts')], {
      strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
      esModuleInterop: true, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: [], outDir: gen, noUnusedLocals: true,
    });
    const emitted = program.emit();
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).to.deep.equal([]);
    // Run as its own program, as a generated client would be: a fresh process, with no connections pooled by this one
    // (the generator and tsc take long enough for the server to close this process's idle keep-alive sockets).
    const script = `require(${JSON.stringify(join(gen, 'consumer.js'))}).run(process.argv[1], process.argv[2]).then((r) => console.log(JSON.stringify(r)), (e) => { console.error(e); process.exit(1); })`;
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, host.url, key], { cwd: ROOT });
    const r = JSON.parse(stdout) as Record<string, unknown>;
    expect(r.sources).to.include('host-extension');
    expect(r.ids).to.deep.equal(['ext.echo']);
    expect(r.tiers).to.deep.equal(['read']);
    expect(r).to.deep.include({ oneStatus: 200, oneId: 'ext.echo', missingStatus: 404, missingCode: 'NOT_FOUND', callStatus: 200, isError: false, pastStatus: 200 });
    expect(r.content).to.deep.equal([{ type: 'text', text: '{"text":"hi"}' }]);
    expect(r.pastCallId).to.be.a('string');
  });
});
