import { containsCredential, isSecretLikeLiteral, redactCredentials } from './credentials';

/**
 * Redaction of JSON values that leave the process for people: admin GraphQL fields (an upstream tool's raw
 * listing and claims), audit rows and log lines (issue 11, defect 3). The detector is src/catalog/credentials.ts;
 * this walks a value with it, so every string (and every property name) is judged on its own, and a literal under
 * a secret-like property name (`password`, `apiKey`, …) goes even when it has no credential shape.
 *
 * Cost: one detector pass over all strings of the value, joined; only a value that holds something is copied.
 */
export const REDACTED = '[redacted]';

/** Deeper than this, a subtree is not walked: it is replaced whole (fail closed; no stack overflow on hostile input). */
const MAX_DEPTH = 256;

export interface RedactedJson<T = unknown> {
  readonly value: T;
  /** true when anything was replaced (admins then know the raw value differs, see revealUpstreamTool). */
  readonly redacted: boolean;
}

/** `s` with every credential-shaped run replaced by `[redacted]`; null stays null. */
export function redactText<T extends string | null | undefined>(s: T): T {
  return (typeof s === 'string' ? redactCredentials(s) : s) as T;
}

/** A copy of `value` without credentials, or `value` itself (same reference) when it holds none. */
export function redactJson<T>(value: T): RedactedJson<T> {
  const texts: string[] = [];
  const scan = { named: false, tooDeep: false };
  collect(value, null, 0, texts, scan);
  const joined = texts.join('\n');
  if (!scan.named && !scan.tooDeep && !containsCredential(joined)) return { value, redacted: false };
  const parts = redactedParts(texts, joined);
  const state = { i: 0, changed: false };
  const out = rebuild(value, null, 0, parts, state) as T;
  return { value: out, redacted: state.changed };
}

/** What JSON.stringify would write for `v` (a Date becomes its ISO string), so the walk sees the same data. */
function asJson(v: unknown): unknown {
  return v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v;
}

function collect(raw: unknown, key: string | null, depth: number, texts: string[], scan: { named: boolean; tooDeep: boolean }): void {
  const v = asJson(raw);
  if (depth > MAX_DEPTH) {
    scan.tooDeep = true;
    return;
  }
  if (typeof v === 'string') {
    texts.push(v);
    if (key !== null && isSecretLikeLiteral(key, v)) scan.named = true;
  } else if (typeof v === 'number') {
    if (key !== null && isSecretLikeLiteral(key, v)) scan.named = true;
  } else if (Array.isArray(v)) {
    for (const x of v) collect(x, null, depth + 1, texts, scan);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      texts.push(k);
      collect(x, k, depth + 1, texts, scan);
    }
  }
}

/**
 * The redacted form of each text, in order. One detector run over the joined texts; when a redaction crossed a
 * separator (or a text holds one) the texts are redacted one by one instead, so each keeps its own result.
 */
function redactedParts(texts: readonly string[], joined: string): string[] {
  if (!texts.some((t) => t.includes('\n'))) {
    const parts = redactCredentials(joined).split('\n');
    if (parts.length === texts.length) return parts;
  }
  return texts.map((t) => redactCredentials(t));
}

function rebuild(raw: unknown, key: string | null, depth: number, parts: readonly string[], state: { i: number; changed: boolean }): unknown {
  const v = asJson(raw);
  if (depth > MAX_DEPTH) {
    state.changed = true;
    return REDACTED;
  }
  if (typeof v === 'string') {
    const part = parts[state.i++];
    const out = key !== null && isSecretLikeLiteral(key, v) ? REDACTED : part;
    if (out !== v) state.changed = true;
    return out;
  }
  if (typeof v === 'number') {
    if (key !== null && isSecretLikeLiteral(key, v)) {
      state.changed = true;
      return REDACTED;
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => rebuild(x, null, depth + 1, parts, state));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      let name = parts[state.i++];
      if (name !== k) state.changed = true;
      // Two names redacted alike must not overwrite each other.
      for (let n = 2; Object.hasOwn(out, name); n++) name = `${parts[state.i - 1]} #${n}`;
      // defineProperty: a listed "__proto__" key stays data, never a prototype.
      Object.defineProperty(out, name, { value: rebuild(x, k, depth + 1, parts, state), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}
