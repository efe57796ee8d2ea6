/**
 * union(list) for `anyOf` / `oneOf` (design/compact-view.md §4.5): never pick one branch (pitfall 10),
 * merge them into one node whose type array carries each type's keywords side by side. This is exact
 * per type because type-specific keywords only constrain their own type (T17, T38); within a type the
 * merge is the loosest bound (a superset). Literal unions become `enum` (T18), null joins the enum.
 */
import { numberParts, summarize } from './describe';
import {
  admitsFamily,
  admitsType,
  anyNode,
  isAny,
  isWorthEmitting,
  mergeNotes,
  neverNode,
  normalizeTypes,
  note,
  tidy,
  type IrNote,
  type Mutable,
  type Node,
  type UnionKind,
} from './ir';
import { stripUndefined } from './intersect';
import { jsonTypeOf, uniqueValues } from './json';
import { typesOfValues } from './types-parse';
import type { JsonValue } from './types';
import { TEXT } from './notes';
import { describeVariants } from './union-object';
import type { CompileContext } from './context';

export function union(nodes: readonly Node[], kind: UnionKind, origin: string, ctx: CompileContext): Node {
  ctx.budget.tick(nodes.length);
  const live = nodes.filter((n) => n.never === undefined);
  if (live.length === 0) return neverNode(nodes[0]?.never ?? 'contradiction');
  if (live.length === 1 || live.every((n) => n === live[0])) return live[0];
  const notes: IrNote[] = [];
  const out: Mutable<Node> = { notes: [] };
  mergeAnnotations(live, out, notes, origin);
  if (live.some(isAny)) {
    // any branch accepting everything makes the union accept everything (§4.5 step 1)
    out.notes = mergeNotes(...live.map((n) => n.notes), notes);
    return stripUndefined(out);
  }
  if (!live.some((n) => n.types === undefined)) out.types = normalizeTypes(live.flatMap((n) => n.types!));
  const enumerated = live.every((n) => n.enum !== undefined || n.types!.every((t) => t === 'null'));
  if (enumerated) out.enum = uniqueValues(live.flatMap((n) => n.enum ?? [null]));
  else noteLostLiterals(live, notes, origin);
  const contributors = (f: 'string' | 'number' | 'array' | 'object') => live.filter((n) => admitsFamily(n.types, f));
  const stringLost = noteFamilyVariants(contributors('string'), 'string', notes, origin);
  const numberLost = noteFamilyVariants(contributors('number'), 'number', notes, origin);
  mergeStringFamily(contributors('string'), out, stringLost ? [] : notes, origin);
  mergeNumberFamily(contributors('number'), out, numberLost ? [] : notes, origin);
  mergeArrayFamily(contributors('array'), out, origin, ctx);
  const objects = contributors('object');
  if (objects.length > 0) {
    const merged = mergeObjectFamily(objects, kind, origin, ctx);
    Object.assign(out, merged.fields);
    notes.push(...merged.notes);
  }
  out.notes = mergeNotes(...live.map((n) => n.notes), notes);
  return tidy(stripUndefined(out));
}

const isNullOnly = (n: Node) => n.types !== undefined && n.types.every((t) => t === 'null');

/**
 * Issue 16: an `enum` survives a union only when every branch is enumerated (a generic keyword constrains every
 * type). When some branch is not (`1 | -1 | "asc" | "desc" | object`), the literals of the types that ONLY
 * enumerated branches contribute are written as a note instead of vanishing. Literals of a type that another
 * branch also constrains are described by noteFamilyVariants; a type another branch leaves open lost nothing.
 */
function noteLostLiterals(live: readonly Node[], notes: IrNote[], origin: string): void {
  const covered = (v: JsonValue) => {
    const t = jsonTypeOf(v);
    return live.every((n) => !admitsType(n.types, t) || n.enum !== undefined || isNullOnly(n));
  };
  const values = uniqueValues(live.flatMap((n) => n.enum ?? [])).filter((v) => v !== null && covered(v));
  if (values.length === 0) return;
  const types = typesOfValues(values);
  notes.push(note('union-literals', 'relaxed', TEXT.literalsOf(types.join(' or '), values), origin));
}

/** One branch's constraints of one keyword family, as a summary without the type ("matching /^a/", "≥ 10"). */
function familySummary(n: Node, family: 'string' | 'number'): string {
  const values = n.enum?.filter((v) => (family === 'string' ? typeof v === 'string' : typeof v === 'number'));
  const part: Node =
    family === 'string'
      ? { notes: [], enum: values, pattern: n.pattern, format: n.format, minLength: n.minLength, maxLength: n.maxLength }
      : { notes: [], enum: values, minimum: n.minimum, maximum: n.maximum, exclusiveMinimum: n.exclusiveMinimum, exclusiveMaximum: n.exclusiveMaximum, multipleOf: n.multipleOf };
  return summarize(stripUndefined(part));
}

