/**
 * Conditional keywords (design/compact-view.md §4.6): `dependentSchemas`, `dependentRequired` and
 * `if/then/else`. Arm properties are declared as optional (the G2 exception lets C declare a name taken
 * from an arm), arm constraints and conditional `required` become notes (T23, T24, T26). `if` itself is
 * never compiled (pitfall 26): it is only read to label the notes.
 */
import { hasOwn, isObject, type RawObject } from './json';
import { admitsFamily, mergeNotes, note, withNotes, type IrNote, type Node } from './ir';
import { summarize, summarizeNonObject } from './describe';
import { list, literal, TEXT } from './notes';
import { joinPointer } from './pointer';
import { resolveShallow } from './negation';
import { union } from './union';
import type { Compiler, CompileContext } from './context';

interface Arm {
  node: Node;
  label: string;
}

export function applyConditionals(n: Node, r: RawObject, loc: string, depth: number, c: Compiler): Node {
  if (n.never !== undefined) return n;
  const arms: Arm[] = [];
  if (isObject(r.dependentSchemas)) {
    for (const key of Object.keys(r.dependentSchemas)) {
      const node = c.compile(r.dependentSchemas[key], joinPointer(loc, 'dependentSchemas', key), depth);
      arms.push({ node, label: TEXT.whenGiven(key) });
    }
  }
  if (r.if !== undefined && r.if !== true && (r.then !== undefined || r.else !== undefined)) {
    const cond = conditionText(r.if, c.ctx);
    if (r.then !== undefined) {
      arms.push({ node: c.compile(r.then, joinPointer(loc, 'then'), depth), label: cond ? `When ${cond}` : 'When the original condition holds' });
    }
    if (r.else !== undefined) {
      arms.push({ node: c.compile(r.else, joinPointer(loc, 'else'), depth), label: cond ? 'Otherwise' : 'When the original condition does not hold' });
    }
  }
  let out = arms.length > 0 ? applyArms(n, arms, loc, c.ctx) : n;
  if (isObject(r.dependentRequired) && admitsFamily(out.types, 'object')) out = applyDependentRequired(out, r.dependentRequired, loc);
  return out;
}

function applyDependentRequired(n: Node, deps: RawObject, loc: string): Node {
  const props = new Map(n.properties ?? []);
  const extra: IrNote[] = [];
  for (const key of Object.keys(deps)) {
    const v = deps[key];
    const others = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    if (others.length === 0) continue;
    const text = note('dependentRequired', 'dropped', TEXT.ifGiven(key, others), loc, { family: 'object' });
    if (props.has(key)) props.set(key, withNotes(props.get(key)!, [text]));
    else extra.push(text);
  }
  return { ...n, ...(props.size > 0 ? { properties: props } : {}), notes: mergeNotes(n.notes, extra) };
}

function applyArms(n: Node, arms: readonly Arm[], loc: string, ctx: CompileContext): Node {
  const objects = admitsFamily(n.types, 'object');
  const props = new Map(n.properties ?? []);
  const extra: IrNote[] = [];
  const mk = (text: string, family?: 'object') => note('conditional', 'dropped', text, loc, family ? { family } : {});
  const fresh = new Map<string, Array<{ schema: Node; label: string }>>();
  const requiredBy = new Map<string, string[]>();
  for (const { node: a, label } of arms) {
    if (a.never !== undefined) {
      extra.push(mk(TEXT.conditional(label, 'not allowed')));
      continue;
    }
    const rest = summarizeNonObject(a);
    if (rest !== '') extra.push(mk(TEXT.conditional(label, rest)));
    if (!objects) continue;
    if (a.additionalProperties === false) extra.push(mk(TEXT.conditional(label, 'no other fields'), 'object'));
    for (const [name, ps] of a.properties ?? []) {
      if (props.has(name) && !fresh.has(name)) {
        const s = summarize(ps);
        if (s !== 'any value') props.set(name, withNotes(props.get(name)!, [mk(TEXT.conditional(label, s), 'object')]));
      } else {
        fresh.set(name, [...(fresh.get(name) ?? []), { schema: ps, label }]);
      }
    }
    for (const req of a.required ?? []) requiredBy.set(req, [...(requiredBy.get(req) ?? []), label]);
  }
  for (const [name, decls] of fresh) {
    if (n.tail) {
      // unexpanded structure may declare the name itself: describe the arm instead of declaring it
      for (const d of decls) extra.push(mk(TEXT.conditional(d.label, `${name}: ${summarize(d.schema)}`), 'object'));
      continue;
    }
    const schema = decls.length === 1 ? decls[0].schema : union(decls.map((d) => d.schema), 'anyOf', loc, ctx);
    const labels = decls.map((d) => d.label);
    const reqLabels = requiredBy.get(name) ?? [];
    const notes: IrNote[] = [];
    if (decls.length === 1) {
      notes.push(mk(TEXT.onlyIf(labels[0], reqLabels.includes(labels[0])), 'object'));
    } else {
      for (const d of decls) notes.push(mk(TEXT.conditional(d.label, summarize(d.schema)), 'object'));
    }
    props.set(name, withNotes(schema, notes));
    requiredBy.set(name, reqLabels.filter((l) => decls.length !== 1 || l !== labels[0]));
  }
  for (const [name, labels] of requiredBy) {
    for (const label of labels) {
      if (props.has(name)) props.set(name, withNotes(props.get(name)!, [mk(TEXT.conditional(label, 'required'), 'object')]));
      else extra.push(mk(TEXT.conditional(label, `${name} is required`), 'object'));
    }
  }
  return { ...n, ...(props.size > 0 ? { properties: props } : {}), notes: mergeNotes(n.notes, extra) };
}

/** "country = US", "kind is one of a, b", "card is given" — from the raw `if`, else undefined. */
function conditionText(rawIf: unknown, ctx: CompileContext): string | undefined {
  const raw = resolveShallow(rawIf, ctx);
  if (!isObject(raw)) return undefined;
  const parts: string[] = [];
  const named = new Set<string>();
  if (isObject(raw.properties)) {
    for (const k of Object.keys(raw.properties)) {
      const s = resolveShallow(raw.properties[k], ctx);
      if (!isObject(s)) continue;
      if (hasOwn(s, 'const')) parts.push(`${k} = ${literal(s.const as never)}`);
      else if (Array.isArray(s.enum)) parts.push(`${k} is one of ${list(s.enum.map((v) => literal(v as never)), 5)}`);
      else if (typeof s.pattern === 'string') parts.push(`${k} matches /${s.pattern}/`);
      else continue;
      named.add(k);
    }
  }
  if (Array.isArray(raw.required)) {
    for (const k of raw.required) if (typeof k === 'string' && !named.has(k)) parts.push(`${k} is given`);
  }
  if (parts.length === 0) return undefined;
  const text = parts.join(' and ');
  return text.length > 120 ? text.slice(0, 119) + '…' : text;
}
