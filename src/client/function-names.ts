import { sha256 } from './sha256';
import type { ToolDescriptor } from './types';

/**
 * Function names for model APIs. OpenAI, Anthropic and Gemini all accept `[A-Za-z_][A-Za-z0-9_-]{0,63}` (their common
 * subset: Gemini wants a letter or `_` first, everyone at most 64 characters), toolIds allow `.` and `~` and 200
 * characters. A descriptor's own `functionName` (served with a provider profile, `?profile=openai|anthropic|gemini`)
 * wins; otherwise the client maps the toolId, injectively:
 *
 * - readable: `.` becomes `__`, everything else stays, when the toolId has no `~`, no `__`, no `_` next to a `.`, no
 *   `..`, starts with a letter and the result fits 64 characters (`mcp.github.create_issue` → `mcp__github__create_issue`).
 *   On those toolIds the runs of `_` in the result are one (a `_` of the toolId) or two (a `.`) long, so the toolId
 *   can be read back: no two such toolIds map to one name.
 * - otherwise: up to 34 characters of the toolId's letters and digits, `___`, and 26 base32 characters of its SHA-256.
 *   A readable name never holds `___`, so the two forms never meet; two hashed names meet only on a SHA-256 collision.
 *
 * `toolIdForFunctionCall` maps a model's function call back through the list it was given, so server-given and
 * client-made names go back the same way.
 */
const PROVIDER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

export function clientFunctionName(toolId: string): string {
  const readable = toolId.replace(/\./g, '__');
  if (/^[A-Za-z]/.test(toolId) && !/[~]|__|_\.|\._|\.\./.test(toolId) && PROVIDER_NAME.test(readable)) return readable;
  const prefix = toolId.replace(/[^A-Za-z0-9]/g, '').slice(0, 34);
  return `${/^[A-Za-z]/.test(prefix) ? prefix : `t${prefix.slice(0, 33)}`}___${base32(sha256(toolId)).slice(0, 26)}`;
}

/** The name a model sees for this descriptor: the host's `functionName` when it gave one, else the client's mapping. */
export function functionNameOf(d: Pick<ToolDescriptor, 'toolId' | 'functionName'>): string {
  return typeof d.functionName === 'string' && d.functionName.length > 0 ? d.functionName : clientFunctionName(d.toolId);
}

/** Name → toolId for a list, refusing a list in which two tools would get one name (a host's profile gone wrong). */
export function functionNameIndex(tools: readonly Pick<ToolDescriptor, 'toolId' | 'functionName'>[]): Map<string, string> {
  const index = new Map<string, string>();
  for (const t of tools) {
    const name = functionNameOf(t);
    const other = index.get(name);
    if (other !== undefined && other !== t.toolId) throw new Error(`Two tools would be offered to the model as "${name}": ${other} and ${t.toolId}.`);
    index.set(name, t.toolId);
  }
  return index;
}

/** The toolId behind a function call a model made from this list, or undefined when the name is not one of them. */
export function toolIdForFunctionCall(tools: readonly Pick<ToolDescriptor, 'toolId' | 'functionName'>[], name: string): string | undefined {
  return functionNameIndex(tools).get(name);
}

function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}
