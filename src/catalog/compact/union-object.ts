/**
 * The notes union()'s object part writes for lost structure (§4.5 step 4; the merge itself is `mergeObjectFamily`
 * in union.ts, which recurses into union()): discriminated unions (pitfall 18, T12) and "Exactly one of" input
 * sources (T11, T39). Nothing here calls union(), so union.ts -> union-object.ts is one way (issue 13: no cycles).
 */
import { canonical } from './json';
import { isAny, note, withNotes, type IrNote, type Node, type UnionKind } from './ir';
import { literal, TEXT } from './notes';

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

/**
 * Issue 16: "Exactly one of" holds for `oneOf` only when an instance carrying two branches' keys matches both
 * branches (and so fails oneOf). That is so when every branch is open and silent about the other branches'
 * required keys; a branch that is closed, bounds its property count, or declares another branch's key may reject
 * such an instance, which then matches one branch only and is valid: only "at least one" is true then.
 */
function exclusive(cs: readonly Node[], sets: ReadonlyArray<readonly string[]>): boolean {
  return cs.every(
    (c, i) =>
      c.additionalProperties === undefined &&
      c.maxProperties === undefined &&
      sets.every((s, j) => j === i || s.every((k) => admitsAsOther(c, cs[j], k))),
  );
}

/**
 * Whether branch `c` accepts, at key `k`, every value branch `other` accepts there: it leaves `k` undeclared, or
 * declares the very node `other` declares (the common case: both inherited it from the parent by distribution).
 */
function admitsAsOther(c: Node, other: Node, k: string): boolean {
  const mine = c.properties?.get(k);
  return mine === undefined || mine === other.properties?.get(k) || isAny(mine);
}

/** Writes what a merged object family lost into `notes` and onto the properties in `props`. */
export function describeVariants(
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
    const text = kind === 'oneOf' && exclusive(cs, sets) ? TEXT.exactlyOneOf(groups) : TEXT.atLeastOneOf(groups);
    notes.push(note('union-required', 'relaxed', text, origin, { family: 'object' }));
    return;
  }
  for (const name of names) {
    const n = cs.filter((c) => requires(c, name)).length;
    if (n > 0 && n < cs.length && props.has(name)) add(name, TEXT.requiredInSome());
  }
}
