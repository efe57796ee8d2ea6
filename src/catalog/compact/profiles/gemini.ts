/**
 * Profile `gemini`: what Gemini function declarations accept in `parameters`, a "select subset of an OpenAPI 3.0
 * schema object" validated as a protobuf message (one `type` enum per node, `enum` a list of strings, no
 * `additionalProperties` / `exclusiveMinimum` field). Sources:
 *   - https://ai.google.dev/api/caching#Schema and https://cloud.google.com/vertex-ai/docs/reference/rest/v1/Schema
 *     (the Schema fields; supported formats "for NUMBER type: float, double; for INTEGER type: int32, int64; for
 *     STRING type: enum, date-time"; `nullable`)
 *   - https://docs.cloud.google.com/nodejs/docs/reference/generativelanguage/latest/generativelanguage/protos.google.ai.generativelanguage.v1beta.ischema
 *     (the proto's field list: type, format, title, description, nullable, enum, items, minItems, maxItems,
 *     properties, propertyOrdering, required, minProperties, maxProperties, minimum, maximum, minLength, maxLength,
 *     pattern, example, anyOf, default; no additionalProperties, exclusiveMinimum, multipleOf, uniqueItems)
 *   - https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration (function names: "Must
 *     start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots and dashes, with a
 *     maximum length of 64"; parameter names: "must start with a letter or an underscore and must only contain
 *     chars a-z, A-Z, 0-9, or underscores with a maximum length of 64")
 *   - the failures collected in shared/design/compact-view.md §1 (gemini-cli#13326, opencode#12295: "Proto field is
 *     not repeating" for type arrays; enums must be strings; "should be non-empty for OBJECT type").
 * This is the conservative reading the issue asks for; `anyOf` is never used (TC-VIEW-3 still holds).
 * Not covered: the undocumented "maximum allowed nesting depth" (the neutral view's depth cap, 10, applies), and a
 * root without properties, which a consumer sends by omitting `parameters` (the descriptor keeps `properties: {}`).
 */
import { list, TEXT } from '../notes';
import { FAMILY_OF_TYPE, isObj, typesOf, without, withKey, type NodeRule, type ProfileTable } from './rule-table';
import type { JsonObject, JsonValue } from '../types';

const SCHEMA_DOC = 'https://ai.google.dev/api/caching#Schema';
const PROTO_DOC = 'https://docs.cloud.google.com/nodejs/docs/reference/generativelanguage/latest/generativelanguage/protos.google.ai.generativelanguage.v1beta.ischema';
const DECLARATION_DOC = 'https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration';

/** OpenAPI 3.0 has no `null` type; Gemini's Type enum is STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT. */
const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
/** The same order the neutral typeArrays:"never" option uses (§4.5 step 7): the most structured type is kept. */
const PRIMARY = ['object', 'array', 'string', 'number', 'integer', 'boolean'];

const FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'],
  number: ['float', 'double'],
  integer: ['int32', 'int64'],
};

/** The Schema message's fields the neutral view can produce (the proto list above). */
const KEYWORDS = new Set([
  'type', 'format', 'description', 'nullable', 'enum', 'items', 'minItems', 'maxItems', 'properties', 'required',
  'minProperties', 'maxProperties', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default', 'title', 'example',
  'propertyOrdering',
]);

const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A one-line summary of a compact JSON node, in the wording of ../describe.ts. */
function summary(n: JsonObject): string {
  const parts: string[] = [];
  const t = typesOf(n);
  if (t !== undefined) parts.push(t.join(' or '));
  if (Array.isArray(n.enum)) parts.push(`one of ${list(n.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))), 6)}`);
  if (typeof n.pattern === 'string') parts.push(`matching /${n.pattern}/`);
  if (typeof n.format === 'string') parts.push(`format ${n.format}`);
  return parts.length > 0 ? parts.join(', ') : 'any value';
}

const additionalProperties: NodeRule = {
  id: 'gemini.no-additional-properties',
  source: PROTO_DOC,
  check: (n) => (n.additionalProperties !== undefined ? '"additionalProperties" is not a field of the Schema message' : undefined),
  fix: (n, _at, note) => {
    const ap = n.additionalProperties;
    note(ap === false ? TEXT.noOtherProperties() : TEXT.otherProperties(isObj(ap) ? summary(ap) : 'any value'));
    return without(n, 'additionalProperties');
  },
};

