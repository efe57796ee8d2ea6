import { unescapeToolName } from '../sources/mcp-tool-id';
import type { CallTarget } from './upstream';

/**
 * Where a toolId's calls go (issue 14): `mcp.<source>.<escaped name>` to that source's tool of that name (the id
 * scheme is injective, README "Tool ids"), `ext.<name>` to the host extension's implementation.
 */
export function targetOf(toolId: string): CallTarget {
  if (toolId.startsWith('mcp.')) {
    const rest = toolId.slice(4);
    const dot = rest.indexOf('.');
    return { kind: 'mcp', source: rest.slice(0, dot), tool: unescapeToolName(rest.slice(dot + 1)) };
  }
  return { kind: 'extension', toolId, name: toolId.slice('ext.'.length) };
}
