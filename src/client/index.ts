/**
 * `toolcat/client` (issue 17): a typed client of tool catalog v2 hosts, adapters from descriptors to model APIs' tool
 * formats, on fetch and nothing else. docs/client.md.
 */
export { ToolcatClient, createToolcatClient } from './client';
export type { CallOptions, CallOutcome, EventsOptions, ListOptions, RetryOptions, ToolList, ToolcatClientOptions } from './client';
export { CallFailedError, NotFoundError, ProtocolError, RateLimitedError, ToolcatError, UnauthorizedError, UnavailableError } from './errors';
export type { CallEvent, CallResult, Capabilities, CatalogChange, ContentBlock, PastCall, ReplayPolicy, SafetyTier, ToolAnnotations, ToolDescriptor, ToolSource } from './types';
export {
  clientFunctionName, functionNameIndex, functionNameOf, mcpToolName, toAiSdkTools, toAnthropicTools, toGeminiTools, toMcpTools,
  toOpenAIChatTools, toOpenAIResponsesTools, toolIdForFunctionCall, toolIdForMcpName,
} from './adapters';
export type { AnthropicTool, GeminiFunctionDeclaration, McpTool, OpenAIChatTool, OpenAIResponsesTool } from './adapters';
