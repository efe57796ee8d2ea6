/**
 * compileBase: every non-composition keyword of one schema object -> IR (design/compact-view.md §4.2
 * steps 1, 2, 8). Children are compiled through the driver, one level deeper. Composition ($ref,
 * allOf, anyOf, oneOf) and the parked keywords (patternProperties, dependent*, if/then/else, not) are
 * handled by node.ts / the step modules.
 */
import { canonical, hasOwn, isObject, nonNegInt, uniqueValues, type RawObject } from './json';
import { admitsFamily, note, type AddNote, type IrNote, type Mutable, type Node } from './ir';
import { stripUndefined } from './intersect';
import { TEXT } from './notes';
import { parseTypes, typesOfValues } from './types-parse';
import { compileArrayPart } from './base-array';
import { compileObjectPart } from './base-object';
import { BANNED_KEYWORDS, type Family } from './keywords';
import type { Compiler } from './context';
import type { JsonType, JsonValue } from './types';

/** Keywords whose presence means the node has children a depth cut would lose. */
const CHILD_KEYWORDS = ['properties', 'patternProperties', 'items', 'prefixItems', 'contains', 'dependentSchemas', 'then', 'else'];

export function compileBase(r: RawObject, loc: string, depth: number, c: Compiler): Node {
  const { ctx } = c;
  const notes: IrNote[] = [];
  const out: Mutable<Node> = { notes: [] };
  const add = (rule: string, action: IrNote['action'], text: string, extra?: Partial<IrNote>) =>
    notes.push(note(rule, action, text, loc, extra));

  const parsed = parseTypes(r);
  if (parsed.invalid) add('invalid', 'relaxed', TEXT.invalidKeyword('type'));
  out.types = parsed.types;
  noteIgnoredStructure(r, parsed.types, add);
  compileEnum(r, out, add, ctx.opts.maxEnum);
  ctx.budget.addBytes(out.enum === undefined ? 0 : JSON.stringify(out.enum).length);

  compileStringPart(r, out, add, ctx.opts.formats);
  compileNumberPart(r, out);

  const canNest = depth < ctx.maxDepth;
  const hasChildren =
    CHILD_KEYWORDS.some((k) => r[k] !== undefined && r[k] !== true && !(isObject(r[k]) && Object.keys(r[k]).length === 0)) ||
    isObject(r.additionalProperties);
  if (!canNest && hasChildren) {
    ctx.truncated = true;
    out.tail = true;
    add('depth', 'truncated', TEXT.depthCap(ctx.maxDepth));
  }
  compileArrayPart(r, out, add, loc, depth, canNest, c);
  compileObjectPart(r, out, add, loc, depth, canNest, c);
  compileAnnotations(r, out, add);
  ctx.budget.addBytes((out.description?.length ?? 0) + 16);
  out.notes = notes;
  return stripUndefined(out);
}

/** Structural keywords that a declared type makes inert (`items` under `type: object`, issue 16). */
const STRUCTURAL: ReadonlyArray<readonly [string, Family]> = [
  ['items', 'array'],
  ['prefixItems', 'array'],
  ['properties', 'object'],
];

/**
 * Issue 16 / pitfall 21: malformed input is kept where harmless or noted. `items` on a node typed object changes
 * nothing a validator checks, but it shows what the author meant, so its removal is said instead of silent.
 */
function noteIgnoredStructure(r: RawObject, types: readonly JsonType[] | undefined, add: AddNote): void {
  if (types === undefined) return;
  for (const [k, family] of STRUCTURAL) {
    const v = r[k];
    const present = Array.isArray(v) ? v.length > 0 : isObject(v) && Object.keys(v).length > 0;
    if (present && !admitsFamily(types, family)) add('ignored-keyword', 'dropped', TEXT.ignoredForType(k, types.join(' or ')));
  }
}

function compileEnum(r: RawObject, out: Mutable<Node>, add: AddNote, maxEnum: number): void {
  let values: JsonValue[] | undefined;
  if (hasOwn(r, 'enum')) {
    if (Array.isArray(r.enum)) values = uniqueValues(r.enum as JsonValue[]);
    else add('invalid', 'relaxed', TEXT.invalidKeyword('enum'));
  }
  // const => enum [v] (§4.2 step 8); both present: their intersection
  if (hasOwn(r, 'const')) {
    const c = r.const as JsonValue;
    values = values === undefined ? [c] : values.filter((v) => canonical(v) === canonical(c));
  }
  if (values !== undefined && values.length > maxEnum) {
    // T43: too many values for the targets; keep (or infer) the type, describe the values
    out.types ??= typesOfValues(values);
    add('enum-size', 'relaxed', TEXT.bigEnum(values.length, values.slice(0, 5)));
    values = undefined;
  }
  out.enum = values;
}


function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function compileStringPart(r: RawObject, out: Mutable<Node>, add: AddNote, formats: readonly string[]): void {
  out.minLength = nonNegInt(r.minLength);
  out.maxLength = nonNegInt(r.maxLength);
  if (typeof r.pattern === 'string') {
    // untrusted regex: compile with the `u` flag as Ajv does; an invalid one is described, not kept
    try {
      new RegExp(r.pattern, 'u');
      out.pattern = r.pattern;
    } catch {
      add('pattern', 'dropped', TEXT.invalidPattern(r.pattern), { family: 'string' });
    }
  }
  if (typeof r.format === 'string') {
    // T34: a format outside the allowlist is dropped and described; the JSON type never changes
    if (formats.includes(r.format)) out.format = r.format;
    else add('format', 'dropped', TEXT.format(r.format), { family: 'string' });
  }
}

function compileNumberPart(r: RawObject, out: Mutable<Node>): void {
  out.minimum = finite(r.minimum);
  out.maximum = finite(r.maximum);
  out.exclusiveMinimum = finite(r.exclusiveMinimum);
  out.exclusiveMaximum = finite(r.exclusiveMaximum);
  const m = finite(r.multipleOf);
  out.multipleOf = m !== undefined && m > 0 ? m : undefined;
}

const BANNED_OR_DEFS: ReadonlySet<string> = new Set([...BANNED_KEYWORDS, '$defs', 'definitions']);

/** Gemini parses `$ref`-like keys inside defaults (§4.2 step 8): such a default is dropped. */
function holdsSchemaKeys(v: unknown, depth = 0): boolean {
  if (depth > 32) return true;
  if (Array.isArray(v)) return v.some((x) => holdsSchemaKeys(x, depth + 1));
  if (!isObject(v)) return false;
  return Object.keys(v).some((k) => BANNED_OR_DEFS.has(k) || holdsSchemaKeys(v[k], depth + 1));
}

function compileAnnotations(r: RawObject, out: Mutable<Node>, add: AddNote): void {
  if (typeof r.description === 'string' && r.description !== '') out.description = r.description;
  // T35: title becomes the description only when there is none; a real description always wins
  else if (typeof r.title === 'string' && r.title.trim() !== '') out.description = r.title;
  if (hasOwn(r, 'default')) {
    if (holdsSchemaKeys(r.default)) add('default', 'dropped', TEXT.defaultDropped(), { silent: true });
    else out.default = { value: r.default as JsonValue };
  }
  if (r.deprecated === true) add('deprecated', 'dropped', TEXT.deprecated());
  if (isObject(r.discriminator) && typeof r.discriminator.propertyName === 'string') {
    out.discriminator = r.discriminator.propertyName;
  }
}
