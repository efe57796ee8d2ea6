/**
 * The Vercel AI SDK's own agent loop (generateText with tools and stopWhen) over toolcat (issue 17). The model is the
 * SDK's MockLanguageModelV2 driven by the scripted stand-in; the tools' execute calls toolcat through the client.
 */
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV2 } from 'ai/test';
import { createToolcatClient, toAiSdkTools } from '../src/client';
import { type ExampleOptions, decide, resultText, runFromCli } from './scripted-model';

export async function run({ baseUrl, token, task }: ExampleOptions): Promise<string> {
  const client = createToolcatClient({ baseUrl, token });
  const { tools } = await client.listTools({ view: 'compact', profile: 'openai' });
  const toolSet = toAiSdkTools(tools, { tool, jsonSchema }, async (toolId, input) => resultText((await client.callTool(toolId, input)).content));
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const model = new MockLanguageModelV2({
    doGenerate: async (options) => {
      const offered = (options.tools ?? []).flatMap((t) => (t.type === 'function' ? [{ name: t.name, description: t.description }] : []));
      const seen = options.prompt.flatMap((m) => (m.role === 'tool' ? m.content.map((p) => (p.output.type === 'text' || p.output.type === 'json' ? String(typeof p.output.value === 'string' ? p.output.value : JSON.stringify(p.output.value)) : '')) : []));
      const d = decide(task, offered, seen);
      if (d.kind === 'answer') return { content: [{ type: 'text', text: d.text }], finishReason: 'stop', usage, warnings: [] };
      return { content: [{ type: 'tool-call', toolCallId: `call_${seen.length}`, toolName: d.name, input: JSON.stringify(d.arguments) }], finishReason: 'tool-calls', usage, warnings: [] };
    },
  });
  const result = await generateText({ model, tools: toolSet, prompt: task.prompt, stopWhen: stepCountIs(4) });
  return result.text;
}

if (require.main === module) runFromCli(run);