const singleType: NodeRule = {
  id: 'gemini.single-type',
  source: SCHEMA_DOC,
  check: (n) => (Array.isArray(n.type) ? '"type" must be one type ("Proto field is not repeating")' : n.type === 'null' ? '"null" is not a Gemini type' : undefined),
  fix: (n, _at, note) => {
    const types = typesOf(n) ?? [];
    const nonNull = types.filter((t) => t !== 'null');
    const nullable = types.includes('null');
    if (nonNull.length === 0) {
      // only null: a nullable string accepts null (a superset), and the note says what the original wants
      note(TEXT.mustBeNull());
      return withKey(withKey(without(n, 'enum'), 'type', 'string'), 'nullable', true, 'type');
    }
    const kept = PRIMARY.find((t) => nonNull.includes(t)) ?? nonNull[0];
    const dropped = nonNull.filter((t) => t !== kept && !(kept === 'number' && t === 'integer'));
    let out = withKey(n, 'type', kept);
    if (nullable) {
      // `[X, "null"]` is exactly `type: X, nullable: true` (pitfall 11)
      out = withKey(out, 'nullable', true, 'type');
      note(TEXT.exactRewrite(`type [${types.join(', ')}] as nullable ${kept}`), 'merged', false);
    }
    if (dropped.length > 0) {
      const keep = new Set(FAMILY_OF_TYPE[kept] ?? []);
      const stale = dropped.flatMap((t) => FAMILY_OF_TYPE[t] ?? []).filter((k) => !keep.has(k));
      out = without(out, ...stale);
      if (Array.isArray(out.enum)) {
        const values = out.enum.filter((v) => v === null || jsonTypeIs(v, kept));
        out = values.length > 0 ? withKey(out, 'enum', values) : without(out, 'enum');
      }
      note(TEXT.typesNarrowed(kept, dropped.join(', ')), 'dropped');
    }
    return out;
  },
};

function jsonTypeIs(v: JsonValue, t: string): boolean {
  if (t === 'integer') return typeof v === 'number' && Number.isInteger(v);
  if (t === 'number') return typeof v === 'number';
  if (t === 'array') return Array.isArray(v);
  if (t === 'object') return isObj(v);
  return typeof v === t;
}

const typed: NodeRule = {
  id: 'gemini.typed',
  source: PROTO_DOC,
  check: (n) => (n.type === undefined ? 'every node needs a "type"' : typeof n.type === 'string' && !TYPES.includes(n.type) && n.type !== 'null' ? `unknown type ${n.type}` : undefined),
  fix: (n, _at, note) => {
    // any JSON value in the original: a string is valid there, so the narrowing keeps calls valid (§4.1 exception 4)
    note(TEXT.typesNarrowed('string', 'any other JSON value'), 'dropped');
    return Object.fromEntries([['type', 'string'], ...Object.entries(n).filter(([k]) => k !== 'type')]) as JsonObject;
  },
};

const enumStrings: NodeRule = {
  id: 'gemini.enum-strings',
  source: PROTO_DOC,
  check: (n) => (Array.isArray(n.enum) && n.enum.some((v) => typeof v !== 'string') ? '"enum" must list strings only' : undefined),
  fix: (n, _at, note) => {
    const values = n.enum as JsonValue[];
    const strings = values.filter((v): v is string => typeof v === 'string');
    if (n.type === 'string' && strings.length > 0 && strings.length + (values.includes(null) ? 1 : 0) === values.length) {
      // null joined the enum with nullable (pitfall 11): `nullable: true` says it already
      note(TEXT.exactRewrite('null in enum as nullable'), 'merged', false);
      return withKey(withKey(n, 'enum', strings), 'nullable', true, 'type');
    }
    // stringifying would change the JSON type the model sends (pitfall 13): the values become a note
    note(TEXT.valuesOneOf(values.filter((v) => v !== null)));
    return without(n, 'enum');
  },
};