/**
 * Issue 16: within one type the merge keeps a keyword only when every branch has it, so a pattern-constrained
 * string next to a string enum kept neither, silently. When every contributing branch constrains the family and
 * an enum or pattern/format held by only some of them is lost, the alternatives are described instead (fixed
 * wording). Returns true when it wrote the note (the finer per-keyword notes would then repeat it).
 */
function noteFamilyVariants(cs: readonly Node[], family: 'string' | 'number', notes: IrNote[], origin: string): boolean {
  if (cs.length < 2) return false;
  const some = (f: (n: Node) => boolean) => cs.some(f) && !cs.every(f);
  const lost = some((n) => n.enum !== undefined) || (family === 'string' && (some((n) => n.pattern !== undefined) || some((n) => n.format !== undefined)));
  if (!lost) return false;
  const parts = [...new Set(cs.map((n) => familySummary(n, family)))];
  if (parts.includes('any value')) return false; // one branch leaves the family open: the merge lost nothing
  const label = family === 'string' ? 'Strings' : 'Numbers';
  notes.push(note('union-family', 'relaxed', TEXT.familyVariants(label, parts), origin, { family }));
  return true;
}

function all<T>(values: ReadonlyArray<T | undefined>): values is readonly T[] {
  return values.every((v) => v !== undefined);
}

function mergeAnnotations(live: readonly Node[], out: Mutable<Node>, notes: IrNote[], origin: string): void {
  const ds = [...new Set(live.map((n) => n.description).filter((d): d is string => d !== undefined && d !== ''))];
  if (ds.length === 1) out.description = ds[0];
  else if (ds.length > 1) notes.push(note('union-description', 'merged', TEXT.variantDescriptions(ds), origin));
  out.default = live.find((n) => n.default !== undefined)?.default;
  out.discriminator = live.find((n) => n.discriminator !== undefined)?.discriminator;
  if (live.some((n) => n.tail)) out.tail = true;
}

function mergeStringFamily(cs: readonly Node[], out: Mutable<Node>, notes: IrNote[], origin: string): void {
  if (cs.length === 0) return;
  const minL = cs.map((n) => n.minLength);
  const maxL = cs.map((n) => n.maxLength);
  if (all(minL)) out.minLength = Math.min(...minL);
  if (all(maxL)) out.maxLength = Math.max(...maxL);
  const patterns = cs.map((n) => n.pattern);
  if (all(patterns)) {
    const distinct = [...new Set(patterns)];
    if (distinct.length === 1) out.pattern = distinct[0];
    else notes.push(note('union-pattern', 'relaxed', TEXT.matchOneOf(distinct), origin, { family: 'string' }));
  }
  const formats = cs.map((n) => n.format);
  if (all(formats)) {
    const distinct = [...new Set(formats)];
    if (distinct.length === 1) out.format = distinct[0];
    else notes.push(note('union-format', 'relaxed', TEXT.formats(distinct), origin, { family: 'string' }));
  }
}

type Bound = { value: number; exclusive: boolean } | undefined;

function lowerOf(n: Node): Bound {
  const { minimum: m, exclusiveMinimum: x } = n;
  if (m === undefined && x === undefined) return undefined;
  if (x !== undefined && (m === undefined || x >= m)) return { value: x, exclusive: true };
  return { value: m!, exclusive: false };
}

function upperOf(n: Node): Bound {
  const { maximum: m, exclusiveMaximum: x } = n;
  if (m === undefined && x === undefined) return undefined;
  if (x !== undefined && (m === undefined || x <= m)) return { value: x, exclusive: true };
  return { value: m!, exclusive: false };
}

/** Loosest bound of the union: the smallest lower / largest upper; a tie prefers the inclusive one. */
function loosest(bounds: readonly Bound[], pick: (a: number, b: number) => boolean): Bound {
  if (!all(bounds)) return undefined;
  let best = bounds[0];
  for (const b of bounds.slice(1)) {
    if (pick(b.value, best.value) || (b.value === best.value && !b.exclusive)) best = b;
  }
  return best;
}

