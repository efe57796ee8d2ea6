import { CatalogError, CatalogErrorCode } from './catalog.errors';
import { keywordKind } from './compact/keywords';
import { containsCredential, findCredentialKinds, isSecretLikeConstraint, isSecretLikeLiteral, redactCredentials } from './credentials';
import type { JsonObject, JsonValue } from './descriptor';

/**
 * Removes credential material from an untrusted tool definition before it can become a descriptor
 * (TC-DESC-4). Schema positions are walked with THE keyword table the compactor uses
 * (compact/keywords.ts: subschema, map of subschemas — also draft-07 `dependencies` in schema form — array of
 * subschemas, or data), so the scrubber and the compactor can never disagree about what is a schema. Policy, per
 * place (every check sees the decoded views of credentials.ts):
 *   - prose (`description`, `title`, `$comment`): the credential run is replaced with `[redacted]`;
 *   - literal annotations (`default`, `examples`, `example`, and any vendor `x-*` keyword, which the table does
 *     not know: a local extension, since vendor keywords never constrain an instance): the keyword is removed when
 *     it holds a credential, or a non-trivial literal under a secret-like property name (or `x-*` name);
 *   - anything that carries meaning (`const`, `enum`, `pattern`, `required`, property names, every other keyword,
 *     the tool name): the tool is refused with INVARIANT_VIOLATION, since removing it would change what the schema
 *     accepts. Under a secret-like property name a `const`/`enum` literal also refuses the tool when
 *     isSecretLikeConstraint says so (any non-trivial literal under a password/key-like name, a random-looking one
 *     under a token/auth-like name), so `auth: { enum: ["none", "basic"] }` stays.
 * The property name a literal sits under is the `properties` (or `$defs`) key, carried into the node's own
 * subschemas (`items`, `oneOf[i]`, `not`, …), so `passwords: { items: { const } }` and
 * `password: { oneOf: [{ const }] }` are judged by it.
 * Every removal is reported as a finding (place and kind, never the value) for the caller to log.
 */
export interface CredentialFinding {
  readonly path: string;
  readonly kinds: readonly string[];
  readonly action: 'redacted' | 'removed';
}

const PROSE_KEYWORDS = new Set(['description', 'title', '$comment']);
const LITERAL_ANNOTATIONS = new Set(['default', 'examples', 'example']);
const isVendorKeyword = (key: string) => key.startsWith('x-');

export function scrubText(text: string, path: string, findings: CredentialFinding[]): string {
  const kinds = findCredentialKinds(text);
  if (kinds.length === 0) return text;
  findings.push({ path, kinds, action: 'redacted' });
  return redactCredentials(text);
}

/** Returns a scrubbed deep copy of `schema`; throws CatalogError(INVARIANT_VIOLATION) to refuse the tool. */
export function scrubSchema(schema: JsonObject, path: string, findings: CredentialFinding[]): JsonObject {
  return scrubNode(schema, path, findings, null) as JsonObject;
}

function scrubNode(node: JsonValue, path: string, findings: CredentialFinding[], propertyName: string | null): JsonValue {
  if (!isPlainObject(node)) {
    refuseIfCredential(node, path);
    return node;
  }
  const out: JsonObject = Object.create(null);
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${escapePointer(key)}`;
    const sub = (v: JsonValue, p: string) => scrubNode(v, p, findings, propertyName);
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
        out[key] = isPlainObject(value) ? scrubMap(key, value, at, findings) : data(key, value, at);
        break;
      case 'data':
        if (PROSE_KEYWORDS.has(key) && typeof value === 'string') out[key] = scrubText(value, at, findings);
        else if (LITERAL_ANNOTATIONS.has(key) || isVendorKeyword(key)) {
          // A vendor keyword's name is part of the annotation: one holding a credential goes with its value.
          const kinds = [...new Set([...findCredentialKinds(key), ...literalCredentialKinds(value, propertyName, isVendorKeyword(key) ? key : null)])];
          if (kinds.length) findings.push({ path: at, kinds, action: 'removed' });
          else out[key] = value;
        } else {
          if ((key === 'const' || key === 'enum') && propertyName !== null) refuseIfSecretConstraint(propertyName, key === 'enum' && Array.isArray(value) ? value : [value], at);
          out[key] = data(key, value, at);
        }
        break;
    }
  }
  // Rebuild as an ordinary object (key order kept) so JSON.stringify and deep-equal behave as usual.
  return { ...out };
}

/** A map of subschemas: each name is data (refused if it is a credential); `dependencies` arrays are name lists. */
function scrubMap(key: string, map: JsonObject, at: string, findings: CredentialFinding[]): JsonObject {
  const out: JsonObject = Object.create(null);
  for (const [name, sub] of Object.entries(map)) {
    const p = `${at}/${escapePointer(name)}`;
    refuseIfCredential(name, p);
    if (key === 'dependencies' && Array.isArray(sub)) out[name] = data(key, sub, p);
    // A property's (or definition's) name is what its literals are judged by; other maps name no property.
    else out[name] = scrubNode(sub, p, findings, key === 'properties' || key === '$defs' || key === 'definitions' ? name : null);
  }
  return { ...out };
}

/** Data that carries meaning: kept as is, or the tool is refused. */
function data(key: string, value: JsonValue, at: string): JsonValue {
  refuseIfCredential(key, at);
  refuseIfCredential(value, at);
  return value;
}

/**
 * Kinds found in a JSON value: in its JSON text (for shapes spanning its structure, like `{"password": "…"}`) and
 * in each string and key on its own (JSON escaping would hide what a string's own decoding reveals: `\u0067` in
 * a string is `\\u0067` in JSON text).
 */
function credentialKindsIn(value: unknown): string[] {
  if (typeof value === 'string') return findCredentialKinds(value);
  const kinds = new Set(findCredentialKinds(JSON.stringify(value) ?? ''));
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') for (const k of findCredentialKinds(v)) kinds.add(k);
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) (stack.push(k), stack.push(x));
  }
  return [...kinds];
}

function literalCredentialKinds(value: JsonValue, propertyName: string | null, vendorKey: string | null): string[] {
  const kinds = credentialKindsIn(value);
  const named = (name: string | null) => name !== null && hasSecretLikeLiteral(name, value);
  if (named(propertyName) || named(vendorKey)) kinds.push('secret-like-name');
  return kinds;
}

function hasSecretLikeLiteral(name: string, value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some((v) => isSecretLikeLiteral(name, v));
  return isSecretLikeLiteral(name, value);
}

function refuseIfSecretConstraint(propertyName: string, values: readonly JsonValue[], path: string): void {
  if (values.some((v) => isSecretLikeConstraint(propertyName, v))) refuse('credential material (secret-like-name)', path);
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

export function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
