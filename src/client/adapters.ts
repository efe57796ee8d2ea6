import { clientFunctionName, functionNameIndex, functionNameOf } from './function-names';
import type { ToolDescriptor } from './types';

export { clientFunctionName, functionNameIndex, functionNameOf, toolIdForFunctionCall } from './function-names';

/**
 * Pure functions from catalog descriptors to each model API's tool format (issue 17). Each takes the list as the
 * client read it (either view; the compact one is made for model APIs, TC-VIEW-3) and keeps its order. The names are
 * the descriptors' `functionName`s when the host served a provider profile, else the client's injective mapping
 * (function-names.ts); `toolIdForFunctionCall(list, name)` maps a model's call back. Shapes as the providers document
 * them; test/client/adapters.test.ts checks them against the official SDKs' types.
 */

type Schema = Readonly<Record<string, unknown>>;

/** A JSON Schema object as providers want it: `type: "object"` at the top (a descriptor's inputSchema normally is). */
function objectSchema(s: Schema): Record<string, unknown> & { type: 'object' } {
  return { ...s, type: 'object' };
}

function describe(d: ToolDescriptor): string {
  return d.description ?? d.title ?? d.name ?? d.toolId;
}

/** Checks the list maps to distinct names before any adapter hands it to a model. */
function named(tools: readonly ToolDescriptor[]): Array<{ d: ToolDescriptor; name: string }> {
  functionNameIndex(tools);
  return tools.map((d) => ({ d, name: functionNameOf(d) }));
}

export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/**
 * OpenAI Chat Completions `tools`. `strict` is false: strict mode needs every property required and no optional
 * ones, which a catalog's schemas do not promise.
 */
export function toOpenAIChatTools(tools: readonly ToolDescriptor[]): OpenAIChatTool[] {
  return named(tools).map(({ d, name }) => ({ type: 'function', function: { name, description: describe(d), parameters: objectSchema(d.inputSchema), strict: false } }));
}

export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** OpenAI Responses API function tools (flat: name and parameters beside `type`). */
export function toOpenAIResponsesTools(tools: readonly ToolDescriptor[]): OpenAIResponsesTool[] {
  return named(tools).map(({ d, name }) => ({ type: 'function', name, description: describe(d), parameters: objectSchema(d.inputSchema), strict: false }));
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown> & { type: 'object' };
}

/** Anthropic Messages `tools`. */
export function toAnthropicTools(tools: readonly ToolDescriptor[]): AnthropicTool[] {
  return named(tools).map(({ d, name }) => ({ name, description: describe(d), input_schema: objectSchema(d.inputSchema) }));
}

export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** JSON Schema as is (Gemini's `parametersJsonSchema`; its `parameters` field takes an OpenAPI subset instead). */
  parametersJsonSchema: Record<string, unknown>;
}

/** Gemini `tools: [{ functionDeclarations }]`: one Tool holding every declaration. */
export function toGeminiTools(tools: readonly ToolDescriptor[]): Array<{ functionDeclarations: GeminiFunctionDeclaration[] }> {
  return [{ functionDeclarations: named(tools).map(({ d, name }) => ({ name, description: describe(d), parametersJsonSchema: objectSchema(d.inputSchema) })) }];
}

/**
 * Vercel AI SDK tools (`tool({ description, inputSchema: jsonSchema(...) })`), keyed by function name. The SDK's own
 * `tool` and `jsonSchema` are passed in, so the client does not depend on the SDK (and works with the version the
 * application has). `execute`, when given, runs a call: typically `(toolId, input) => client.callTool(toolId, input)`.
 */
export function toAiSdkTools<TTool>(
  tools: readonly ToolDescriptor[],
  // `never` parameters: any `tool`/`jsonSchema` fits, whatever its overloads (the SDK's `tool` has four, and TypeScript
  // infers an overloaded argument from its last one). What is passed to them is the SDK's documented shape.
  ai: { tool: (def: never) => TTool; jsonSchema: (schema: never) => unknown },
  execute?: (toolId: string, input: Record<string, unknown>) => Promise<unknown>,
): Record<string, TTool> {
  const out: Record<string, TTool> = {};
  for (const { d, name } of named(tools)) {
    const def = {
      description: describe(d),
      inputSchema: ai.jsonSchema(objectSchema(d.inputSchema) as never),
      ...(execute ? { execute: (input: unknown) => execute(d.toolId, (input ?? {}) as Record<string, unknown>) } : {}),
    };
    out[name] = ai.tool(def as never);
  }
  return out;
}

export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  outputSchema?: Record<string, unknown> & { type: 'object' };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean; title?: string };
  _meta?: Record<string, unknown>;
}

/**
 * The name of a tool in MCP (`[A-Za-z0-9_.-]`, at most 128): the toolId itself when it is one and holds no `___`;
 * otherwise the hashed function name, which always holds `___`, so the two never meet.
 */
export function mcpToolName(toolId: string): string {
  return /^[A-Za-z0-9_.-]{1,128}$/.test(toolId) && !toolId.includes('___') ? toolId : clientFunctionName(toolId);
}

/** MCP `Tool`s (tools/list), with the host-derived hints as annotations and the toolId in `_meta`. */
export function toMcpTools(tools: readonly ToolDescriptor[]): McpTool[] {
  return tools.map((d) => ({
    name: mcpToolName(d.toolId),
    ...(d.title !== undefined ? { title: d.title } : {}),
    description: describe(d),
    inputSchema: objectSchema(d.inputSchema),
    ...(d.outputSchema !== undefined ? { outputSchema: objectSchema(d.outputSchema) } : {}),
    ...(d.annotations ? { annotations: pickHints(d.annotations) } : {}),
    _meta: { 'dev.toolcat/toolId': d.toolId },
  }));
}

/** The toolId behind an MCP tools/call name from this list. */
export function toolIdForMcpName(tools: readonly ToolDescriptor[], name: string): string | undefined {
  return tools.find((d) => mcpToolName(d.toolId) === name)?.toolId;
}

function pickHints(a: NonNullable<ToolDescriptor['annotations']>): NonNullable<McpTool['annotations']> {
  const out: NonNullable<McpTool['annotations']> = {};
  for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) if (typeof a[k] === 'boolean') out[k] = a[k];
  return out;
}
