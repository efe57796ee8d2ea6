/**
 * Intermediate representation of a compacted schema node. It can only express what the compact view
 * may contain (no composition), so intersect/union/emit work on clean data and every step is a
 * superset-preserving transformation (design/compact-view.md §4.1 G2).
 */
import { FAMILIES, FAMILY_KEYS, type Family } from './keywords';
import { jsonTypeOf } from './json';
import type { JsonType, JsonValue, NoteAction } from './types';

export interface IrNote {
  rule: string;
  action: NoteAction;
  text: string;
  /** RFC 6901 pointer into the original document */
  origin: string;
  /** report-only: not folded into the description (narrowings and inlining, §4.1 exceptions) */
  silent?: boolean;
  /** the note describes this keyword family and disappears with it */
  family?: Family;
}

/** Why a node accepts nothing; decides the note its parent writes (§4.6, T15, T25, T30). */
export type NeverReason = 'false' | 'not' | 'contradiction';

/** The composition keyword a union folds: `oneOf` branches are described as "exactly one of" (§4.5). */
export type UnionKind = 'anyOf' | 'oneOf';

export interface Node {
  never?: NeverReason;
  types?: readonly JsonType[];
  enum?: readonly JsonValue[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  items?: Node;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  properties?: ReadonlyMap<string, Node>;
  required?: readonly string[];
  additionalProperties?: false | Node;
  minProperties?: number;
  maxProperties?: number;
  description?: string;
  default?: { value: JsonValue };
  notes: readonly IrNote[];
  /** a permissive stand-in for structure that was not expanded (recursion, depth, budget) */
  tail?: boolean;
  /** OpenAPI discriminator.propertyName, a hint for union folding (pitfall 18) */
  discriminator?: string;
  /** where the node was compiled from in the original (for report notes written at emission) */
  origin?: string;
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const FAMILY_TYPES: Readonly<Record<Family, readonly JsonType[]>> = {
  string: ['string'],
  number: ['number', 'integer'],
  array: ['array'],
  object: ['object'],
};

export function anyNode(notes: readonly IrNote[] = []): Node {
  return { notes };
}

export function neverNode(reason: NeverReason, notes: readonly IrNote[] = []): Node {
  return { never: reason, notes };
}

export function admitsType(types: readonly JsonType[] | undefined, t: JsonType): boolean {
  if (types === undefined) return true;
  if (types.includes(t)) return true;
  return t === 'integer' && types.includes('number');
}

function admitsValue(types: readonly JsonType[] | undefined, v: JsonValue): boolean {
  return admitsType(types, jsonTypeOf(v));
}

export function admitsFamily(types: readonly JsonType[] | undefined, f: Family): boolean {
  return types === undefined || FAMILY_TYPES[f].some((t) => types.includes(t));
}

export function hasFamily(n: Node, f: Family): boolean {
  switch (f) {
    case 'string':
      return n.minLength !== undefined || n.maxLength !== undefined || n.pattern !== undefined || n.format !== undefined;
    case 'number':
      return (
        n.minimum !== undefined ||
        n.maximum !== undefined ||
        n.exclusiveMinimum !== undefined ||
        n.exclusiveMaximum !== undefined ||
        n.multipleOf !== undefined
      );
    case 'array':
      return n.items !== undefined || n.minItems !== undefined || n.maxItems !== undefined || n.uniqueItems !== undefined;
    case 'object':
      return (
        n.properties !== undefined ||
        n.required !== undefined ||
        n.additionalProperties !== undefined ||
        n.minProperties !== undefined ||
        n.maxProperties !== undefined
      );
  }
}

/** True when the node constrains nothing (annotations and notes aside). */
export function isAny(n: Node): boolean {
  return (
    n.never === undefined &&
    n.types === undefined &&
    n.enum === undefined &&
    !hasFamily(n, 'string') &&
    !hasFamily(n, 'number') &&
    !hasFamily(n, 'array') &&
    !hasFamily(n, 'object')
  );
}

/**
 * A permissive child worth emitting: it constrains something or says something (a visible note, a
 * description or a default). `{}` with only report-only notes is dropped, so `items: {}` /
 * `additionalProperties: {}` never appear in one pass and vanish in the next (idempotence).
 */
export function isWorthEmitting(n: Node): boolean {
  return !isAny(n) || n.description !== undefined || n.default !== undefined || n.notes.some((x) => !x.silent);
}

export function withNotes(n: Node, extra: readonly IrNote[]): Node {
  return extra.length === 0 ? n : { ...n, notes: mergeNotes(n.notes, extra) };
}

/** Concatenates note lists, dropping repeated texts (deterministic: first appearance wins). */
export function mergeNotes(...lists: ReadonlyArray<readonly IrNote[]>): IrNote[] {
  const seen = new Set<string>();
  const out: IrNote[] = [];
  for (const list of lists) {
    for (const note of list) {
      const key = (note.silent ? 's:' : 'v:') + note.text;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(note);
      }
    }
  }
  return out;
}

/** `integer` is redundant next to `number`; order is first appearance. */
export function normalizeTypes(types: readonly JsonType[]): JsonType[] {
  const unique = [...new Set(types)];
  return unique.includes('number') ? unique.filter((t) => t !== 'integer') : unique;
}

export function intersectTypes(a: readonly JsonType[] | undefined, b: readonly JsonType[] | undefined): JsonType[] | undefined {
  if (a === undefined) return b === undefined ? undefined : [...b];
  if (b === undefined) return [...a];
  const out: JsonType[] = [];
  for (const t of a) {
    if (b.includes(t)) out.push(t);
    else if (t === 'number' && b.includes('integer')) out.push('integer');
    else if (t === 'integer' && b.includes('number')) out.push('integer');
  }
  return normalizeTypes(out);
}

/**
 * Removes keyword families that cannot apply (their type is excluded) and enum values of excluded
 * types; an empty type set or enum is NEVER. Exact: type-specific keywords only constrain their type.
 */
export function tidy(n: Node): Node {
  if (n.never !== undefined || (n.types === undefined && n.enum === undefined)) return n;
  let out: Mutable<Node> | undefined;
  const edit = (): Mutable<Node> => (out ??= { ...n });
  if (n.types !== undefined) {
    if (n.types.length === 0) return neverNode('contradiction', n.notes);
    for (const f of FAMILIES) {
      if (!admitsFamily(n.types, f) && (hasFamily(n, f) || n.notes.some((x) => x.family === f))) {
        const o = edit();
        for (const k of FAMILY_KEYS[f]) delete (o as Record<string, unknown>)[k];
        o.notes = o.notes.filter((x) => x.family !== f);
      }
    }
  }
  if (n.enum !== undefined) {
    const kept = n.enum.filter((v) => admitsValue(n.types, v));
    if (kept.length === 0) return neverNode('contradiction', n.notes);
    if (kept.length !== n.enum.length) edit().enum = kept;
  }
  return out ?? n;
}

export function note(rule: string, action: NoteAction, text: string, origin: string, extra?: Partial<IrNote>): IrNote {
  return { rule, action, text, origin, ...extra };
}

/** Records one note of what compilation relaxed, at the current location. */
export type AddNote = (rule: string, action: IrNote['action'], text: string, extra?: Partial<IrNote>) => void;
