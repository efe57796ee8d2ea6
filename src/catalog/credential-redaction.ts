import { nameRank, referencedNames, strongest } from './credential-names';
import type { JsonObject } from './descriptor';
import { containsCredential, isPlaceholderValue, isSecretLikeLiteral, looksRandom, redactCredentials } from './credentials';

/**
 * Redaction of JSON values that leave the process for people: admin GraphQL fields (an upstream tool's raw
 * listing and claims), audit rows and log lines (issue 11, defect 3). The detector is src/catalog/credentials.ts;
 * this walks a value with it, so every string (and every property name) is judged on its own, and a literal under
 * a secret-like property name (`password`, `apiKey`, …) goes even when it has no credential shape. The name is the
 * strongest secret-like one among ALL the keys above a value, not only its own (red team F5): `apiKeys: ["…"]`,
 * `auth: { password: { value: "…" } }` and an upstream schema's `properties.password.default` all go. Below such a
 * name, the words a JSON Schema uses to describe a value (`type`, `format`, `description`, `title`, `$ref`, …) are
 * not literals: they go only when random-looking, so `password: { type: "string", description: "The account
 * password" }` stays readable. Inside an `inputSchema`/`outputSchema` a node a secret-like property refers to
 * (`password: { $ref: "#/$defs/pw" }`) is judged by that name too (the gate's reference pre-pass,
 * credential-names.ts).
 *
 * Command lines (`redactArgs`, red team F4) are redacted argument by argument, and the argument after a flag whose
 * name is secret-like goes whole.
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

/** Keys whose string values describe a schema rather than hold a value (see the header). */
const DESCRIBING_KEYS = new Set(['type', 'format', 'description', 'title', '$comment', '$ref', '$schema', '$id', 'contentMediaType', 'contentEncoding', 'pattern']);

/** A literal that goes because of the secret-like name above it (`name`: the strongest such name, or null). */
function isNamedSecret(name: string | null, key: string | null, v: string | number): boolean {
  if (name === null) return false;
  if (key !== null && DESCRIBING_KEYS.has(key)) return typeof v === 'string' && looksRandom(v.trim());
  return isSecretLikeLiteral(name, v);
}

const under = (name: string | null, key: string) => (nameRank(key) > 0 ? strongest(name, key) : name);

interface Scan {
  named: boolean;
  tooDeep: boolean;
  /** Schema nodes that a secret-like property refers to, with its name. */
  readonly referenced: WeakMap<object, string>;
}
interface State {
  i: number;
  changed: boolean;
  readonly referenced: WeakMap<object, string>;
}

const SCHEMA_KEYS = new Set(['inputSchema', 'outputSchema']);

/** Records the nodes of `schema` that secret-like names reach through references. */
function noteReferences(schema: JsonObject, into: WeakMap<object, string>): void {
  for (const [pointer, name] of referencedNames(schema)) {
    let node: unknown = schema;
    for (const token of pointer === '' ? [] : pointer.slice(1).split('/')) {
      const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
      node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    }
    if (node !== null && typeof node === 'object') into.set(node, name);
  }
}

/** A copy of `value` without credentials, or `value` itself (same reference) when it holds none. */
export function redactJson<T>(value: T): RedactedJson<T> {
  const texts: string[] = [];
  const scan: Scan = { named: false, tooDeep: false, referenced: new WeakMap() };
  collect(value, null, null, 0, texts, scan);
  const joined = texts.join('\n');
  if (!scan.named && !scan.tooDeep && !containsCredential(joined)) return { value, redacted: false };
  const parts = redactedParts(texts, joined);
  const state: State = { i: 0, changed: false, referenced: scan.referenced };
  const out = rebuild(value, null, null, 0, parts, state) as T;
  return { value: out, redacted: state.changed };
}

/** What JSON.stringify would write for `v` (a Date becomes its ISO string), so the walk sees the same data. */
function asJson(v: unknown): unknown {
  return v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function' ? (v as { toJSON(): unknown }).toJSON() : v;
}

