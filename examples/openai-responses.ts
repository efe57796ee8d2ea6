/** An agent loop on the OpenAI Responses API (issue 17): function_call items out, function_call_output items back. */
import type { FunctionTool, ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { createToolcatClient, toOpenAIResponsesTools, toolIdForFunctionCall } from '../src/client';
import { type ExampleOptions, decide, resultText, runFromCli } from './scripted-model';

export async function run({ baseUrl, token, task }: ExampleOptions): Promise<string> {
  const client = createToolcatClient({ baseUrl, token });
  const { tools } = await client.listTools({ view: 'compact', profile: 'openai' });
  const offered: FunctionTool[] = toOpenAIResponsesTools(tools);
  const input: ResponseInputItem[] = [{ role: 'user', content: task.prompt }];
  for (let turn = 0; turn < 4; turn++) {
    // A real loop calls openai.responses.create({ model, input, tools: offered }) and reads response.output.
    const seen = input.flatMap((i) => (i.type === 'function_call_output' ? [String(i.output)] : []));
    const d = decide(task, offered.map((t) => ({ name: t.name, description: t.description ?? undefined })), seen);
    if (d.kind === 'answer') return d.text;
    const call: ResponseFunctionToolCall = { type: 'function_call', call_id: `call_${turn}`, name: d.name, arguments: JSON.stringify(d.arguments) };
    input.push(call);
    const toolId = toolIdForFunctionCall(tools, call.name);
    const output = toolId ? resultText((await client.callTool(toolId, JSON.parse(call.arguments) as Record<string, unknown>)).content) : `Unknown tool ${call.name}`;
    input.push({ type: 'function_call_output', call_id: call.call_id, output });
  }
  throw new Error('The model did not finish.');
}

if (require.main === module) runFromCli(run);
