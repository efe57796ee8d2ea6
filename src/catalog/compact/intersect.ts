/**
 * intersect(list): `allOf`, `$ref` + siblings, and distributing a parent into union branches
 * (design/compact-view.md §4.4). Exact where the table says so; otherwise a superset plus a note.
 * UNSAT is handled locally: the node becomes NEVER and its parent decides (T15), nothing throws.
 */
import { canonical } from './json';
import {
  anyNode,
  intersectTypes,
  isAny,
  mergeNotes,
  neverNode,
  note,
  tidy,
  type IrNote,
  type Mutable,
  type Node,
} from './ir';
import { TEXT } from './notes';
import type { CompileContext } from './context';
import type { JsonType, JsonValue } from './types';

/** `ref`: the last node is the referring site, whose annotations win (pitfall 2, T03). */
export type IntersectMode = 'allOf' | 'ref' | 'distribute';

export function intersect(nodes: readonly Node[], mode: IntersectMode, origin: string, ctx: CompileContext): Node {
  ctx.budget.tick(nodes.length);
  // bare `{}` members change nothing; dropping them keeps the common `$ref`+annotation case cheap
  const list = nodes.filter((n) => !isBare(n));
  if (list.length === 0) return anyNode();
  if (list.length === 1) return list[0];
  const never = list.find((n) => n.never !== undefined);
  if (never !== undefined) return neverNode(never.never!);

  const notes: IrNote[] = [];
  const out: Mutable<Node> = { notes: [] };
  let types: JsonType[] | undefined;
  for (const n of list) if (n.types !== undefined) types = intersectTypes(types ?? n.types, n.types);
  if (types !== undefined) {
    if (types.length === 0) return neverNode('contradiction');
    out.types = types;
  }
  out.enum = intersectEnums(list);
  if (out.enum !== undefined && out.enum.length === 0) return neverNode('contradiction');

  mergeStrings(list, out, notes, origin);
  mergeNumbers(list, out, notes, origin);
  mergeArrays(list, out, origin, ctx);
  mergeObjects(list, out, notes, origin, ctx);
  mergeAnnotations(list, out, mode);
  out.notes = mergeNotes(...list.map((n) => n.notes), notes);
  return tidy(stripUndefined(out));
}

function intersectEnums(list: readonly Node[]): JsonValue[] | undefined {
  let values: JsonValue[] | undefined;
  for (const n of list) {
    if (n.enum === undefined) continue;
    if (values === undefined) {
      values = [...n.enum];
    } else {
      const keys = new Set(n.enum.map(canonical));
      values = values.filter((v) => keys.has(canonical(v)));
    }
  }
  return values;
}

function maxOf(list: readonly Node[], key: 'minLength' | 'minimum' | 'exclusiveMinimum' | 'minItems' | 'minProperties'): number | undefined {
  const vals = list.map((n) => n[key]).filter((v): v is number => v !== undefined);
  return vals.length === 0 ? undefined : Math.max(...vals);
}

function minOf(list: readonly Node[], key: 'maxLength' | 'maximum' | 'exclusiveMaximum' | 'maxItems' | 'maxProperties'): number | undefined {
  const vals = list.map((n) => n[key]).filter((v): v is number => v !== undefined);
  return vals.length === 0 ? undefined : Math.min(...vals);
}

