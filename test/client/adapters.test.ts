/**
 * Issue 17: the adapters' outputs are what each provider's official SDK types say (type-level: this file does not
 * compile otherwise), the MCP Tool passes the MCP SDK's own runtime schema, the Vercel AI SDK's own `tool()` and
 * `jsonSchema()` build working tools from them, and the function-name mapping is injective, provider-valid and
 * reversible (seeded properties). Offline: no provider is called.
 */
import { createHash } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { FunctionDeclaration, Tool as GeminiTool } from '@google/genai';
import { ToolSchema, type Tool as McpSdkTool } from '@modelcontextprotocol/sdk/types.js';
import { type Tool as AiTool, asSchema, jsonSchema, tool } from 'ai';
import { expect } from 'chai';
import fc from 'fast-check';
import type { ChatCompletionFunctionTool, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { FunctionTool } from 'openai/resources/responses/responses';
import {
  type ToolDescriptor, clientFunctionName, mcpToolName, toAiSdkTools, toAnthropicTools, toGeminiTools, toMcpTools, toOpenAIChatTools,
  toOpenAIResponsesTools, toolIdForFunctionCall, toolIdForMcpName,
} from '../../src/client';
import { sha256 } from '../../src/client/sha256';

const LIST: ToolDescriptor[] = [
  {
    toolId: 'ext.calculator', name: 'calculator', description: 'Evaluates arithmetic.', source: 'host-extension', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none',
    inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
    outputSchema: { type: 'object', properties: { value: { type: 'number' } } },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  { toolId: 'mcp.github.create_issue', inputSchema: { type: 'object' }, title: 'Create issue' },
  { toolId: 'mcp.odd~source.tool', inputSchema: { type: 'object' } },
  { toolId: 'mcp.srv.search', functionName: 'search_from_profile', inputSchema: { type: 'object', properties: {} } },
];

/** The toolId alphabet (schemas/v2: `^[A-Za-z0-9][A-Za-z0-9._~-]*$`, at most 200). */
const toolIdArb = fc.tuple(fc.constantFrom(...'aZ09m'), fc.array(fc.constantFrom(...'ab_.~-9Z'), { maxLength: 199 })).map(([h, t]) => h + t.join(''));
const PROVIDER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

describe('adapters (issue 17)', () => {
  it('OpenAI Chat Completions and Responses tools are the openai SDK\'s types', () => {
    const chat: ChatCompletionTool[] = toOpenAIChatTools(LIST);
    const responses: FunctionTool[] = toOpenAIResponsesTools(LIST);
    const fn = chat[0] as ChatCompletionFunctionTool;
    expect(fn.function).to.deep.equal({ name: 'ext__calculator', description: 'Evaluates arithmetic.', parameters: LIST[0].inputSchema, strict: false });
    expect(responses[3]).to.deep.equal({ type: 'function', name: 'search_from_profile', description: 'mcp.srv.search', parameters: { type: 'object', properties: {} }, strict: false });
  });

  it('Anthropic tools are the @anthropic-ai/sdk type', () => {
    const tools: Anthropic.Tool[] = toAnthropicTools(LIST);
    expect(tools.map((t) => t.name)).to.deep.equal(['ext__calculator', 'mcp__github__create_issue', clientFunctionName('mcp.odd~source.tool'), 'search_from_profile']);
    expect(tools[1].description).to.equal('Create issue');
    expect(tools[2].input_schema).to.deep.equal({ type: 'object' });
  });

  it('Gemini functionDeclarations are the @google/genai types', () => {
    const tools: GeminiTool[] = toGeminiTools(LIST);
    const decls: FunctionDeclaration[] = tools[0].functionDeclarations!;
    expect(decls.map((d) => d.name)).to.deep.equal(toAnthropicTools(LIST).map((t) => t.name));
    expect(decls[0].parametersJsonSchema).to.deep.equal(LIST[0].inputSchema);
  });

  it('Vercel AI SDK tools are built by the SDK\'s own tool() and jsonSchema(), and execute maps back to the toolId', async () => {
    const calls: Array<[string, unknown]> = [];
    const tools: Record<string, AiTool> = toAiSdkTools(LIST, { tool, jsonSchema }, async (toolId, input) => {
      calls.push([toolId, input]);
      return { ok: toolId };
    });
    expect(Object.keys(tools)).to.deep.equal(toAnthropicTools(LIST).map((t) => t.name));
    expect(await asSchema(tools.ext__calculator.inputSchema).jsonSchema).to.deep.equal(LIST[0].inputSchema);
    const out = await tools.mcp__github__create_issue.execute!({ title: 't' }, { toolCallId: '1', messages: [] });
    expect(out).to.deep.equal({ ok: 'mcp.github.create_issue' });
    expect(calls).to.deep.equal([['mcp.github.create_issue', { title: 't' }]]);
  });

  it('MCP Tools are the MCP SDK\'s type and pass its runtime ToolSchema', () => {
    const tools: McpSdkTool[] = toMcpTools(LIST);
    for (const t of tools) expect(ToolSchema.safeParse(t).success, JSON.stringify(t)).to.equal(true);
    expect(tools[0]).to.deep.include({ name: 'ext.calculator', annotations: LIST[0].annotations, outputSchema: LIST[0].outputSchema });
    expect(tools[2].name).to.match(/___/);
    for (const t of tools) expect(toolIdForMcpName(LIST, t.name)).to.equal((t._meta as Record<string, string>)['dev.toolcat/toolId']);
  });

  it('a model\'s function call maps back to its toolId, for server-given and client-made names alike', () => {
    for (const t of toOpenAIChatTools(LIST) as ChatCompletionFunctionTool[]) expect(LIST.map((d) => d.toolId)).to.include(toolIdForFunctionCall(LIST, t.function.name));
    expect(toolIdForFunctionCall(LIST, 'search_from_profile')).to.equal('mcp.srv.search');
    expect(toolIdForFunctionCall(LIST, 'no_such_tool')).to.equal(undefined);
  });

  it('refuses a list in which two tools would get one name', () => {
    expect(() => toOpenAIChatTools([{ toolId: 'a.b', inputSchema: {} }, { toolId: 'c', functionName: 'a__b', inputSchema: {} }])).to.throw(/a__b/);
  });

  it('clientFunctionName is provider-valid and injective on toolIds; mcpToolName MCP-valid and injective (seeded)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(toolIdArb, { minLength: 2, maxLength: 40 }), (ids) => {
        const names = ids.map(clientFunctionName);
        for (const n of names) expect(n).to.match(PROVIDER_NAME);
        expect(new Set(names).size).to.equal(ids.length);
        const mcp = ids.map(mcpToolName);
        for (const n of mcp) expect(n).to.match(/^[A-Za-z0-9_.-]{1,128}$/);
        expect(new Set(mcp).size).to.equal(ids.length);
        const list = ids.map((toolId) => ({ toolId, inputSchema: {} }));
        for (const id of ids) expect(toolIdForFunctionCall(list, clientFunctionName(id))).to.equal(id);
      }),
      { seed: 1717, numRuns: 300 },
    );
    // The readable form and the hashed form never meet: toolIds made to look like one another's names.
    const tricky = ['a.b', 'a__b', 'a_.b', 'a._b', 'a..b', 'a___b', 'a~b', 'ab___x', 'a-b', 'a.b.', 'a.b_'];
    expect(new Set(tricky.map(clientFunctionName)).size).to.equal(tricky.length);
    expect(new Set(tricky.map(mcpToolName)).size).to.equal(tricky.length);
  });

  it('the built-in SHA-256 agrees with node:crypto (seeded)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (s) => {
        expect(Buffer.from(sha256(s)).toString('hex')).to.equal(createHash('sha256').update(s, 'utf8').digest('hex'));
      }),
      { seed: 256, numRuns: 300 },
    );
  });
});
