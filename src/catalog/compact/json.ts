/**
 * JSON value helpers. Untrusted names are kept in null-prototype objects or Maps, and output objects are
 * built with Object.fromEntries, so `__proto__` stays an ordinary property (pitfall 22, T46).
 */
import type { JsonObject, JsonType, JsonValue } from './types';

export type RawObject = Record<string, unknown>;

/** A non-negative integer keyword value (minItems, maxLength, …), or undefined for anything else. */
export function nonNegInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

export function isObject(value: unknown): value is RawObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

export function jsonTypeOf(value: JsonValue): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    default:
      return 'object';
  }
}

/** Canonical text (sorted keys) used as the identity of a value for enum dedupe / deep equality. */
export function canonical(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']';
  const keys = Object.keys(value).sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonical(value[k])).join(',') + '}';
}

/** Deduplicates by canonical identity, keeping first appearance. */
export function uniqueValues(values: readonly JsonValue[]): JsonValue[] {
  const seen = new Set<string>();
  const out: JsonValue[] = [];
  for (const v of values) {
    const key = canonical(v);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out;
}

/** Fresh plain-object copy for the output (callers may mutate it). */
export function toPlain(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(toPlain);
  return Object.fromEntries(Object.keys(value).map((k) => [k, toPlain(value[k])])) as JsonObject;
}

class InputRejected extends Error {}

interface CloneState {
  nodes: number;
  bytes: number;
  maxNodes: number;
  maxBytes: number;
}

const MAX_INPUT_DEPTH = 256;

/**
 * §4.2 step 0: copies the input into JSON-only, null-prototype data. Throws InputRejected for cyclic
 * graphs, too deep / too large inputs (the caller turns that into the tool-level fallback). Non-JSON
 * leaves follow JSON.stringify: dropped in objects, null in arrays; non-finite numbers become null.
 */
export function cloneInput(value: unknown, maxNodes: number, maxBytes: number): JsonValue {
  const state: CloneState = { nodes: 0, bytes: 0, maxNodes, maxBytes };
  const out = cloneValue(value, state, new Set(), 0);
  return out === undefined ? null : out;
}

function cloneValue(value: unknown, state: CloneState, ancestors: Set<object>, depth: number): JsonValue | undefined {
  if (++state.nodes > state.maxNodes) throw new InputRejected('input has too many nodes');
  switch (typeof value) {
    case 'string':
      state.bytes += value.length + 2;
      if (state.bytes > state.maxBytes) throw new InputRejected('input too large');
      return value;
    case 'number':
      state.bytes += 8;
      return Number.isFinite(value) ? value : null;
    case 'boolean':
      state.bytes += 5;
      return value;
    case 'object':
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth > MAX_INPUT_DEPTH) throw new InputRejected('input nested too deeply');
  if (ancestors.has(value)) throw new InputRejected('input is a cyclic object graph');
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      const arr: JsonValue[] = [];
      for (let i = 0; i < value.length; i++) {
        const v = cloneValue(value[i], state, ancestors, depth + 1);
        arr.push(v === undefined ? null : v);
      }
      return arr;
    }
    const obj = Object.create(null) as JsonObject;
    for (const key of Object.keys(value)) {
      state.bytes += key.length + 3;
      const v = cloneValue((value as RawObject)[key], state, ancestors, depth + 1);
      if (v !== undefined) obj[key] = v;
    }
    return obj;
  } finally {
    ancestors.delete(value);
  }
}
