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
const TOOL_PATTERN_PATTERN = /^[A-Za-z0-9._~*-]{1,200}$/;

export function isValidToolPattern(p: unknown): p is string {
  return typeof p === 'string' && TOOL_PATTERN_PATTERN.test(p);
}

/** In-memory twin of the SQL LIKE used by the repository (kept for the domain's own checks and tests). */
export function toolPatternMatches(pattern: string, toolId: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 's');
  return re.test(toolId);
}

/** The part of a grant pattern before its first `*`: every toolId the pattern matches starts with it. */
export function literalPrefix(pattern: string): string {
  const star = pattern.indexOf('*');
  return star < 0 ? pattern : pattern.slice(0, star);
}

/** Past this many distinct prefixes a tenant's grants are not worth turning into key ranges. */
export const MAX_PREFIX_RANGES = 64;

/**
 * Half-open key ranges [prefix, prefix + U+007F) covering every toolId that starts with one of the prefixes, in
 * byte order (toolIds are ASCII below U+007F, TOOL_ID_PATTERN). Prefixes covered by a shorter one are dropped.
 * null when the ranges would not narrow anything: an empty prefix (a grant starting with `*`) covers every id,
 * and too many ranges cost the database more than they save.
 */
export function prefixRanges(prefixes: readonly string[]): Array<[string, string]> | null {
  if (prefixes.some((x) => x === '')) return null;
  const sorted = [...new Set(prefixes)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const kept: string[] = [];
  for (const x of sorted) if (!kept.length || !x.startsWith(kept[kept.length - 1])) kept.push(x);
  if (kept.length > MAX_PREFIX_RANGES) return null;
  return kept.map((x) => [x, `${x}\u007f`]);
}

/** Translates a grant pattern into a LIKE pattern with `\` as the escape character. */
export function toolPatternToLike(pattern: string): string {
  return pattern.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
