/**
 * Per-provider profiles of the compact view (issue 16): a profile is a DECLARED rule table applied after the
 * neutral compactor. Each rule says what the provider refuses (`check`, also the conformance checker of the
 * tests) and how the neutral output is rewritten to pass (`fix`), citing the provider's documentation. Every
 * relaxation a fix makes is a note in the fixed wording of ../notes.ts, appended to the node's description (the
 * model reads it) and recorded in the machine-readable report, exactly as the neutral compactor does (§4.7).
 * Pure and total on the neutral compactor's output: plain JSON, `properties` / `items` / `additionalProperties`
 * are the only subschema positions there (emit.ts).
 */
import { foldNoteTexts, appendSentences, type NoteBudget } from '../notes';
import { escapeToken } from '../pointer';
import { DEFAULT_OPTIONS, type CompactNote, type JsonObject, type JsonValue, type NoteAction } from '../types';

export const PROFILE_NAMES = ['gemini', 'openai', 'anthropic'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export function isProfileName(v: unknown): v is ProfileName {
  return typeof v === 'string' && (PROFILE_NAMES as readonly string[]).includes(v);
}

/** Where a node sits: its pointer into the (neutral and profile) compact schema, and its nesting level (root 1). */
export interface At {
  readonly path: string;
  readonly isRoot: boolean;
  readonly depth: number;
}

/** What a fix tells the engine it relaxed. `visible: false` is report-only (an exact rewrite). */
type NoteSink = (text: string, action?: NoteAction, visible?: boolean) => void;

export interface NodeRule {
  /** `<profile>.<rule>`: the report's `rule` of every note the fix writes */
  readonly id: string;
  /** the provider's documentation the rule is taken from */
  readonly source: string;
  /** why a node breaks the rule, or undefined when it does not */
  check(node: JsonObject, at: At): string | undefined;
  /** the node rewritten to pass `check`; absent for a rule the profile cannot repair (reported, never hidden) */
  fix?(node: JsonObject, at: At, note: NoteSink): JsonObject;
}

export interface ProfileTable {
  readonly name: ProfileName;
  /** the provider's rule for a function (tool) name */
  readonly functionName: { readonly pattern: RegExp; readonly source: string };
  /** applied in order at every node, parent before children */
  readonly nodeRules: readonly NodeRule[];
}

export interface Violation {
  readonly path: string;
  readonly rule: string;
  readonly message: string;
}

export const isObj = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The node's types as a list (`type` may be a string or an array in the neutral view). */
export function typesOf(node: JsonObject): string[] | undefined {
  const t = node.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return undefined;
}

/** Calls `visit` for every schema node, parent first. */
export function walk(schema: JsonObject, visit: (node: JsonObject, at: At) => void, at: At = { path: '', isRoot: true, depth: 1 }): void {
  visit(schema, at);
  for (const [child, path] of children(schema, at.path)) walk(child, visit, { path, isRoot: false, depth: at.depth + 1 });
}

function children(node: JsonObject, path: string): Array<[JsonObject, string]> {
  const out: Array<[JsonObject, string]> = [];
  if (isObj(node.properties)) for (const k of Object.keys(node.properties)) if (isObj(node.properties[k])) out.push([node.properties[k] as JsonObject, `${path}/properties/${escapeToken(k)}`]);
  if (isObj(node.items)) out.push([node.items, `${path}/items`]);
  if (isObj(node.additionalProperties)) out.push([node.additionalProperties, `${path}/additionalProperties`]);
  return out;
}

/** Every violation of the table's rules in `schema` (the per-profile checker of the tests and the bench). */
export function violations(schema: JsonObject, rules: readonly NodeRule[]): Violation[] {
  const out: Violation[] = [];
  walk(schema, (node, at) => {
    for (const r of rules) {
      const message = r.check(node, at);
      if (message !== undefined) out.push({ path: at.path, rule: r.id, message });
    }
  });
  return out;
}

export interface Rewritten {
  /** the input object itself when no rule had anything to fix (callers then reuse what they hold for it) */
  readonly schema: JsonObject;
  readonly notes: CompactNote[];
  /** the descriptions the profile wrote (the neutral text plus its notes): the only strings new in `schema` */
  readonly texts: string[];
}

/**
 * Applies the rules' fixes at every node (parent first, then its children, so a parent may prepare a child, as
 * OpenAI's optional-to-nullable does) and folds each node's visible notes into its description under the same
 * per-node and per-tool caps as the neutral view (pitfall 27). Profile notes point into the compact schema:
 * `path` and `origin` are both that pointer (the neutral view's own report keeps the original's pointers).
 */
export function rewrite(schema: JsonObject, rules: readonly NodeRule[]): Rewritten {
  const notes: CompactNote[] = [];
  const budget: NoteBudget = { used: 0, exhausted: false };
  let fixed = 0;
  const texts: string[] = [];
  const visit = (input: JsonObject, at: At): JsonObject => {
    let node = input;
    const visible: string[] = [];
    for (const r of rules) {
      if (r.fix === undefined || r.check(node, at) === undefined) continue;
      fixed++;
      node = r.fix(node, at, (text, action = 'relaxed', show = true) => {
        notes.push({ path: at.path, origin: at.path, rule: r.id, action, text });
        if (show) visible.push(text);
      });
    }
    const out: Array<[string, JsonValue]> = [];
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && isObj(v)) {
        out.push([k, Object.fromEntries(Object.keys(v).map((name) => [name, isObj(v[name]) ? visit(v[name] as JsonObject, { path: `${at.path}/properties/${escapeToken(name)}`, isRoot: false, depth: at.depth + 1 }) : v[name]])) as JsonObject]);
      } else if ((k === 'items' || k === 'additionalProperties') && isObj(v)) {
        out.push([k, visit(v, { path: `${at.path}/${k}`, isRoot: false, depth: at.depth + 1 })]);
      } else {
        out.push([k, v]);
      }
    }
    const folded = foldNoteTexts(visible, DEFAULT_OPTIONS.noteChars, DEFAULT_OPTIONS.toolNoteChars, budget);
    if (folded === '') return Object.fromEntries(out) as JsonObject;
    const description = appendSentences(typeof node.description === 'string' ? node.description : undefined, folded);
    texts.push(description);
    const withoutDescription = out.filter(([k]) => k !== 'description');
    // description right after type, as the neutral emitter orders keys
    const at1 = withoutDescription.length > 0 && withoutDescription[0][0] === 'type' ? 1 : 0;
    withoutDescription.splice(at1, 0, ['description', description]);
    return Object.fromEntries(withoutDescription) as JsonObject;
  };
  const out = visit(schema, { path: '', isRoot: true, depth: 1 });
  return { schema: fixed === 0 ? schema : out, notes, texts };
}

/** A copy of `node` without `keys`, keeping key order. */
export function without(node: JsonObject, ...keys: string[]): JsonObject {
  return Object.fromEntries(Object.entries(node).filter(([k]) => !keys.includes(k))) as JsonObject;
}

/** A copy of `node` with `key` set to `value`, in place when present, else after `after` (or at the end). */
export function withKey(node: JsonObject, key: string, value: JsonValue, after?: string): JsonObject {
  const entries = Object.entries(node);
  const i = entries.findIndex(([k]) => k === key);
  if (i >= 0) entries[i] = [key, value];
  else {
    const j = after === undefined ? -1 : entries.findIndex(([k]) => k === after);
    entries.splice(j >= 0 ? j + 1 : entries.length, 0, [key, value]);
  }
  return Object.fromEntries(entries) as JsonObject;
}

/** Keyword families of the neutral output, by the JSON types they constrain (keywords.ts FAMILY_KEYS). */
export const FAMILY_OF_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
  object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties'],
};
