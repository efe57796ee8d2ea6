/**
 * The reverse of openai strict's declared adjustment (issue 16, openai.ts): a model told that a field optional in
 * the original is "required and nullable" sends `null` for "not given". Before a call is validated against the
 * standard inputSchema, such a null is dropped again. Only a null the original would refuse is dropped: a field
 * that is not required in the neutral compact schema and whose schema there does not accept null (a null the
 * original accepts is kept, it may mean null). Pure; other profiles change no argument, so they return `args`.
 */
import type { JsonObject, JsonValue } from '../types';
import { isObj, typesOf } from './rule-table';
import type { ProfileName } from './rule-table';

const acceptsNull = (s: JsonObject): boolean => {
  const t = typesOf(s);
  return t === undefined ? !Array.isArray(s.enum) || s.enum.includes(null) : t.includes('null');
};

function strip(value: JsonValue, schema: JsonObject, depth: number): JsonValue {
  if (depth > 64) return value;
  if (Array.isArray(value)) return isObj(schema.items) ? value.map((v) => strip(v, schema.items as JsonObject, depth + 1)) : value;
  if (!isObj(value) || !isObj(schema.properties)) return value;
  const props = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const out: Array<[string, JsonValue]> = [];
  for (const [k, v] of Object.entries(value)) {
    const s = Object.prototype.hasOwnProperty.call(props, k) && isObj(props[k]) ? (props[k] as JsonObject) : undefined;
    if (s === undefined) out.push([k, v]);
    else if (v === null && !required.includes(k) && !acceptsNull(s)) continue;
    else out.push([k, strip(v, s, depth + 1)]);
  }
  return Object.fromEntries(out) as JsonObject;
}

/** `args` as the original schema expects them, given the neutral compact schema of the tool (its compact view). */
export function argumentsFromProfile(profile: ProfileName, neutral: JsonObject, args: JsonValue): JsonValue {
  return profile === 'openai' ? strip(args, neutral, 0) : args;
}
