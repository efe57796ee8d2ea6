/** An agent loop on Gemini (issue 17): functionCall parts out, functionResponse parts back. */
import type { Content, FunctionCall, Tool } from '@google/genai';
import { createToolcatClient, toGeminiTools, toolIdForFunctionCall } from '../src/client';
import { type ExampleOptions, decide, resultText, runFromCli } from './scripted-model';

export async function run({ baseUrl, token, task }: ExampleOptions): Promise<string> {
  const client = createToolcatClient({ baseUrl, token });
  const { tools } = await client.listTools({ view: 'compact', profile: 'gemini' });
  const offered: Tool[] = toGeminiTools(tools);
  const contents: Content[] = [{ role: 'user', parts: [{ text: task.prompt }] }];
  const seen: string[] = [];
  for (let turn = 0; turn < 4; turn++) {
    // A real loop calls ai.models.generateContent({ model, contents, config: { tools: offered } }).
    const d = decide(task, (offered[0].functionDeclarations ?? []).map((f) => ({ name: f.name ?? '', description: f.description })), seen);
    if (d.kind === 'answer') return d.text;
    const call: FunctionCall = { name: d.name, args: d.arguments };
    contents.push({ role: 'model', parts: [{ functionCall: call }] });
    const toolId = toolIdForFunctionCall(tools, call.name ?? '');
    const result = toolId ? await client.callTool(toolId, call.args ?? {}) : null;
    const text = result ? resultText(result.content) : `Unknown tool ${call.name}`;
    seen.push(text);
    contents.push({ role: 'user', parts: [{ functionResponse: { name: call.name, response: { output: text } } }] });
  }
  throw new Error('The model did not finish.');
}

if (require.main === module) runFromCli(run);
