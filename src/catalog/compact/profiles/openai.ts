/**
 * Profile `openai`: function calling with `strict: true` (Structured Outputs) where the neutral schema can be
 * made strict without changing what it accepts for a model, else `strict: false` and the neutral schema with a
 * note. Sources:
 *   - https://platform.openai.com/docs/guides/structured-outputs#supported-schemas ("Supported schemas": types
 *     string, number, boolean, integer, object, array, enum, anyOf; supported properties string: pattern, format
 *     (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid); number: multipleOf, maximum,
 *     exclusiveMaximum, minimum, exclusiveMinimum; array: minItems, maxItems. "All fields must be required" (emulate
 *     optional with a union with null); "additionalProperties: false must always be set in objects"; limits: up to
 *     5000 object properties total and 10 levels of nesting, total string length of property names, definition
 *     names, enum values and const values at most 120,000 characters, up to 1000 enum values across all enum
 *     properties, and for a single string enum of more than 250 values a total length of at most 15,000 characters)
 *   - a profile of the same page with the limits collected: https://jsonschemaprofiles.unitvectorylabs.com/schemas/openai
 *   - https://platform.openai.com/docs/guides/function-calling (function name: a-z, A-Z, 0-9, underscores and
 *     dashes, at most 64 characters; `strict` per function)
 *   - `default` is refused in strict mode ("In context=('properties', …), 'default' is not permitted"; quoted in
 *     https://zenn.dev/nicopin/scraps/a8d8f53f5faebb) and so are minLength/maxLength/uniqueItems/min|maxProperties,
 *     which the supported list omits.
 * "Without changing what it accepts for a model" (issue 16): every object the model may fill has declared fields,
 * so closing it and sending null for an optional field are the declared adjustments (the call path drops a null
 * it received for a field that is optional in the original, see docs/profiles.md); an open map (an object with no
 * declared fields, or with an `additionalProperties` schema), a value of several types, or an untyped value cannot
 * be written in strict mode without narrowing, so such a tool is `strict: false`. The root of a tool without
 * parameters (`properties: {}`) is strict: the model calls it with `{}`.
 */
import { literal, TEXT } from '../notes';
import { isObj, typesOf, walk, without, withKey, type NodeRule, type ProfileTable } from './rule-table';
import type { JsonObject, JsonValue } from '../types';

const STRUCTURED_DOC = 'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas';
const FUNCTION_DOC = 'https://platform.openai.com/docs/guides/function-calling';

const STRICT_KEYWORDS = new Set([
  'type', 'description', 'enum', 'properties', 'required', 'additionalProperties', 'items', 'pattern', 'format',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);
const STRICT_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];

const OPENAI_LIMITS = Object.freeze({ properties: 5000, depth: 10, enumValues: 1000, chars: 120_000, bigStringEnum: 250, bigStringEnumChars: 15_000 });

const isObjectNode = (n: JsonObject) => (typesOf(n) ?? []).includes('object');

/** Why the neutral schema cannot be made strict without narrowing it, or undefined when it can. */
export function strictObstacle(schema: JsonObject): string | undefined {
  let reason: string | undefined;
  walk(schema, (n, at) => {
    if (reason !== undefined) return;
    const where = at.path === '' ? 'the root' : at.path;
    const types = typesOf(n);
    if (types === undefined) reason = `untyped value at ${where}`;
    else if (types.filter((t) => t !== 'null').length > 1) reason = `value of several types at ${where}`;
    else if (isObjectNode(n)) {
      const declared = isObj(n.properties) && Object.keys(n.properties).length > 0;
      if (isObj(n.additionalProperties)) reason = `open map at ${where}`;
      else if (!declared && n.additionalProperties !== false && !at.isRoot) reason = `object without declared fields at ${where}`;
    }
  });
  return reason ?? limitsBroken(schema);
}

/** The documented size limits, counted on the schema as sent. */
function limitsBroken(schema: JsonObject): string | undefined {
  let props = 0;
  let depth = 0;
  let enumValues = 0;
  let chars = 0;
  let bigEnum: string | undefined;
  walk(schema, (n, at) => {
    depth = Math.max(depth, at.depth);
    if (isObj(n.properties)) for (const k of Object.keys(n.properties)) (props++, (chars += k.length));
    if (Array.isArray(n.enum)) {
      enumValues += n.enum.length;
      const strings = n.enum.filter((v): v is string => typeof v === 'string');
      const len = strings.reduce((s, v) => s + v.length, 0);
      chars += len;
      if (strings.length > OPENAI_LIMITS.bigStringEnum && len > OPENAI_LIMITS.bigStringEnumChars) bigEnum = at.path;
    }
  });
  if (props > OPENAI_LIMITS.properties) return `${props} object properties (limit ${OPENAI_LIMITS.properties})`;
  if (depth > OPENAI_LIMITS.depth) return `${depth} levels of nesting (limit ${OPENAI_LIMITS.depth})`;
  if (enumValues > OPENAI_LIMITS.enumValues) return `${enumValues} enum values (limit ${OPENAI_LIMITS.enumValues})`;
  if (chars > OPENAI_LIMITS.chars) return `${chars} characters of names and enum values (limit ${OPENAI_LIMITS.chars})`;
  if (bigEnum !== undefined) return `string enum at ${bigEnum || 'the root'} longer than ${OPENAI_LIMITS.bigStringEnumChars} characters`;
  return undefined;
}

