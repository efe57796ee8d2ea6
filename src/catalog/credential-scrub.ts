import { CatalogError, CatalogErrorCode } from './catalog.errors';
import { containsCredential, findCredentialKinds, isSecretLikeLiteral, redactCredentials } from './credentials';
import type { JsonObject, JsonValue } from './descriptor';

/**
 * Removes credential material from an untrusted tool definition before it can become a descriptor
 * (TC-DESC-4). Policy, per place:
 *   - descriptions and titles: the credential run is replaced with `[redacted]`;
 *   - `default`, `examples`, `example` (annotations): the keyword is removed;
 *   - anything that carries meaning (`const`, `enum`, `pattern`, property names, the tool name): the tool is
 *     refused with INVARIANT_VIOLATION, since removing it would change what the schema accepts.
 * Every removal is reported as a finding (place and kind, never the value) for the caller to log.
 */
export interface CredentialFinding {
  readonly path: string;
  readonly kinds: readonly string[];
  readonly action: 'redacted' | 'removed';
}

const TEXT_KEYWORDS = new Set(['description', 'title', '$comment']);
const ANNOTATION_KEYWORDS = new Set(['default', 'examples', 'example']);
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEMA_ARRAY_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_KEYWORDS = new Set([
  'items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema',
]);

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
  if (node === null || typeof node !== 'object' || Array.isArray(node)) {
    refuseIfCredential(node, path);
    return node;
  }
  const out: JsonObject = Object.create(null);
  for (const [key, value] of Object.entries(node)) {
    const at = `${path}/${escapePointer(key)}`;
    if (TEXT_KEYWORDS.has(key) && typeof value === 'string') {
      out[key] = scrubText(value, at, findings);
    } else if (ANNOTATION_KEYWORDS.has(key)) {
      const kinds = literalCredentialKinds(value, propertyName);
      if (kinds.length) findings.push({ path: at, kinds, action: 'removed' });
      else out[key] = value;
    } else if (SCHEMA_MAP_KEYWORDS.has(key) && isPlainObject(value)) {
      const map: JsonObject = Object.create(null);
      for (const [name, sub] of Object.entries(value)) {
        refuseIfCredential(name, `${at}/${escapePointer(name)}`);
        map[name] = scrubNode(sub, `${at}/${escapePointer(name)}`, findings, key === 'properties' ? name : null);
      }
      out[key] = map;
    } else if ((SCHEMA_ARRAY_KEYWORDS.has(key) || key === 'items') && Array.isArray(value)) {
      out[key] = value.map((sub, i) => scrubNode(sub, `${at}/${i}`, findings, propertyName));
    } else if (SCHEMA_KEYWORDS.has(key)) {
      out[key] = scrubNode(value, at, findings, propertyName);
    } else {
      refuseIfCredential(key, at);
      refuseIfCredential(value, at);
      out[key] = value;
    }
  }
  // Rebuild as an ordinary object (key order kept) so JSON.stringify and deep-equal behave as usual.
  return { ...out };
}

function literalCredentialKinds(value: JsonValue, propertyName: string | null): string[] {
  const text = JSON.stringify(value);
  const kinds = findCredentialKinds(text);
  if (propertyName !== null && hasSecretLikeLiteral(propertyName, value)) kinds.push('secret-like-name');
  return kinds;
}

function hasSecretLikeLiteral(name: string, value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some((v) => isSecretLikeLiteral(name, v));
  return isSecretLikeLiteral(name, value);
}

function refuseIfCredential(value: unknown, path: string): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? '';
  if (containsCredential(text)) {
    throw new CatalogError(
      CatalogErrorCode.InvariantViolation,
      `credential material (${findCredentialKinds(text).join(', ')}) at ${path || '/'} where it cannot be removed without changing the tool; the tool is refused (TC-DESC-4)`,
      { level: 'warn' },
    );
  }
}

function isPlainObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