function collect(raw: unknown, inherited: string | null, key: string | null, depth: number, texts: string[], scan: Scan): void {
  const v = asJson(raw);
  if (depth > MAX_DEPTH) {
    scan.tooDeep = true;
    return;
  }
  if (key !== null && SCHEMA_KEYS.has(key) && v !== null && typeof v === 'object' && !Array.isArray(v)) noteReferences(v as JsonObject, scan.referenced);
  const name = v !== null && typeof v === 'object' ? strongest(inherited, scan.referenced.get(v) ?? null) : inherited;
  if (typeof v === 'string') {
    texts.push(v);
    if (isNamedSecret(name, key, v)) scan.named = true;
  } else if (typeof v === 'number') {
    if (isNamedSecret(name, key, v)) scan.named = true;
  } else if (Array.isArray(v)) {
    for (const x of v) collect(x, name, key, depth + 1, texts, scan);
  } else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      texts.push(k);
      collect(x, under(name, k), k, depth + 1, texts, scan);
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

function rebuild(raw: unknown, inherited: string | null, key: string | null, depth: number, parts: readonly string[], state: State): unknown {
  const v = asJson(raw);
  if (depth > MAX_DEPTH) {
    state.changed = true;
    return REDACTED;
  }
  const name = v !== null && typeof v === 'object' ? strongest(inherited, state.referenced.get(v) ?? null) : inherited;
  if (typeof v === 'string') {
    const part = parts[state.i++];
    const out = isNamedSecret(name, key, v) ? REDACTED : part;
    if (out !== v) state.changed = true;
    return out;
  }
  if (typeof v === 'number') {
    if (isNamedSecret(name, key, v)) {
      state.changed = true;
      return REDACTED;
    }
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => rebuild(x, name, key, depth + 1, parts, state));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      let shown = parts[state.i++];
      if (shown !== k) state.changed = true;
      // Two names redacted alike must not overwrite each other.
      for (let n = 2; Object.hasOwn(out, shown); n++) shown = `${parts[state.i - 1]} #${n}`;
      // defineProperty: a listed "__proto__" key stays data, never a prototype.
      Object.defineProperty(out, shown, { value: rebuild(x, under(name, k), k, depth + 1, parts, state), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return v;
}

// ---- command lines ------------------------------------------------------------------------------------------
const FLAG = /^-{1,2}([A-Za-z][A-Za-z0-9_.-]*)$/;
const NAMED_ARG = /^(-{0,2})([A-Za-z_][A-Za-z0-9_.-]*)=([\s\S]*)$/;
const LOOKS_LIKE_FLAG = /^--?[A-Za-z]/;

/**
 * A command line's arguments for display (a source's `args`, audit rows): each argument redacted on its own, and
 * by name —
 *   - `--name=value`, `-name=value` and `NAME=value` (`-e API_KEY=…`): the value goes when the name is secret-like
 *     and the value is a non-trivial literal (as for JSON, credential-shape.ts);
 *   - `--name value`: the argument after a flag whose name is secret-like (`--password`, `--api-key`, `--token`,
 *     `--client-secret`, `-password`) goes whole, unless it is a placeholder (`${TOKEN}`) or itself a flag.
 * Decision: single-letter flags are never judged by name. `-p` is a port for ssh, psql, docker and most servers
 * (and MySQL's `-p` takes its password glued, `-pSECRET`, which the detector judges like any other text), so
 * `-p 5432` stays; a secret passed after a short flag is still redacted when it has a credential's shape.
 */
export function redactArgs(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const named = NAMED_ARG.exec(a);
    if (named && nameRank(named[2]) > 0 && isSecretLikeLiteral(named[2], named[3])) {
      out.push(`${named[1]}${named[2]}=${REDACTED}`);
      continue;
    }
    out.push(redactCredentials(a));
    const flag = FLAG.exec(a);
    if (flag && flag[1].length > 1 && nameRank(flag[1]) > 0 && i + 1 < args.length) {
      const value = args[i + 1];
      if (!LOOKS_LIKE_FLAG.test(value) && !isPlaceholderValue(value)) {
        out.push(REDACTED);
        i++;
      }
    }
  }
  return out;
}
