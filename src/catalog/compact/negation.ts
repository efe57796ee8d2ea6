/**
 * `not` (design/compact-view.md §4.6, pitfall 26): evaluated on the RAW, ref-resolved subschema and
 * never compacted first, because relaxing inside a negation tightens the parent. Only exact rewrites
 * are applied; anything else is dropped (a superset) and described.
 */
import { ANNOTATION_KEYWORDS } from './keywords';
import { canonical, isObject, jsonTypeOf, type RawObject } from './json';
import { admitsType, neverNode, note, tidy, withNotes, type Node } from './ir';
import { TEXT } from './notes';
import { parseTypes } from './types-parse';
import type { CompileContext } from './context';
import type { JsonType, JsonValue } from './types';

/** Follows `{$ref}`-only wrappers (bounded) so `not: {$ref: "#/$defs/Empty"}` is seen as what it is. */
export function resolveShallow(raw: unknown, ctx: CompileContext): unknown {
  let current = raw;
  for (let hops = 0; hops < 8; hops++) {
    if (!isObject(current) || typeof current.$ref !== 'string') return current;
    if (Object.keys(current).some((k) => k !== '$ref' && !ANNOTATION_KEYWORDS.has(k))) return current;
    const res = ctx.resolver.resolve(current.$ref, current);
    if (res.kind !== 'local') return current;
    current = res.target;
  }
  return current;
}

export function applyNot(n: Node, rawNot: unknown, loc: string, ctx: CompileContext): Node {
  if (rawNot === undefined || n.never !== undefined) return n;
  const raw = resolveShallow(rawNot, ctx);
  const relaxed = (text: string) => withNotes(n, [note('not', 'dropped', text, loc)]);
  if (raw === false) return n; // not(nothing) = everything
  if (raw === true) return neverNode('not');
  if (!isObject(raw)) return relaxed(TEXT.invalidKeyword('not'));
  const keys = Object.keys(raw).filter((k) => !ANNOTATION_KEYWORDS.has(k));
  if (keys.length === 0) return neverNode('not'); // not:{} (zod "never", T02/T25)
  if (keys.every((k) => k === 'type' || k === 'nullable')) return notType(n, raw, relaxed, loc);
  if (keys.every((k) => k === 'enum' || k === 'const' || k === 'type')) return notValues(n, raw, relaxed, loc);
  if (keys.length === 1 && Array.isArray(raw.required)) {
    const names = raw.required.filter((x): x is string => typeof x === 'string');
    return names.length === 0 ? neverNode('not') : relaxed(TEXT.notTogether(names));
  }
  if (keys.length === 1 && Array.isArray(raw.anyOf)) {
    const names = raw.anyOf.map(singleRequired);
    if (names.length > 0 && names.every((x) => x !== undefined)) return relaxed(TEXT.notAnyOf(names as string[]));
  }
  return relaxed(TEXT.mustNotMatch(keys));
}

function singleRequired(b: unknown): string | undefined {
  if (!isObject(b)) return undefined;
  const keys = Object.keys(b).filter((k) => !ANNOTATION_KEYWORDS.has(k));
  if (keys.length !== 1 || !Array.isArray(b.required) || b.required.length !== 1) return undefined;
  return typeof b.required[0] === 'string' ? b.required[0] : undefined;
}

/** not:{type:T} removes T from a known type set (exact); `not integer` inside `number` is described. */
function notType(n: Node, raw: RawObject, relaxed: (t: string) => Node, loc: string): Node {
  const banned = parseTypes(raw).types;
  if (banned === undefined) return relaxed(TEXT.invalidKeyword('not'));
  if (n.types === undefined) return relaxed(TEXT.mustNotBe(banned.join(' or ')));
  const keep: JsonType[] = n.types.filter((t) => !admitsType(banned, t));
  const partial = banned.includes('integer') && !banned.includes('number') && keep.includes('number');
  const out = tidy({ ...n, types: keep });
  return partial ? withNotes(out, [note('not', 'dropped', TEXT.mustNotBe('an integer'), loc)]) : out;
}

/** not:{enum|const} filters a known enum (exact), turns `not ""` into minLength 1 (exact), else notes. */
function notValues(n: Node, raw: RawObject, relaxed: (t: string) => Node, loc: string): Node {
  let values: JsonValue[] = [];
  if (Array.isArray(raw.enum)) values = raw.enum as JsonValue[];
  if (raw.const !== undefined) {
    const c = canonical(raw.const as JsonValue);
    values = Array.isArray(raw.enum) ? values.filter((v) => canonical(v) === c) : [raw.const as JsonValue];
  }
  const t = parseTypes(raw).types;
  if (t !== undefined) {
    if (raw.enum === undefined && raw.const === undefined) return notType(n, raw, relaxed, loc);
    values = values.filter((v) => admitsType(t, jsonTypeOf(v)));
  }
  if (values.length === 0) return n;
  if (n.enum !== undefined) {
    const banned = new Set(values.map(canonical));
    const kept = n.enum.filter((v) => !banned.has(canonical(v)));
    return kept.length === 0 ? neverNode('not') : { ...n, enum: kept };
  }
  if (values.every((v) => v === '')) return { ...n, minLength: Math.max(n.minLength ?? 0, 1) };
  return relaxed(TEXT.mustNotBeValues(values));
}
