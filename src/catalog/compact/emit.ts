/**
 * IR -> JSON (design/compact-view.md §4.2 step 4): fold notes into descriptions (pre-order, capped per
 * node and per tool, §4.7), drop NEVER properties with a note (T15, T25, T30), declare undeclared
 * `required` names (T32), give typed arrays `items: {}` (T31), fixed key order, Object.fromEntries for
 * property maps (T46: integer-like names are still re-ordered by JS engines; documented caveat).
 */
import { toPlain } from './json';
import { note, tidy, type IrNote, type Node } from './ir';
import { appendSentences, foldNoteTexts, rankNotes, TEXT, type NoteBudget } from './notes';
import { escapeToken } from './pointer';
import type { CompactNote, CompactOptions, JsonObject, JsonType, JsonValue } from './types';

const PRIMARY: readonly JsonType[] = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];

export class Emitter {
  readonly notes: CompactNote[] = [];
  readonly budget: NoteBudget = { used: 0, exhausted: false };

  constructor(
    private readonly opts: CompactOptions,
    private readonly maxDepth: number,
  ) {}

  emit(input: Node, path: string, depth: number, isRoot = false): JsonObject {
    const n = this.applyTypeProfile(input);
    const origin = n.origin ?? '';
    const own: IrNote[] = [...n.notes];
    const canNest = depth < this.maxDepth;
    const children: Array<[string, Node]> = [];
    const required = [...(n.required ?? [])];
    for (const [name, p] of n.properties ?? []) {
      const isRequired = required.includes(name);
      if (p.never !== undefined) {
        if (isRequired) {
          children.push([name, { notes: [note('never', 'relaxed', TEXT.contradictoryRequired(name), p.origin ?? origin)] }]);
        } else {
          const text = p.never === 'contradiction' ? TEXT.contradictory(name) : TEXT.doNotProvide(name);
          own.push(note('never', 'dropped', text, p.origin ?? origin));
        }
      } else if (this.opts.truncation === 'prune' && p.tail && !isRequired) {
        own.push(note('prune', 'dropped', `${name}: ${TEXT.pruned()}`, p.origin ?? origin));
      } else {
        children.push([name, p]);
      }
    }
    if (canNest) {
      for (const name of required) {
        if (!children.some(([k]) => k === name)) {
          children.push([name, { notes: [note('undeclared-required', 'relaxed', TEXT.undeclared(), origin)] }]);
        }
      }
    }
    const folded = foldNoteTexts(
      rankNotes(own.filter((x) => !x.silent)).map((x) => x.text),
      this.opts.noteChars,
      this.opts.toolNoteChars,
      this.budget,
    );
    for (const x of own) this.notes.push({ path, origin: x.origin, rule: x.rule, action: x.action, text: x.text });
    const description = appendSentences(n.description, folded);

    const out: Array<[string, JsonValue]> = [];
    if (n.types !== undefined) out.push(['type', n.types.length === 1 ? n.types[0] : [...n.types]]);
    if (description !== '') out.push(['description', description]);
    if (n.enum !== undefined) out.push(['enum', n.enum.map(toPlain)]);
    for (const k of ['format', 'pattern', 'minLength', 'maxLength', 'minimum', 'exclusiveMinimum', 'maximum', 'exclusiveMaximum', 'multipleOf'] as const) {
      const v = n[k];
      if (v !== undefined) out.push([k, v]);
    }
    let maxItems = n.maxItems;
    const prunedItems = this.opts.truncation === 'prune' && n.items?.tail === true;
    const typedArray = canNest && n.types?.includes('array') === true;
    if (n.items !== undefined && n.items.never === undefined && !prunedItems) {
      // an empty child is `{}`: kept only where the typed-array rule would add it anyway (idempotence)
      const items = this.emit(n.items, `${path}/items`, depth + 1);
      if (Object.keys(items).length > 0 || typedArray) out.push(['items', items]);
    } else if (n.items !== undefined || typedArray) {
      out.push(['items', {}]);
      if (n.items !== undefined) maxItems = 0;
    }
    if (n.minItems !== undefined) out.push(['minItems', n.minItems]);
    if (maxItems !== undefined) out.push(['maxItems', maxItems]);
    if (n.uniqueItems) out.push(['uniqueItems', true]);
    if (isRoot || children.length > 0) {
      const props = children.map(([k, p]): [string, JsonValue] => [k, this.emit(p, `${path}/properties/${escapeToken(k)}`, depth + 1)]);
      out.push(['properties', Object.fromEntries(props) as JsonObject]);
    }
    if (required.length > 0 && (canNest || isRoot)) out.push(['required', required]);
    const ap = n.additionalProperties;
    if (ap === false) out.push(['additionalProperties', false]);
    else if (ap !== undefined) {
      const emitted = this.emit(ap, `${path}/additionalProperties`, depth + 1);
      if (Object.keys(emitted).length > 0) out.push(['additionalProperties', emitted]); // `{}` = absent
    }
    if (n.minProperties !== undefined) out.push(['minProperties', n.minProperties]);
    if (n.maxProperties !== undefined) out.push(['maxProperties', n.maxProperties]);
    if (n.default !== undefined) out.push(['default', toPlain(n.default.value)]);
    return Object.fromEntries(out) as JsonObject;
  }

  /** typeArrays "never" / "nullOnly" profiles (§4.5 step 7): a noted subset, off by default. */
  private applyTypeProfile(n: Node): Node {
    const mode = this.opts.typeArrays;
    if (mode === 'allow' || n.types === undefined || n.types.length <= 1) return n;
    const nonNull: JsonType[] = n.types.filter((t) => t !== 'null');
    if (mode === 'nullOnly' && nonNull.length <= 1) return n;
    const primary = PRIMARY.find((t) => nonNull.includes(t)) ?? n.types[0];
    const keep: JsonType[] = mode === 'nullOnly' && n.types.includes('null') ? [primary, 'null'] : [primary];
    const dropped = n.types.filter((t) => !keep.includes(t));
    const narrowed = tidy({ ...n, types: keep });
    const text = TEXT.typesNarrowed(keep.join(' or '), dropped.join(', '));
    return { ...narrowed, notes: [...narrowed.notes, note('typeArrays', 'dropped', text, n.origin ?? '')] };
  }
}