/** `[X, "null"]` for an optional field; null joins an enum too (pitfall 11). */
function nullable(n: JsonObject): JsonObject {
  const types = typesOf(n) ?? [];
  let out = n;
  if (!types.includes('null')) out = withKey(out, 'type', [...types, 'null']);
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out = withKey(out, 'enum', [...(out.enum as JsonValue[]), null]);
  return out;
}

const closed: NodeRule = {
  id: 'openai.closed-objects',
  source: STRUCTURED_DOC,
  check: (n) => (isObjectNode(n) && n.additionalProperties !== false ? '"additionalProperties": false must be set on every object' : undefined),
  fix: (n, _at, note) => {
    note(TEXT.noOtherProperties(), 'dropped', false);
    return withKey(isObj(n.properties) ? n : withKey(n, 'properties', {}), 'additionalProperties', false);
  },
};

const allRequired: NodeRule = {
  id: 'openai.all-required',
  source: STRUCTURED_DOC,
  check: (n) => {
    if (!isObj(n.properties)) return undefined;
    const req = Array.isArray(n.required) ? n.required : [];
    const optional = Object.keys(n.properties).filter((k) => !req.includes(k));
    return optional.length > 0 ? `fields not in "required": ${optional.join(', ')}` : undefined;
  },
  fix: (n, _at, note) => {
    const props = n.properties as JsonObject;
    const req = Array.isArray(n.required) ? n.required : [];
    const optional = Object.keys(props).filter((k) => !req.includes(k));
    const next = Object.fromEntries(Object.keys(props).map((k) => [k, optional.includes(k) && isObj(props[k]) ? nullable(props[k] as JsonObject) : props[k]])) as JsonObject;
    note(TEXT.optionalAsNull(optional));
    return withKey(withKey(n, 'properties', next), 'required', Object.keys(props), 'properties');
  },
};

const keywords: NodeRule = {
  id: 'openai.strict-keywords',
  source: STRUCTURED_DOC,
  check: (n) => {
    const extra = Object.keys(n).filter((k) => !STRICT_KEYWORDS.has(k));
    return extra.length > 0 ? `not supported in strict mode: ${extra.join(', ')}` : undefined;
  },
  fix: (n, _at, note) => {
    const extra = Object.keys(n).filter((k) => !STRICT_KEYWORDS.has(k));
    const parts: string[] = [];
    for (const k of extra) {
      const v = n[k];
      if (k === 'default') note(TEXT.defaultValue(v));
      else if (k === 'uniqueItems' && v === true) note(TEXT.uniqueItems());
      else if (k === 'minLength') parts.push(`length ≥ ${String(v)}`);
      else if (k === 'maxLength') parts.push(`length ≤ ${String(v)}`);
      else if (k === 'minProperties') parts.push(`at least ${String(v)} fields`);
      else if (k === 'maxProperties') parts.push(`at most ${String(v)} fields`);
      else parts.push(`${k} ${literal(v)}`);
    }
    if (parts.length > 0) note(TEXT.notExpressed(parts));
    return without(n, ...extra);
  },
};

const formats: NodeRule = {
  id: 'openai.format',
  source: STRUCTURED_DOC,
  check: (n) => (typeof n.format === 'string' && !STRICT_FORMATS.includes(n.format) ? `format ${n.format} is not supported in strict mode` : undefined),
  fix: (n, _at, note) => {
    note(TEXT.format(String(n.format)));
    return without(n, 'format');
  },
};

/** Check-only: what strictObstacle() rules out before the fixes run (the checker must still see it). */
const strictShape: NodeRule = {
  id: 'openai.strict-shape',
  source: STRUCTURED_DOC,
  check: (n, at) => {
    const types = typesOf(n);
    if (types === undefined) return 'strict mode needs a "type" on every value';
    if (types.filter((t) => t !== 'null').length > 1) return 'strict mode: one type per value (and null)';
    if (isObj(n.additionalProperties)) return 'strict mode: no open maps';
    return at.isRoot ? limitsBroken(n) : undefined;
  },
};

/** Function calling without strict: root `type: "object"` without root composition (design §1, langchainjs#9804). */
const root: NodeRule = {
  id: 'openai.root-object',
  source: FUNCTION_DOC,
  check: (n, at) => {
    if (!at.isRoot) return undefined;
    if (n.type !== 'object') return 'the root must be type "object"';
    const composed = ['oneOf', 'anyOf', 'allOf', 'enum', 'not'].filter((k) => n[k] !== undefined);
    return composed.length > 0 ? `no ${composed.join(', ')} at the root` : undefined;
  },
};

export const OPENAI: ProfileTable & { readonly strictRules: readonly NodeRule[] } = {
  name: 'openai',
  functionName: { pattern: /^[a-zA-Z0-9_-]{1,64}$/, source: FUNCTION_DOC },
  /** the rules every openai schema meets (strict or not) */
  nodeRules: [root],
  /** applied, in this order, when strictObstacle() finds nothing */
  strictRules: [root, strictShape, allRequired, closed, keywords, formats],
};
