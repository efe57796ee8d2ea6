import { TOOL_ID_MAX_LENGTH } from '../catalog/tool-id';

/**
 * toolIds of MCP tools (TC-DESC-1/2; README "Tool ids"): `mcp.<source>.<escaped name>`.
 *   - Source names are `[a-z0-9][a-z0-9-]{0,31}`: no dot, so the source part always ends at the second dot and
 *     two sources can never produce the same id.
 *   - The tool name keeps A-Z a-z 0-9 _ . - as they are; every other character is written as `~XX` per UTF-8
 *     byte (uppercase hex). `~` itself is escaped, so the mapping is injective (distinct names, distinct ids)
 *     and reversible, and the id stays within RFC 3986 unreserved characters.
 *   - A name that is empty, or whose id would exceed 200 characters, cannot form a toolId: the tool is
 *     quarantined with that reason, never truncated (truncation could collide).
 * The id depends on nothing but the source name and the tool name: not on list order, time or run.
 */
export const SOURCE_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

export function escapeToolName(name: string): string {
  let out = '';
  for (const byte of Buffer.from(name, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.-]/.test(c) && byte < 0x80 ? c : `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function unescapeToolName(escaped: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < escaped.length; i++) {
    if (escaped[i] === '~') {
      bytes.push(parseInt(escaped.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(escaped.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The toolId, or null when the name cannot form one (the caller quarantines the tool). */
export function mcpToolId(sourceName: string, toolName: string): string | null {
  if (toolName.length === 0 || toolName.length > TOOL_ID_MAX_LENGTH) return null;
  const id = `mcp.${sourceName}.${escapeToolName(toolName)}`;
  return id.length <= TOOL_ID_MAX_LENGTH ? id : null;
}
