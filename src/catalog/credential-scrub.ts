import { CatalogError, CatalogErrorCode } from './catalog.errors';
import { KEYWORD_KINDS, keywordKind } from './compact/keywords';
import {
  type NameContext, ROOT_CONTEXT, effectiveName, forEachLeaf, mapChildContext, nameRank, referencedNames, strongest, withReferenceName,
} from './credential-names';
import { containsCredential, findCredentialKinds, isPlaceholderValue, isSecretLikeConstraint, isSecretLikeLiteral, looksRandom, redactCredentials } from './credentials';
import type { JsonObject, JsonValue } from './descriptor';

/**
 * Removes credential material from an untrusted tool definition before it can become a descriptor
 * (TC-DESC-4). Schema positions are walked with THE keyword table the compactor uses
 * (compact/keywords.ts: subschema, map of subschemas — also draft-07 `dependencies` in schema form — array of
 * subschemas, or data), so the scrubber and the compactor can never disagree about what is a schema. Policy, per
 * place (every check sees the decoded views of credentials.ts):
 *   - prose (`description`, `title`, `$comment`): the credential run is replaced with `[redacted]`, and a text
 *     that is nothing but one random-looking word (it documents nothing; the compactor may join it to the text
 *     before it: red team F6) goes whole; under a secret-like name also every random-looking word and every occurrence of a literal the same node offers
 *     (its default, examples, const, enum, literal pattern, annotations), so `password: { title: "<pw>" }` and
 *     "Defaults to <pw>." go (the compact view turns a title into the description);
 *   - annotations, which validators ignore: `default`, `examples`, `example`, every vendor `x-*` keyword and every
 *     keyword this module does not know as JSON Schema (KNOWN_KEYWORDS: `placeholder`, `defaultValue`, …). The
 *     keyword is removed when it holds a credential, or when a string or number anywhere inside it (objects and
 *     arrays are walked to their leaves) is a non-trivial literal under a secret-like name — the property's, a key
 *     inside the value (`default: { apiKey: … }`), or the keyword's own for `x-*`/unknown ones (`x-api-key`);
 *   - anything that carries meaning (`const`, `enum`, `pattern`, `required`, property names, every other known
 *     keyword, the tool name): the tool is refused with INVARIANT_VIOLATION, since removing it would change what the
 *     schema accepts. Under a secret-like name a `const`/`enum` value (each leaf of it) and a literal `pattern` (no
 *     regex metacharacters once anchors and an outer group are stripped; each `|` alternative) also refuse the tool
 *     when isSecretLikeConstraint says so (any non-trivial literal under a password/key-like name, a random-looking
 *     one under a token/auth-like name), so `auth: { enum: ["none", "basic"] }` and
 *     `password: { pattern: "^(?=.*\\d).{12,}$" }` stay.
 * Which name a literal sits under is decided by credential-names.ts: `properties`, `patternProperties`,
 * `$defs`/`definitions` and secret-like `dependentSchemas`/`dependencies` keys, carried into the node's own
 * subschemas, and — a pre-pass over every `$ref` — the names of the places that refer to a node, so
 * `password: { $ref: "#/$defs/pw" }` removes `$defs.pw.default` from the standard view itself.
 * The compact view is scanned again as served (credential-compact-scan.ts), since it inlines and merges.
 * Every removal is reported as a finding (place and kind, never the value) for the caller to log.
 */
export interface CredentialFinding {
  readonly path: string;
  readonly kinds: readonly string[];
  readonly action: 'redacted' | 'removed';
}

const PROSE_KEYWORDS = new Set(['description', 'title', '$comment']);
const LITERAL_ANNOTATIONS = new Set(['default', 'examples', 'example']);

/**
 * JSON Schema keywords (2020-12, 2019-09, draft-07/-04, OpenAPI 3.0) besides those of the compactor's table: a
 * keyword outside both is an annotation no validator acts on (F2: `placeholder`, `defaultValue`).
 */
const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  ...Object.keys(KEYWORD_KINDS),
  '$schema', '$id', 'id', '$ref', '$dynamicRef', '$recursiveRef', '$anchor', '$dynamicAnchor', '$recursiveAnchor', '$vocabulary', '$comment',
  'type', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
  'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties',
  'format', 'contentEncoding', 'contentMediaType', 'title', 'description', 'deprecated', 'readOnly', 'writeOnly',
  'nullable', 'discriminator', 'xml', 'externalDocs',
]);

/** An annotation keyword whose own name judges its value (`x-api-key`, `apiKey` used as a keyword). */
const isNamingAnnotation = (key: string) => key.startsWith('x-') || !KNOWN_KEYWORDS.has(key);

export function scrubText(text: string, path: string, findings: CredentialFinding[]): string {
  const kinds = findCredentialKinds(text);
  if (kinds.length === 0) return text;
  findings.push({ path, kinds, action: 'redacted' });
  return redactCredentials(text);
}

interface Walk {
  readonly findings: CredentialFinding[];
  /** Pointer → the secret-like name that reaches it through a reference (credential-names.ts). */
  readonly refs: ReadonlyMap<string, string>;
  /** Length of the path prefix (`/inputSchema`): path.slice(prefix) is the node's pointer. */
  readonly prefix: number;
}

