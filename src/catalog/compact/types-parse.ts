/** Reading `type` / `nullable` / enum value types from raw (untrusted) schema objects. */
import { isObject, jsonTypeOf, type RawObject } from './json';
import { normalizeTypes } from './ir';
import type { RefResolver } from './ref-resolver';
import type { JsonType, JsonValue } from './types';

const TYPE_NAMES: ReadonlySet<string> = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);

export interface ParsedTypes {
  types?: JsonType[];
  invalid: boolean;
}

/** `type` as string or array; unknown names are ignored (and reported as invalid). */
export function parseTypes(raw: RawObject): ParsedTypes {
  const t = raw.type;
  if (t === undefined) return { invalid: false };
  const names = typeof t === 'string' ? [t] : Array.isArray(t) ? t : undefined;
  if (names === undefined) return { invalid: true };
  const valid = names.filter((x): x is JsonType => typeof x === 'string' && TYPE_NAMES.has(x));
  const invalid = valid.length !== names.length || valid.length === 0;
  if (valid.length === 0) return { invalid };
  // OpenAPI 3.0 `nullable: true` adds null (pitfall 11, T20)
  if (raw.nullable === true) valid.push('null');
  return { types: normalizeTypes(valid), invalid };
}

export function typesOfValues(values: readonly JsonValue[]): JsonType[] {
  return normalizeTypes(values.map(jsonTypeOf));
}

const OBJECT_ONLY = ['properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties'];

/**
 * Primary type(s) of a schema for a permissive tail (§4.3): from `type`, a `$ref` target, union branches,
 * an `allOf` member or enum values. Always a superset of the schema's instances. Bounded by `steps`.
 */
export function tailTypes(raw: unknown, resolver: RefResolver, infer: boolean, steps = { left: 64 }): JsonType[] | undefined {
  if (!isObject(raw) || --steps.left < 0) return undefined;
  const parsed = parseTypes(raw);
  if (parsed.types !== undefined) return parsed.types;
  if (typeof raw.$ref === 'string') {
    const res = resolver.resolve(raw.$ref, raw);
    if (res.kind === 'local') return tailTypes(res.target, resolver, infer, steps);
  }
  for (const kind of ['anyOf', 'oneOf'] as const) {
    const branches = raw[kind];
    if (Array.isArray(branches) && branches.length > 0) {
      const ts = branches.map((b) => tailTypes(b, resolver, infer, steps));
      if (ts.every((t) => t !== undefined)) return normalizeTypes(ts.flatMap((t) => t!));
    }
  }
  if (Array.isArray(raw.allOf)) {
    for (const m of raw.allOf) {
      const t = tailTypes(m, resolver, infer, steps);
      if (t !== undefined) return t;
    }
  }
  if (Array.isArray(raw.enum) && raw.enum.length > 0) return typesOfValues(raw.enum as JsonValue[]);
  if (raw.const !== undefined) return typesOfValues([raw.const as JsonValue]);
  if (infer && raw.type === undefined && OBJECT_ONLY.some((k) => raw[k] !== undefined)) return ['object'];
  return undefined;
}
