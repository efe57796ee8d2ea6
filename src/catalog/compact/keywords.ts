/**
 * THE keyword table: which keywords hold a subschema, a map of subschemas, an array of subschemas, or
 * data. Both the compactor and `findBannedKeywords` walk schema positions from this table only
 * (design/compact-view.md pitfall 1, §4.8: a property *named* `not`, or an `enum` value holding
 * `{"$ref": …}`, is data).
 */

/** TC-VIEW-3: none of these may appear as a keyword anywhere in a compact `inputSchema`. */
export const BANNED_KEYWORDS: readonly string[] = Object.freeze([
  '$ref',
  'oneOf',
  'allOf',
  'anyOf',
  'not',
  'patternProperties',
  'dependentSchemas',
]);

export type KeywordKind = 'schema' | 'schemaMap' | 'schemaArray' | 'schemaOrArray' | 'dependencies' | 'data';

/**
 * Every keyword whose value contains schemas, across 2020-12, 2019-09, draft-07/-04 and OpenAPI 3.0.
 * `items` is a schema in 2020-12 and may be an array (tuple) in draft-07; `dependencies` maps to a
 * schema or to a string array (data). Keywords not listed are data or annotations: never walked.
 */
export const KEYWORD_KINDS: Readonly<Record<string, KeywordKind>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, KeywordKind>, {
    additionalProperties: 'schema',
    propertyNames: 'schema',
    items: 'schemaOrArray',
    additionalItems: 'schema',
    contains: 'schema',
    unevaluatedItems: 'schema',
    unevaluatedProperties: 'schema',
    not: 'schema',
    if: 'schema',
    then: 'schema',
    else: 'schema',
    contentSchema: 'schema',
    properties: 'schemaMap',
    patternProperties: 'schemaMap',
    $defs: 'schemaMap',
    definitions: 'schemaMap',
    dependentSchemas: 'schemaMap',
    allOf: 'schemaArray',
    anyOf: 'schemaArray',
    oneOf: 'schemaArray',
    prefixItems: 'schemaArray',
    dependencies: 'dependencies',
    enum: 'data',
    const: 'data',
    default: 'data',
    examples: 'data',
    example: 'data',
    required: 'data',
    dependentRequired: 'data',
  } satisfies Record<string, KeywordKind>),
);

export function keywordKind(key: string): KeywordKind {
  return Object.prototype.hasOwnProperty.call(KEYWORD_KINDS, key) ? KEYWORD_KINDS[key] : 'data';
}

/**
 * Calls `visit(childSchema, pointerSuffix)` for every direct subschema of `node`, in key order.
 * `isObject` decides what a schema object is; boolean schemas are passed too.
 */
export function forEachSubschema(
  node: Record<string, unknown>,
  visit: (child: unknown, suffix: string[]) => void,
): void {
  for (const key of Object.keys(node)) {
    const kind = keywordKind(key);
    const value = node[key];
    switch (kind) {
      case 'schema':
        visit(value, [key]);
        break;
      case 'schemaOrArray':
        if (Array.isArray(value)) value.forEach((v, i) => visit(v, [key, String(i)]));
        else visit(value, [key]);
        break;
      case 'schemaArray':
        if (Array.isArray(value)) value.forEach((v, i) => visit(v, [key, String(i)]));
        break;
      case 'schemaMap':
      case 'dependencies':
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          const map = value as Record<string, unknown>;
          for (const name of Object.keys(map)) {
            // dependencies: an array value is a dependentRequired list (data), anything else a schema
            if (kind === 'dependencies' && Array.isArray(map[name])) continue;
            visit(map[name], [key, name]);
          }
        }
        break;
      case 'data':
        break;
    }
  }
}

/** Keyword families: type-specific keywords constrain only instances of their own type (§4.5 step 5). */
export type Family = 'string' | 'number' | 'array' | 'object';

export const FAMILY_KEYS = Object.freeze({
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties'],
} as const);

export const FAMILIES: readonly Family[] = Object.freeze(['string', 'number', 'array', 'object']);

/** Keywords that only annotate; a `not`/`if` subschema made only of these is `{}` (§4.6). */
export const ANNOTATION_KEYWORDS: ReadonlySet<string> = new Set([
  'title',
  'description',
  '$comment',
  'examples',
  'example',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$id',
  '$schema',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  '$defs',
  'definitions',
]);
