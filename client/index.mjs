// The ESM entry of toolcat/client: the CommonJS build (dist/src/client), re-exported by name so that
// `import { createToolcatClient } from 'toolcat/client'` works; test/client/package-export.test.ts checks that these
// names are exactly the CommonJS module's.
import cjs from '../dist/src/client/index.js';

export const {
  ToolcatClient, createToolcatClient,
  ToolcatError, UnauthorizedError, NotFoundError, RateLimitedError, UnavailableError, ProtocolError, CallFailedError,
  clientFunctionName, functionNameIndex, functionNameOf, mcpToolName, toolIdForFunctionCall, toolIdForMcpName,
  toAiSdkTools, toAnthropicTools, toGeminiTools, toMcpTools, toOpenAIChatTools, toOpenAIResponsesTools,
} = cjs;