const exclusiveBounds: NodeRule = {
  id: 'gemini.exclusive-bounds',
  source: PROTO_DOC,
  check: (n) => (n.exclusiveMinimum !== undefined || n.exclusiveMaximum !== undefined ? '"exclusiveMinimum"/"exclusiveMaximum" are not fields of the Schema message' : undefined),
  fix: (n, _at, note) => {
    let out = n;
    const integer = n.type === 'integer';
    for (const [ex, inc, dir] of [['exclusiveMinimum', 'minimum', 1], ['exclusiveMaximum', 'maximum', -1]] as const) {
      const x = n[ex];
      if (typeof x !== 'number') continue;
      out = without(out, ex);
      const current = typeof n[inc] === 'number' ? (n[inc] as number) : undefined;
      if (integer) {
        // exact for integers: > 2.5 and > 2 both mean >= 3 (hideya's x+1 is only exact here, pitfall 20)
        const bound = dir === 1 ? Math.floor(x) + 1 : Math.ceil(x) - 1;
        const tighter = current === undefined ? bound : dir === 1 ? Math.max(current, bound) : Math.min(current, bound);
        out = withKey(out, inc, tighter, 'type');
        note(TEXT.exactRewrite(`${ex} ${x} as ${inc} ${tighter}`), 'merged', false);
      } else {
        const bound = current === undefined ? x : dir === 1 ? Math.max(current, x) : Math.min(current, x);
        out = withKey(out, inc, bound, 'type');
        if (bound === x) note(dir === 1 ? TEXT.greaterThan(x) : TEXT.lessThan(x));
      }
    }
    return out;
  },
};

const formats: NodeRule = {
  id: 'gemini.format',
  source: SCHEMA_DOC,
  check: (n) => (typeof n.format === 'string' && !(FORMATS[String(n.type)] ?? []).includes(n.format) ? `format ${n.format} is not supported for ${String(n.type)}` : undefined),
  fix: (n, _at, note) => {
    note(TEXT.format(String(n.format)));
    return without(n, 'format');
  },
};

const keywords: NodeRule = {
  id: 'gemini.keywords',
  source: PROTO_DOC,
  check: (n) => {
    const extra = Object.keys(n).filter((k) => !KEYWORDS.has(k) && k !== 'additionalProperties' && k !== 'exclusiveMinimum' && k !== 'exclusiveMaximum');
    return extra.length > 0 ? `not fields of the Schema message: ${extra.join(', ')}` : undefined;
  },
  fix: (n, _at, note) => {
    const extra = Object.keys(n).filter((k) => !KEYWORDS.has(k));
    for (const k of extra) {
      const v = n[k];
      if (k === 'multipleOf' && typeof v === 'number') note(TEXT.multipleOf(v));
      else if (k === 'uniqueItems' && v === true) note(TEXT.uniqueItems());
      else note(TEXT.notExpressed([`${k} ${JSON.stringify(v)}`]));
    }
    return without(n, ...extra);
  },
};

const emptyProperties: NodeRule = {
  id: 'gemini.non-empty-properties',
  source: PROTO_DOC,
  // "properties: should be non-empty for OBJECT type"; an empty map constrains nothing, so dropping it is exact
  check: (n, at) => (!at.isRoot && isObj(n.properties) && Object.keys(n.properties).length === 0 ? '"properties" must be non-empty' : undefined),
  fix: (n, _at, note) => {
    note(TEXT.exactRewrite('empty properties omitted'), 'merged', false);
    return without(n, 'properties');
  },
};

const requiredDeclared: NodeRule = {
  id: 'gemini.required-declared',
  source: PROTO_DOC,
  check: (n) => {
    const props = isObj(n.properties) ? n.properties : {};
    const missing = Array.isArray(n.required) ? n.required.filter((r) => typeof r !== 'string' || !Object.prototype.hasOwnProperty.call(props, r)) : [];
    return missing.length > 0 ? `"required" names undeclared properties: ${missing.join(', ')}` : undefined;
  },
};

const parameterNames: NodeRule = {
  id: 'gemini.parameter-names',
  source: DECLARATION_DOC,
  // check only: renaming a property would change the call (G3), so a tool that breaks it is reported, not rewritten
  check: (n) => {
    const bad = isObj(n.properties) ? Object.keys(n.properties).filter((k) => !PARAMETER_NAME.test(k)) : [];
    return bad.length > 0 ? `parameter names outside ${PARAMETER_NAME.source}: ${bad.join(', ')}` : undefined;
  },
};

export const GEMINI: ProfileTable = {
  name: 'gemini',
  functionName: { pattern: /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, source: DECLARATION_DOC },
  nodeRules: [additionalProperties, singleType, typed, enumStrings, exclusiveBounds, formats, keywords, emptyProperties, requiredDeclared, parameterNames],
};