function mergeNumberFamily(cs: readonly Node[], out: Mutable<Node>, notes: IrNote[], origin: string): void {
  if (cs.length === 0) return;
  const lower = loosest(cs.map(lowerOf), (a, b) => a < b);
  const upper = loosest(cs.map(upperOf), (a, b) => a > b);
  if (lower !== undefined) out[lower.exclusive ? 'exclusiveMinimum' : 'minimum'] = lower.value;
  if (upper !== undefined) out[upper.exclusive ? 'exclusiveMaximum' : 'maximum'] = upper.value;
  const ms = cs.map((n) => n.multipleOf);
  if (all(ms)) {
    const distinct = [...new Set(ms)];
    if (distinct.length === 1) out.multipleOf = distinct[0];
    else notes.push(note('union-multipleOf', 'relaxed', TEXT.multipleOfOneOf(distinct), origin, { family: 'number' }));
  }
  // integer merges into number when both occur (§4.5 step 4): describe what each variant allowed
  const isInt = (n: Node) => n.types !== undefined && n.types.includes('integer') && !n.types.includes('number');
  if (cs.some(isInt) && cs.some((n) => !isInt(n))) {
    const parts = [...new Set(cs.map((n) => [isInt(n) ? 'integer' : 'number', ...numberParts(n)].join(' ')))];
    notes.push(note('union-integer', 'relaxed', TEXT.numberVariants(parts), origin, { family: 'number' }));
  }
}

function mergeArrayFamily(cs: readonly Node[], out: Mutable<Node>, origin: string, ctx: CompileContext): void {
  if (cs.length === 0) return;
  const items = union(
    cs.map((n) => n.items ?? anyNode()),
    'anyOf',
    origin,
    ctx,
  );
  if (isWorthEmitting(items)) out.items = items;
  const minI = cs.map((n) => n.minItems);
  const maxI = cs.map((n) => n.maxItems);
  if (all(minI)) out.minItems = Math.min(...minI);
  if (all(maxI)) out.maxItems = Math.max(...maxI);
  if (cs.every((n) => n.uniqueItems)) out.uniqueItems = true;
}

/**
 * The object part of union(): properties = union of names (a shared name unions its schemas, T37),
 * required = intersection, additionalProperties false only if every branch is closed (§4.5 step 4).
 * Declaring a name taken from another branch is the G2 exception (§4.1). Lost structure is written
 * as notes (describeVariants, union-object.ts).
 */
interface ObjectMerge {
  fields: Partial<Mutable<Node>>;
  notes: IrNote[];
}

function mergeObjectFamily(cs: readonly Node[], kind: UnionKind, origin: string, ctx: CompileContext): ObjectMerge {
  const notes: IrNote[] = [];
  const fields: Partial<Mutable<Node>> = {};
  const names: string[] = [];
  const seen = new Set<string>();
  for (const c of cs) for (const k of c.properties?.keys() ?? []) if (!seen.has(k)) (seen.add(k), names.push(k));
  const props = new Map<string, Node>();
  for (const name of names) {
    ctx.budget.tick();
    const schemas: Node[] = [];
    for (const c of cs) {
      const p = c.properties?.get(name);
      if (p !== undefined) schemas.push(p);
      else if (c.additionalProperties !== undefined && c.additionalProperties !== false) schemas.push(c.additionalProperties);
      // a tail stands for structure that was not expanded: it may declare this name, so no G2 shortcut
      else if (c.tail && c.additionalProperties === undefined) schemas.push(anyNode());
    }
    props.set(name, schemas.length === 1 ? schemas[0] : union(schemas, 'anyOf', origin, ctx));
  }
  const reqOf = (c: Node): readonly string[] => c.required ?? [];
  const common = reqOf(cs[0]).filter((r) => cs.every((c) => reqOf(c).includes(r)));
  if (common.length > 0) fields.required = common;
  if (cs.every((c) => c.additionalProperties === false)) fields.additionalProperties = false;
  else if (cs.every((c) => c.additionalProperties !== undefined)) {
    const aps = cs.map((c) => c.additionalProperties).filter((a): a is Node => a !== undefined && a !== false);
    const ap = union(aps, 'anyOf', origin, ctx);
    if (!isAny(ap)) fields.additionalProperties = ap;
  }
  const minP = cs.map((c) => c.minProperties);
  const maxP = cs.map((c) => c.maxProperties);
  if (minP.every((v) => v !== undefined)) fields.minProperties = Math.min(...(minP as number[]));
  if (maxP.every((v) => v !== undefined)) fields.maxProperties = Math.max(...(maxP as number[]));
  if (cs.length >= 2) describeVariants(cs, kind, names, common, props, notes, origin);
  if (props.size > 0) fields.properties = props;
  return { fields, notes };
}
