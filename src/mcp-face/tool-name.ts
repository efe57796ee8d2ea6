import { sha256Bytes } from '../shared/sha256';

/**
 * MCP tool names (issue 15 item 2). MCP allows only `A-Z a-z 0-9 _ - .` and 1 to 128 characters in a tool name
 * (SEP-986, spec 2025-11-25 "Tool names"); a toolId (src/catalog/tool-id.ts) may also hold `~` (the escape of
 * characters MCP servers use in their own names) and be up to 200 characters long. The mapping is:
 *
 *   1. identity      a toolId that already is a valid MCP name (no `~`, at most 128 characters): the vast majority;
 *   2. escaped       `_` + the toolId with `_` written `__` and `~` written `_-`, when that fits in 128 characters;
 *   3. hashed        `_.` + a readable prefix + `.` + 26 base32 characters of SHA-256(toolId), for the rest.
 *
 * Injective: toolIds start with a letter or digit, so (1) never starts with `_`; (2) starts with `_` and then a letter
 * or digit (the toolId's first character); (3) starts with `_.`. Within (2) decoding is unambiguous (a lone `_` is
 * always an escape); within (3) two ids share a name only if 130 bits of SHA-256 collide. Stable: a pure function of
 * the toolId. Reversible: (1) and (2) decode without any state; (3) is looked up among the caller's own visible tools
 * (the list the name was handed out in), so a hashed name never resolves to a tool the caller cannot see.
 */
const MCP_NAME_MAX = 128;
const MCP_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const HASH_CHARS = 26;
const READABLE_CHARS = MCP_NAME_MAX - 2 - 1 - HASH_CHARS;

export function isMcpToolName(s: string): boolean {
  return MCP_NAME.test(s);
}

export function mcpNameOf(toolId: string): string {
  if (toolId.length <= MCP_NAME_MAX && !toolId.includes('~') && isMcpToolName(toolId)) return toolId;
  return escapedNameOf(toolId);
}

/** Forms (2) or (3) whatever the toolId: always starts with `_`, still injective (resolved by lookup only). */
export function escapedNameOf(toolId: string): string {
  const escaped = `_${toolId.replace(/[_~]/g, (c) => (c === '_' ? '__' : '_-'))}`;
  if (escaped.length <= MCP_NAME_MAX && isMcpToolName(escaped)) return escaped;
  const readable = toolId.slice(0, READABLE_CHARS).replace(/[^A-Za-z0-9_.-]/g, '-');
  return `_.${readable}.${base32(sha256Bytes(toolId)).slice(0, HASH_CHARS)}`;
}

/**
 * The toolId a name stands for: decoded for forms (1) and (2); for (3), the one of `candidates` (the caller's
 * visible toolIds) whose name it is. null when the name is not one this mapping hands out.
 */
export function toolIdOfMcpName(name: string, candidates: () => Iterable<string>): string | null {
  if (!isMcpToolName(name)) return null;
  if (!name.startsWith('_')) return name;
  if (name.startsWith('_.')) {
    for (const id of candidates()) if (mcpNameOf(id) === name) return id;
    return null;
  }
  let out = '';
  for (let i = 1; i < name.length; i++) {
    const c = name[i];
    if (c !== '_') {
      out += c;
      continue;
    }
    const next = name[++i];
    if (next === '_') out += '_';
    else if (next === '-') out += '~';
    else return null;
  }
  // Only names this mapping produces decode: an escaped form of an id that did not need escaping is not one.
  return mcpNameOf(out) === name ? out : null;
}

/** Whether resolving `name` needs the caller's visible ids (the hashed form). */
export function needsCandidates(name: string): boolean {
  return name.startsWith('_.');
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}