/** Returns a scrubbed deep copy of `schema`; throws CatalogError(INVARIANT_VIOLATION) to refuse the tool. */
export function scrubSchema(schema: JsonObject, path: string, findings: CredentialFinding[]): JsonObject {
  const walk: Walk = { findings, refs: referencedNames(schema), prefix: path.length };
  return scrubNode(schema, path, ROOT_CONTEXT, walk) as JsonObject;
}

function scrubNode(node: JsonValue, path: string, inherited: NameContext, w: Walk): JsonValue {
  if (!isPlainObject(node)) {
    refuseIfCredential(node, path);
    return node;
  }
  const ctx = w.refs.size ? withReferenceName(inherited, w.refs.get(path.slice(w.prefix))) : inherited;
  const name = effectiveName(ctx);
  const secret = nameRank(name) > 0 ? name : null;
  const literals = secret === null ? [] : nodeLiterals(node, secret);
  const out: JsonObject = Object.create(null);
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${escapePointer(key)}`;
    const sub = (v: JsonValue, p: string) => scrubNode(v, p, ctx, w);
    switch (keywordKind(key)) {
      case 'schema':
        out[key] = sub(value, at);
        break;
      case 'schemaOrArray':
      case 'schemaArray':
        if (Array.isArray(value)) out[key] = value.map((v, i) => sub(v, `${at}/${i}`));
        else if (keywordKind(key) === 'schemaOrArray') out[key] = sub(value, at);
        else out[key] = data(key, value, at);
        break;
      case 'schemaMap':
      case 'dependencies':
        out[key] = isPlainObject(value) ? scrubMap(key, value, at, ctx, w) : data(key, value, at);
        break;
      case 'data':
        if (PROSE_KEYWORDS.has(key) && typeof value === 'string') out[key] = scrubProse(value, at, secret, literals, w.findings);
        else if (LITERAL_ANNOTATIONS.has(key) || isNamingAnnotation(key)) {
          // An annotation keyword's name is part of it: one holding a credential goes with its value.
          const kinds = annotationKinds(key, value, secret);
          if (kinds.length) w.findings.push({ path: at, kinds, action: 'removed' });
          else out[key] = value;
        } else {
          if (secret !== null && (key === 'const' || key === 'enum')) refuseIfSecretConstraint(secret, key === 'enum' && Array.isArray(value) ? value : [value], at);
          if (secret !== null && key === 'pattern' && typeof value === 'string') refuseIfSecretConstraint(secret, patternLiterals(value) ?? [], at);
          out[key] = data(key, value, at);
        }
        break;
    }
  }
  // Rebuild as an ordinary object (key order kept) so JSON.stringify and deep-equal behave as usual.
  return { ...out };
}

/** A map of subschemas: each name is data (refused if it is a credential); `dependencies` arrays are name lists. */
function scrubMap(key: string, map: JsonObject, at: string, ctx: NameContext, w: Walk): JsonObject {
  const out: JsonObject = Object.create(null);
  for (const [name, sub] of Object.entries(map)) {
    const p = `${at}/${escapePointer(name)}`;
    refuseIfCredential(name, p);
    if (key === 'dependencies' && Array.isArray(sub)) out[name] = data(key, sub, p);
    else out[name] = scrubNode(sub, p, mapChildContext(ctx, key, name), w);
  }
  return { ...out };
}

/** Data that carries meaning: kept as is, or the tool is refused. */
function data(key: string, value: JsonValue, at: string): JsonValue {
  refuseIfCredential(key, at);
  refuseIfCredential(value, at);
  return value;
}

// ---- prose --------------------------------------------------------------------------------------------------
const REDACTED = '[redacted]';
/** A word of prose: a run without whitespace, quotes or brackets (its trailing punctuation is not part of it). */
const WORD = /[^\s"'`,;()[\]{}<>]{16,}/g;
const MAX_LITERALS = 64;

