/**
 * patternProperties (design/compact-view.md pitfall 19, §4.6, T21/T22): mapping it straight to
 * additionalProperties is wrong for open objects. Rule: declared properties whose name matches get the
 * pattern schema intersected in (exact); `additionalProperties := union(patternSchemas…, AP_orig)` where
 * a missing AP_orig means true, so an open object stays open. Each pattern is described in a note.
 */
import { isObject, type RawObject } from './json';
import { admitsFamily, isAny, mergeNotes, neverNode, note, type IrNote, type Node } from './ir';
import { summarize } from './describe';
import { intersect } from './intersect';
import { TEXT } from './notes';
import { joinPointer } from './pointer';
import { union } from './union';
import type { Compiler } from './context';

/** Nested quantifiers like (a+)+ can backtrack exponentially; such patterns are not run at all. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{?]/;

function compilePattern(source: string): RegExp | undefined {
  if (source.length > 512 || NESTED_QUANTIFIER.test(source)) return undefined;
  try {
    return new RegExp(source, 'u');
  } catch {
    return undefined;
  }
}

export function applyPatternProperties(n: Node, r: RawObject, loc: string, depth: number, c: Compiler): Node {
  const pp = r.patternProperties;
  if (n.never !== undefined || !isObject(pp) || Object.keys(pp).length === 0) return n;
  if (!admitsFamily(n.types, 'object')) return n;
  if (depth >= c.ctx.maxDepth) return withoutAdditional(n); // children cut at the cap: stay a superset
  const props = new Map(n.properties ?? []);
  const notes: IrNote[] = [];
  const schemas: Node[] = [];
  for (const source of Object.keys(pp)) {
    const s = c.compile(pp[source], joinPointer(loc, 'patternProperties', source), depth + 1);
    schemas.push(s);
    const re = compilePattern(source);
    let valid = true;
    try {
      new RegExp(source, 'u');
    } catch {
      valid = false;
    }
    const summary = summarize(s);
    notes.push(
      note('patternProperties', 'relaxed', valid ? TEXT.keysMatching(source, summary) : TEXT.keysMatchingInvalid(source, summary), loc, {
        family: 'object',
      }),
    );
    if (re === undefined) continue;
    for (const [name, p] of props) {
      if (name.length <= 256 && re.test(name)) props.set(name, intersect([p, s], 'allOf', loc, c.ctx));
    }
  }
  let ap = n.additionalProperties;
  if (ap !== undefined) {
    const merged = union([...schemas, ap === false ? neverNode('false') : ap], 'anyOf', loc, c.ctx);
    ap = merged.never !== undefined ? false : isAny(merged) ? undefined : merged;
  }
  const out: Node = { ...n, notes: mergeNotes(n.notes, notes), ...(props.size > 0 ? { properties: props } : {}) };
  return ap === undefined ? withoutAdditional(out) : { ...out, additionalProperties: ap };
}

function withoutAdditional(n: Node): Node {
  const { additionalProperties: _drop, ...rest } = n;
  void _drop;
  return rest;
}
