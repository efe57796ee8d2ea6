/** An agent loop on OpenAI Chat Completions (issue 17): list → toOpenAIChatTools → model → toolIdForFunctionCall → callTool. */
import type { ChatCompletionAssistantMessageParam, ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { createToolcatClient, toOpenAIChatTools, toolIdForFunctionCall } from '../src/client';
import { type ExampleOptions, decide, resultText, runFromCli } from './scripted-model';

export async function run({ baseUrl, token, task }: ExampleOptions): Promise<string> {
  const client = createToolcatClient({ baseUrl, token });
  const { tools } = await client.listTools({ view: 'compact', profile: 'openai' });
  const offered = toOpenAIChatTools(tools) satisfies ChatCompletionFunctionTool[];
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: task.prompt }];
  for (let turn = 0; turn < 4; turn++) {
    // A real loop sends { model, messages, tools: offered } to client.chat.completions.create(); the stand-in answers.
    const seen = messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    const d = decide(task, offered.map((t) => t.function), seen);
    const reply: ChatCompletionAssistantMessageParam =
      d.kind === 'answer' ? { role: 'assistant', content: d.text } : { role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: d.name, arguments: JSON.stringify(d.arguments) } }] };
    messages.push(reply);
    if (!reply.tool_calls?.length) return String(reply.content);
    for (const call of reply.tool_calls) {
      if (call.type !== 'function') continue;
      const toolId = toolIdForFunctionCall(tools, call.function.name);
      const content = toolId ? resultText((await client.callTool(toolId, JSON.parse(call.function.arguments) as Record<string, unknown>)).content) : `Unknown tool ${call.function.name}`;
      messages.push({ role: 'tool', tool_call_id: call.id, content });
    }
  }
  throw new Error('The model did not finish.');
}

if (require.main === module) runFromCli(run);
