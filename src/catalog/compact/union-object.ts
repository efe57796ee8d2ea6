/**
 * The object part of union(): properties = union of names (a shared name unions its schemas, T37),
 * required = intersection, additionalProperties false only if every branch is closed (§4.5 step 4).
 * Declaring a name taken from another branch is the G2 exception (§4.1). Lost structure is written
 * as notes: discriminated unions (pitfall 18, T12) and "Exactly one of" input sources (T11, T39).
 */
import { canonical } from './json';
import { anyNode, isAny, note, withNotes, type IrNote, type Mutable, type Node } from './ir';
import { literal, TEXT } from './notes';
import { union, type UnionKind } from './union';
import type { CompileContext } from './context';

export interface ObjectMerge {
  fields: Partial<Mutable<Node>>;
  notes: IrNote[];
}

export function mergeObjectFamily(cs: readonly Node[], kind: UnionKind, origin: string, ctx: CompileContext): ObjectMerge {
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

interface Discriminator {
  name: string;
  tags: string[];
}

/** A property declared by every branch with a distinct single literal, or named by `discriminator`. */
function findDiscriminator(cs: readonly Node[], names: readonly string[]): Discriminator | undefined {
  const hint = cs.find((c) => c.discriminator !== undefined)?.discriminator;
  const candidates = hint !== undefined ? [hint, ...names.filter((n) => n !== hint)] : names;
  for (const name of candidates) {
    const values = cs.map((c) => c.properties?.get(name)?.enum);
    if (!values.every((v) => v !== undefined && v.length === 1)) continue;
    const keys = values.map((v) => canonical(v![0]));
    if (new Set(keys).size !== keys.length) continue;
    return { name, tags: values.map((v) => literal(v![0])) };
  }
  return undefined;
}

function describeVariants(
  cs: readonly Node[],
  kind: UnionKind,
  names: readonly string[],
  common: readonly string[],
  props: Map<string, Node>,
  notes: IrNote[],
  origin: string,
): void {
  const add = (name: string, text: string) => {
    props.set(name, withNotes(props.get(name)!, [note('union-required', 'relaxed', text, origin, { family: 'object' })]));
  };
  const declares = (c: Node, name: string) => c.properties?.has(name) === true;
  const requires = (c: Node, name: string) => c.required?.includes(name) === true;
  const disc = findDiscriminator(cs, names);
  if (disc !== undefined) {
    const everywhere = (name: string) => cs.every((c) => declares(c, name));
    for (const name of names) {
      if (name === disc.name) continue;
      const idx = cs.map((_, i) => i);
      if (everywhere(name)) {
        const req = idx.filter((i) => requires(cs[i], name));
        if (req.length > 0 && req.length < cs.length) add(name, TEXT.requiredWhen(disc.name, req.map((i) => disc.tags[i])));
      } else {
        const decl = idx.filter((i) => declares(cs[i], name));
        const allReq = decl.every((i) => requires(cs[i], name));
        add(name, TEXT.onlyWhen(disc.name, decl.map((i) => disc.tags[i]), allReq));
      }
    }
    const variants = cs.map((c, i) => {
      const own = [...(c.properties?.keys() ?? [])].filter((k) => k !== disc.name && !everywhere(k));
      const fields = own.map((k) => (requires(c, k) ? `${k}*` : k));
      return fields.length > 0 ? `${disc.tags[i]} {${fields.join(', ')}}` : disc.tags[i];
    });
    notes.push(note('union-discriminator', 'merged', TEXT.variantsBy(disc.name, variants), origin, { family: 'object' }));
    return;
  }
  const sets = cs.map((c) => (c.required ?? []).filter((r) => !common.includes(r)));
  const disjoint = sets.every((s, i) => s.length > 0 && sets.every((t, j) => j === i || !s.some((x) => t.includes(x))));
  if (disjoint) {
    const groups = sets.map((s) => s.join(' + '));
    const text = kind === 'oneOf' ? TEXT.exactlyOneOf(groups) : TEXT.atLeastOneOf(groups);
    notes.push(note('union-required', 'relaxed', text, origin, { family: 'object' }));
    return;
  }
  for (const name of names) {
    const n = cs.filter((c) => requires(c, name)).length;
    if (n > 0 && n < cs.length && props.has(name)) add(name, TEXT.requiredInSome());
  }
}
