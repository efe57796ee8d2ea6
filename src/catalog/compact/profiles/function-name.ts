/**
 * Provider-safe function names (issue 16 §2). A toolId (`mcp.github.create_issue`, tool-id.ts: [A-Za-z0-9._~-],
 * up to 200 characters) is not a valid OpenAI/Anthropic function name (`^[a-zA-Z0-9_-]{1,64}$`), and not always a
 * valid Gemini one (`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`). The name is a pure function of (profile, toolId), so it is
 * stable; it is readable where it can be, and reversible against the caller's list.
 *
 *   readable form  gemini: the toolId itself; openai/anthropic: every `.` written as `__` (`mcp__github__create_issue`,
 *                  the convention agents already know from Claude Code). Used when the toolId starts with a letter,
 *                  fits in 64 characters, and (openai/anthropic) has no `~`, `__`, or `_` next to a `.` (gemini:
 *                  no `~`). On that domain the form is injective: a run of two underscores is a dot, one is itself.
 *                  No readable form contains `___`.
 *   hashed form    anything else: a readable prefix, `___`, and 10 base32 characters of SHA-256(toolId) (50 bits).
 *                  Every hashed form contains `___`, so it never equals a readable form; two hashed forms meet only
 *                  on a 50-bit collision, which toolIdForFunctionName() refuses (null) rather than guess.
 */
import { createHash } from 'node:crypto';
import type { ProfileName } from './rule-table';

const MAX = 64;
const HASH_CHARS = 10;
const MARK = '___';
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function hashOf(toolId: string): string {
  const bytes = createHash('sha256').update(toolId).digest();
  let bits = 0;
  let acc = 0;
  let out = '';
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < HASH_CHARS) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length >= HASH_CHARS) break;
  }
  return out;
}

function readable(profile: ProfileName, toolId: string): string | undefined {
  if (toolId.length === 0 || !/^[A-Za-z]/.test(toolId) || toolId.includes('~') || toolId.includes(MARK)) return undefined;
  if (profile === 'gemini') return toolId.length <= MAX && /^[A-Za-z0-9_.-]+$/.test(toolId) ? toolId : undefined;
  if (!/^[A-Za-z0-9._-]+$/.test(toolId) || toolId.includes('__') || toolId.includes('._') || toolId.includes('_.') || toolId.includes('..')) return undefined;
  const name = toolId.replace(/\./g, '__');
  return name.length <= MAX ? name : undefined;
}

/** The function name of `toolId` under `profile`: valid for the provider, stable, readable where possible. */
export function functionNameFor(profile: ProfileName, toolId: string): string {
  const plain = readable(profile, toolId);
  if (plain !== undefined) return plain;
  const keep = profile === 'gemini' ? /[^A-Za-z0-9_.-]/g : /[^A-Za-z0-9_-]/g;
  let prefix = toolId.replace(profile === 'gemini' ? /~/g : /[.~]/g, '_').replace(keep, '_');
  if (!/^[A-Za-z]/.test(prefix)) prefix = `t_${prefix}`;
  return `${prefix.slice(0, MAX - MARK.length - HASH_CHARS)}${MARK}${hashOf(toolId)}`;
}

/** The readable form's inverse (openai/anthropic: `__` is a dot), or undefined for a hashed name. */
function decode(profile: ProfileName, name: string): string | undefined {
  if (name.includes(MARK)) return undefined;
  return profile === 'gemini' ? name : name.replace(/__/g, '.');
}

/**
 * The toolId a model called by `name`, among `candidates` (the caller's visible toolIds, e.g. the list it was
 * served), or null when no candidate has that name, or more than one has (a hash collision: refuse, never guess).
 * Pure; O(1) for a readable name whose toolId is a candidate, else one hash per candidate.
 */
export function toolIdForFunctionName(profile: ProfileName, name: string, candidates: Iterable<string>): string | null {
  const pool = candidates instanceof Set ? (candidates as ReadonlySet<string>) : new Set(candidates);
  const direct = decode(profile, name);
  if (direct !== undefined && pool.has(direct) && functionNameFor(profile, direct) === name) return direct;
  let found: string | null = null;
  for (const id of pool) {
    if (functionNameFor(profile, id) !== name) continue;
    if (found !== null) return null;
    found = id;
  }
  return found;
}