function mergeStrings(list: readonly Node[], out: Mutable<Node>, notes: IrNote[], origin: string): void {
  out.minLength = maxOf(list, 'minLength');
  out.maxLength = minOf(list, 'maxLength');
  // pitfall 20 / T16: keep the first pattern, never combine with lookaheads (RE2 hosts reject them)
  const patterns = [...new Set(list.map((n) => n.pattern).filter((p): p is string => p !== undefined))];
  if (patterns.length > 0) out.pattern = patterns[0];
  for (const p of patterns.slice(1)) notes.push(note('allOf-pattern', 'relaxed', TEXT.alsoMatch(p), origin, { family: 'string' }));
  const formats = [...new Set(list.map((n) => n.format).filter((f): f is string => f !== undefined))];
  if (formats.length === 1) out.format = formats[0];
  else if (formats.length > 1) notes.push(note('allOf-format', 'relaxed', TEXT.formatsAll(formats), origin, { family: 'string' }));
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

function mergeNumbers(list: readonly Node[], out: Mutable<Node>, notes: IrNote[], origin: string): void {
  out.minimum = maxOf(list, 'minimum');
  out.maximum = minOf(list, 'maximum');
  out.exclusiveMinimum = maxOf(list, 'exclusiveMinimum');
  out.exclusiveMaximum = minOf(list, 'exclusiveMaximum');
  let m: number | undefined;
  for (const n of list) {
    const v = n.multipleOf;
    if (v === undefined || v === m) continue;
    if (m === undefined) m = v;
    else if (Number.isInteger(m) && Number.isInteger(v) && Number.isSafeInteger((m / gcd(m, v)) * v)) m = (m / gcd(m, v)) * v;
    else if (Number.isInteger(m / v)) continue;
    else if (Number.isInteger(v / m)) m = v;
    else notes.push(note('allOf-multipleOf', 'relaxed', TEXT.alsoMultipleOf(v), origin, { family: 'number' }));
  }
  out.multipleOf = m;
}

function mergeArrays(list: readonly Node[], out: Mutable<Node>, origin: string, ctx: CompileContext): void {
  const items = list.map((n) => n.items).filter((n): n is Node => n !== undefined);
  if (items.length > 0) out.items = intersect(items, 'allOf', origin, ctx);
  out.minItems = maxOf(list, 'minItems');
  out.maxItems = minOf(list, 'maxItems');
  if (list.some((n) => n.uniqueItems)) out.uniqueItems = true;
}

function mergeObjects(list: readonly Node[], out: Mutable<Node>, notes: IrNote[], origin: string, ctx: CompileContext): void {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const n of list) for (const k of n.properties?.keys() ?? []) if (!seen.has(k)) (seen.add(k), names.push(k));
  if (list.some((n) => n.properties !== undefined)) {
    const props = new Map<string, Node>();
    for (const name of names) {
      ctx.budget.tick();
      const decls = list.map((n) => n.properties?.get(name)).filter((p): p is Node => p !== undefined);
      props.set(name, decls.length === 1 ? decls[0] : intersect(decls, 'allOf', origin, ctx));
    }
    out.properties = props;
  }
  const required = [...new Set(list.flatMap((n) => n.required ?? []))];
  if (required.length > 0) out.required = required;
  out.minProperties = maxOf(list, 'minProperties');
  out.maxProperties = minOf(list, 'maxProperties');
  // §4.4 additionalProperties (pitfall 9): members with neither properties nor AP are neutral
  const members = list.filter((n) => n.properties !== undefined || n.additionalProperties !== undefined);
  if (members.length === 0) return;
  if (members.every((n) => n.additionalProperties === false)) out.additionalProperties = false;
  else if (members.every((n) => n.additionalProperties !== undefined && n.additionalProperties !== false)) {
    const ap = intersect(members.map((n) => n.additionalProperties as Node), 'allOf', origin, ctx);
    if (!isAny(ap)) out.additionalProperties = ap.never !== undefined ? false : ap;
  }
  const restricting = members.filter((n) => n.additionalProperties !== undefined);
  if (restricting.length === 0) return;
  const conflicts = names.filter((name) => restricting.some((n) => !n.properties?.has(name)));
  if (conflicts.length > 0 || out.additionalProperties === undefined) {
    notes.push(note('allOf-additionalProperties', 'relaxed', TEXT.mixedClosedness(conflicts), origin, { family: 'object' }));
  }
}

function mergeAnnotations(list: readonly Node[], out: Mutable<Node>, mode: IntersectMode): void {
  const ordered = mode === 'allOf' ? list : [...list].reverse();
  if (mode === 'allOf') {
    const ds = [...new Set(list.map((n) => n.description).filter((d): d is string => d !== undefined && d !== ''))];
    if (ds.length > 0) out.description = ds.join(' ');
  } else {
    out.description = ordered.find((n) => n.description !== undefined)?.description;
  }
  out.default = ordered.find((n) => n.default !== undefined)?.default;
  out.discriminator = list.find((n) => n.discriminator !== undefined)?.discriminator;
  if (list.some((n) => n.tail)) out.tail = true;
}

/** Copies without undefined members. Never `delete`: it drops V8 objects into slow dictionary mode. */
export function stripUndefined<T extends object>(o: T): T {
  const out = {} as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as T;
}

function isBare(n: Node): boolean {
  return isAny(n) && n.notes.length === 0 && n.description === undefined && n.default === undefined && !n.tail && n.discriminator === undefined;
}
