/**
 * Array keywords -> IR (design/compact-view.md §4.6): tuples become `items` = union of the positions
 * (+ `maxItems` when closed) with a positional note (T27); `items: false` becomes `maxItems: 0` (T30);
 * `contains` is described, never kept.
 */
import { canonical, nonNegInt } from './json';
import { anyNode, isWorthEmitting, type AddNote, type Mutable, type Node } from './ir';
import { summarize } from './describe';
import { TEXT } from './notes';
import { union } from './union';
import { joinPointer } from './pointer';
import type { Compiler } from './context';
import type { RawObject } from './json';



/** A stable identity for comparing compiled positions (notes and annotations excluded). */
function shape(n: Node): string {
  return JSON.stringify(n, (k, v: unknown) => {
    if (k === 'notes' || k === 'description' || k === 'default' || k === 'origin') return undefined;
    if (v instanceof Map) return [...v.entries()];
    return v;
  }) + (n.enum ? canonical([...n.enum]) : '');
}

export function compileArrayPart(
  r: RawObject,
  out: Mutable<Node>,
  add: AddNote,
  loc: string,
  depth: number,
  canNest: boolean,
  c: Compiler,
): void {
  let maxItems = nonNegInt(r.maxItems);
  out.minItems = nonNegInt(r.minItems);
  if (r.uniqueItems === true) out.uniqueItems = true;
  if (canNest) {
    const rest = r.items === undefined ? anyNode() : c.compile(r.items, joinPointer(loc, 'items'), depth + 1);
    if (Array.isArray(r.prefixItems) && r.prefixItems.length > 0) {
      const positions = r.prefixItems.map((s, i) => c.compile(s, joinPointer(loc, 'prefixItems', String(i)), depth + 1));
      const closed = rest.never !== undefined;
      const members = closed ? positions : [...positions, rest];
      const merged = union(members, 'anyOf', loc, c.ctx);
      if (closed) maxItems = Math.min(maxItems ?? positions.length, positions.length);
      const shapes = new Set(members.map(shape));
      if (shapes.size > 1) {
        const parts = positions.map((p, i) => `${i}: ${summarize(p)}`);
        const later = closed ? '' : ` Later items: ${summarize(rest)}.`;
        add('tuple', 'relaxed', TEXT.position(parts) + later, { family: 'array' });
      }
      if (merged.never !== undefined) maxItems = 0;
      else if (isWorthEmitting(merged)) out.items = merged;
    } else if (rest.never !== undefined) {
      maxItems = 0;
    } else if (isWorthEmitting(rest)) {
      out.items = rest;
    }
    if (r.contains !== undefined && r.contains !== true) {
      const has = c.compile(r.contains, joinPointer(loc, 'contains'), depth + 1);
      const min = nonNegInt(r.minContains);
      const text = TEXT.contains(summarize(has)) + (min !== undefined && min !== 1 ? ` (at least ${min})` : '');
      add('contains', 'dropped', text, { family: 'array' });
    }
  }
  if (r.unevaluatedItems === false) add('unevaluated', 'dropped', TEXT.noOtherItems(), { family: 'array' });
  out.maxItems = maxItems;
}
