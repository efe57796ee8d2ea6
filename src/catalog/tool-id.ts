/**
 * toolId scheme (TC-DESC-1/2; documented in README "Tool ids"). A toolId only uses RFC 3986 unreserved
 * characters, so it never needs percent-encoding in `/tools/{toolId}` and reads the same in logs and URLs.
 *   host extension:  ext.<name>
 *   MCP tool:        mcp.<source>.<escaped tool name>
 * The id is a pure function of where the tool comes from and its name, so it is stable across restarts,
 * re-syncs and re-ordering of a source (TC-DESC-2).
 */
export const TOOL_ID_MAX_LENGTH = 200;
export const TOOL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;
export const EXTENSION_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

export function isValidToolId(id: unknown): id is string {
  return typeof id === 'string' && id.length <= TOOL_ID_MAX_LENGTH && TOOL_ID_PATTERN.test(id);
}

export function hostExtensionToolId(name: string): string {
  return `ext.${name}`;
}

/** Grant patterns: toolId characters plus `*` (any run of characters, dots included). */
export const TOOL_PATTERN_PATTERN = /^[A-Za-z0-9._~*-]{1,200}$/;

export function isValidToolPattern(p: unknown): p is string {
  return typeof p === 'string' && TOOL_PATTERN_PATTERN.test(p);
}

/** In-memory twin of the SQL LIKE used by the repository (kept for the domain's own checks and tests). */
export function toolPatternMatches(pattern: string, toolId: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
  return re.test(toolId);
}

/** Translates a grant pattern into a LIKE pattern with `\` as the escape character. */
export function toolPatternToLike(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
