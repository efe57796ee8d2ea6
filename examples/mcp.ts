/**
 * An agent loop for a model host that speaks MCP tool shapes (issue 17): toMcpTools gives the tools/list entries, a
 * tools/call name maps back with toolIdForMcpName, and the call goes through toolcat's REST calls endpoint.
 */
import type { CallToolRequest, Tool } from '@modelcontextprotocol/sdk/types.js';
import { createToolcatClient, toMcpTools, toolIdForMcpName } from '../src/client';
import { type ExampleOptions, decide, resultText, runFromCli } from './scripted-model';

export async function run({ baseUrl, token, task }: ExampleOptions): Promise<string> {
  const client = createToolcatClient({ baseUrl, token });
  const { tools } = await client.listTools({ view: 'compact' });
  const offered: Tool[] = toMcpTools(tools);
  const seen: string[] = [];
  for (let turn = 0; turn < 4; turn++) {
    const d = decide(task, offered, seen);
    if (d.kind === 'answer') return d.text;
    const request: CallToolRequest = { method: 'tools/call', params: { name: d.name, arguments: d.arguments } };
    const toolId = toolIdForMcpName(tools, request.params.name);
    seen.push(toolId ? resultText((await client.callTool(toolId, request.params.arguments ?? {})).content) : `Unknown tool ${request.params.name}`);
  }
  throw new Error('The model did not finish.');
}

if (require.main === module) runFromCli(run);
