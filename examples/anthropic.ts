/** An agent loop on Anthropic Messages (issue 17): tool_use blocks out, tool_result blocks back. */
import type Anthropic from '@anthropic-ai/sdk';
import { createToolcatClient, toAnthropicTools, toolIdForFunctionCall } from '../src/client';
import { type ExampleOptions, decide, resultText, runFromCli } from './scripted-model';

export async function run({ baseUrl, token, task }: ExampleOptions): Promise<string> {
  const client = createToolcatClient({ baseUrl, token });
  const { tools } = await client.listTools({ view: 'compact', profile: 'anthropic' });
  const offered: Anthropic.Tool[] = toAnthropicTools(tools);
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: task.prompt }];
  const seen: string[] = [];
  for (let turn = 0; turn < 4; turn++) {
    // A real loop calls anthropic.messages.create({ model, max_tokens, messages, tools: offered }).
    const d = decide(task, offered, seen);
    if (d.kind === 'answer') return d.text;
    const use: Anthropic.ToolUseBlockParam = { type: 'tool_use', id: `toolu_${turn}`, name: d.name, input: d.arguments };
    messages.push({ role: 'assistant', content: [use] });
    const toolId = toolIdForFunctionCall(tools, use.name);
    const result = toolId ? await client.callTool(toolId, use.input as Record<string, unknown>) : null;
    const text = result ? resultText(result.content) : `Unknown tool ${use.name}`;
    seen.push(text);
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: text, is_error: result?.isError ?? true }] });
  }
  throw new Error('The model did not finish.');
}

if (require.main === module) runFromCli(run);