/** The node's own literals under a secret-like name, for its prose (bounded: the first MAX_LITERALS of length ≥ 6). */
function nodeLiterals(node: JsonObject, secret: string): string[] {
  const found = new Set<string>();
  const add = (v: string | number) => {
    const s = String(v);
    if (isSecretLikeLiteral(secret, s)) found.add(s.trim());
    return found.size >= MAX_LITERALS;
  };
  for (const [key, value] of Object.entries(node)) {
    if (found.size >= MAX_LITERALS) break;
    if (key === 'pattern' && typeof value === 'string') for (const l of patternLiterals(value) ?? []) add(l);
    else if (key === 'const' || key === 'enum' || LITERAL_ANNOTATIONS.has(key) || (keywordKind(key) === 'data' && isNamingAnnotation(key)))
      forEachLeaf(value, null, (leaf) => add(leaf), 4096);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** A word that may be a secret: random-looking, and neither a URL, a path nor a placeholder. */
function randomWord(core: string): boolean {
  return !/:\/\/|^\/|\/.*\//.test(core) && looksRandom(core) && !isPlaceholderValue(core);
}

function scrubProse(text: string, at: string, secret: string | null, literals: readonly string[], findings: CredentialFinding[]): string {
  const kinds = findCredentialKinds(text);
  let out = kinds.length ? redactCredentials(text) : text;
  // A text that is nothing but one random-looking word documents nothing; it is a value (red team F6: the halves
  // of a credential the compactor would join, "Authorization: Bearer" + "k9Fz…").
  const lone = out.trim();
  if (!/\s/.test(lone) && randomWord(lone.replace(/^[.:!?=*#-]+|[.:!?=*#-]+$/g, ''))) {
    findings.push({ path: at, kinds: [...kinds, 'random-looking-text'], action: 'redacted' });
    return out.replace(lone, REDACTED);
  }
  let named = false;
  if (secret !== null) {
    for (const l of literals) {
      if (out.includes(l)) (out = out.split(l).join(REDACTED)), (named = true);
    }
    WORD.lastIndex = 0;
    out = out.replace(WORD, (word) => {
      const core = word.replace(/^[.:!?=*#-]+|[.:!?=*#-]+$/g, '');
      // A URL or path names a place, not a secret (a secret in one is found by the detector above).
      if (!randomWord(core)) return word;
      named = true;
      return word.replace(core, REDACTED);
    });
  }
  if (kinds.length || named) findings.push({ path: at, kinds: named ? [...kinds, 'secret-like-name'] : kinds, action: 'redacted' });
  return out;
}

// ---- literals and constraints -----------------------------------------------------------------------------------
/**
 * Kinds found in a JSON value: in its JSON text (for shapes spanning its structure, like `{"password": "…"}` or a
 * token split over `["ghp_…", "…"]`), in the strings of each array joined, and in each string and key on its own (JSON escaping would hide what a string's
 * own decoding reveals: `\u0067` in a string is `\\u0067` in JSON text).
 */
function credentialKindsIn(value: unknown): string[] {
  if (typeof value === 'string') return findCredentialKinds(value);
  const kinds = new Set(findCredentialKinds(JSON.stringify(value) ?? ''));
  // The strings of one array read as one: a token split over two enum values (red team F7).
  const stack: unknown[] = [value];
  const joinArray = (a: readonly unknown[]) => {
    const strings = a.filter((x): x is string => typeof x === 'string');
    if (strings.length > 1) for (const k of findCredentialKinds(strings.join(''))) kinds.add(k);
  };
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') for (const k of findCredentialKinds(v)) kinds.add(k);
    else if (Array.isArray(v)) (joinArray(v), stack.push(...v));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (stack.push(k), stack.push(x));
  }
  return [...kinds];
}

function annotationKinds(key: string, value: JsonValue, secret: string | null): string[] {
  const kinds = new Set([...findCredentialKinds(key), ...credentialKindsIn(value)]);
  const name = isNamingAnnotation(key) ? strongest(secret, key) : secret;
  if (forEachLeaf(value, name, (leaf, at) => at !== null && isSecretLikeLiteral(at, leaf))) kinds.add('secret-like-name');
  return [...kinds];
}

function refuseIfSecretConstraint(secret: string, values: readonly JsonValue[], path: string): void {
  for (const v of values) if (forEachLeaf(v, secret, (leaf, at) => at !== null && isSecretLikeConstraint(at, leaf), 4096)) refuse('credential material (secret-like-name)', path);
}

/**
 * The literal strings a `pattern` matches exactly when it has no regex metacharacters once anchors and one outer
 * group are stripped (`^abc$`, `^(?:abc|def)$`, `abc`), escaped punctuation read as itself; else null.
 */
function patternLiterals(pattern: string): string[] | null {
  let p = pattern.length > 1024 ? pattern.slice(0, 1024) : pattern;
  if (p.startsWith('^')) p = p.slice(1);
  if (p.endsWith('$') && !p.endsWith('\\$')) p = p.slice(0, -1);
  const group = /^\((?:\?:)?(.*)\)$/s.exec(p);
  if (group && !/(?<!\\)[()]/.test(group[1])) p = group[1];
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') {
      const n = p[i + 1];
      if (n === undefined || /[A-Za-z0-9]/.test(n)) return null; // \d, \w, \b, \1: not a literal
      cur += n;
      i++;
    } else if (c === '|') (out.push(cur), (cur = ''));
    else if ('.*+?()[]{}^$'.includes(c)) return null;
    else cur += c;
  }
  out.push(cur);
  return out;
}

function refuseIfCredential(value: unknown, path: string): void {
  // Primitives other than strings hold nothing a rule could find; a string is scanned once on the common path.
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return;
  if (typeof value === 'string' && !containsCredential(value)) return;
  const kinds = credentialKindsIn(value);
  if (kinds.length) refuse(`credential material (${kinds.join(', ')})`, path);
}

function refuse(what: string, path: string): never {
  throw new CatalogError(
    CatalogErrorCode.InvariantViolation,
    `${what} at ${path || '/'} where it cannot be removed without changing the tool; the tool is refused (TC-DESC-4)`,
    { level: 'warn' },
  );
}

function isPlainObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
