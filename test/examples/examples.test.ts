/**
 * The examples (issue 17) run offline against a real toolcat: each provider's agent loop lists the caller's tools,
 * adapts them, lets the scripted stand-in model choose the calculator, maps its function call back to the toolId and
 * calls it through toolcat (the demo's own calculator implementation), then answers with the result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { type DemoImplementations, startDemoImplementations } from '../../src/cli/demo-implementations';
import type { ExampleOptions } from '../../examples/scripted-model';
import { run as aiSdk } from '../../examples/ai-sdk';
import { run as anthropic } from '../../examples/anthropic';
import { run as gemini } from '../../examples/gemini';
import { run as mcp } from '../../examples/mcp';
import { run as openaiChat } from '../../examples/openai-chat';
import { run as openaiResponses } from '../../examples/openai-responses';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

const EXAMPLES: ReadonlyArray<[string, (o: ExampleOptions) => Promise<string>]> = [
  ['OpenAI Chat Completions', openaiChat],
  ['OpenAI Responses', openaiResponses],
  ['Anthropic Messages', anthropic],
  ['Gemini', gemini],
  ['Vercel AI SDK (generateText)', aiSdk],
  ['MCP Tool shapes', mcp],
];

describe('examples/ agent loops, offline (issue 17)', () => {
  let host: TestHost;
  let impl: DemoImplementations;
  let dir: string;
  let key: string;

  before(async function () {
    this.timeout(60000);
    dir = mkdtempSync(join(tmpdir(), 'toolcat-examples-'));
    impl = await startDemoImplementations();
    host = await startHost({ type: 'sqlite', path: join(dir, 'e.sqlite') });
    const t = await aTenantWithKey(host, 'examples');
    key = t.key;
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
      i: {
        name: 'calculator', title: 'Calculator', description: 'Evaluates an arithmetic expression with + - * / and parentheses.', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none',
        inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
        implementation: { http: { url: { value: impl.url }, secret: { value: impl.secret } } },
      },
    });
    // A second tool, so the model has to choose.
    await anExtension(host, { name: 'notes_read', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', description: 'Reads a note.' });
  });
  after(async () => {
    await host?.close();
    await impl?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, run] of EXAMPLES) {
    it(`${name}: list, adapt, choose, call through toolcat, answer`, async function () {
      this.timeout(30000);
      const answer = await run({ baseUrl: host.url, token: key, task: { prompt: 'What is (2 + 3) * 4?', keyword: 'arithmetic', arguments: { expression: '(2 + 3) * 4' } } });
      expect(answer).to.equal('The tool answered: 20');
    });
  }

  it('the stand-in model answers without a call when no tool fits (the loop does not invent one)', async () => {
    const answer = await openaiChat({ baseUrl: host.url, token: key, task: { prompt: 'Book a flight', keyword: 'flight', arguments: {} } });
    expect(answer).to.equal('No tool fits.');
  });
});
