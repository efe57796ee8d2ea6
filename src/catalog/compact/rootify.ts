/**
 * Root rules (design/compact-view.md §4.2 step 3, pitfall 16): the root is always `type: "object"`
 * with `properties`; root unions were already folded, a `$ref` root already inlined (T33, T36).
 * Narrowing the root to object is an allowed, noted subset (§4.1 exception 1).
 */
import { admitsType, mergeNotes, note, tidy, type IrNote, type Node } from './ir';
import { TEXT } from './notes';

export function rootify(n: Node): Node {
  const notes: IrNote[] = [];
  if (n.never !== undefined) {
    return { types: ['object'], properties: new Map(), notes: [note('root', 'relaxed', TEXT.rootNever(), '')] };
  }
  if (n.types !== undefined && !admitsType(n.types, 'object')) {
    notes.push(note('root', 'relaxed', TEXT.rootNotObject(n.types.join(', ')), ''));
    return {
      types: ['object'],
      properties: new Map(),
      ...(n.description !== undefined ? { description: n.description } : {}),
      notes: mergeNotes(n.notes.filter((x) => x.family === undefined), notes),
    };
  }
  const others = (n.types ?? []).filter((t) => t !== 'object');
  if (others.length > 0) notes.push(note('root', 'dropped', TEXT.rootNarrowed(others.join(', ')), '', { silent: true }));
  // issue 16: a typeless root accepted any JSON value; narrowing it is the same §4.1 exception 1, reported alike
  else if (n.types === undefined) notes.push(note('root', 'dropped', TEXT.rootTypeless(), '', { silent: true }));
  let out: Node = tidy({ ...n, types: ['object'], notes: mergeNotes(n.notes, notes) });
  if (out.never !== undefined) return rootify(out);
  if (out.enum !== undefined) {
    const { enum: _e, ...rest } = out;
    void _e;
    out = { ...rest, notes: mergeNotes(out.notes, [note('root', 'dropped', TEXT.rootEnum(), '')]) };
  }
  return out.properties === undefined ? { ...out, properties: new Map() } : out;
}
