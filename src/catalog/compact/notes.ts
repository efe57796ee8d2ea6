/**
 * Fixed-template note wording (design/compact-view.md §4.7): the catalog must read identically, and
 * tests assert tokens, so every sentence a note can contain is spelled here and nowhere else.
 */
import type { JsonValue } from './types';

const MAX_LIST = 8;
const MAX_LITERAL = 40;
const MAX_URI = 120;

export function literal(v: JsonValue): string {
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > MAX_LITERAL ? text.slice(0, MAX_LITERAL - 1) + '…' : text;
}

export function list(items: readonly string[], max = MAX_LIST): string {
  if (items.length <= max) return items.join(', ');
  return items.slice(0, max).join(', ') + `, … (${items.length} in all)`;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

export const TEXT = {
  externalRef: (uri: string) => `External reference ${clip(uri, MAX_URI)} not resolved; any value accepted.`,
  unresolvedRef: (ref: string) => `Unresolved reference ${clip(ref, MAX_URI)}; any value accepted.`,
  invalidRef: () => 'Invalid reference in original; any value accepted.',
  inlined: (ref: string) => `Inlined ${clip(ref, MAX_URI)}.`,
  recursive: (name: string) => `Recursive: same structure as ${clip(name, 60)}; deeper levels not expanded.`,
  depthCap: (max: number) => `Nested deeper than ${max} levels; inner structure not expanded (see the standard view).`,
  budget: () => 'Truncated: schema too large for the compact view (see the standard view).',
  invalidSubschema: () => 'Invalid subschema in original; any value accepted.',
  invalidKeyword: (k: string) => `Invalid "${k}" in original ignored.`,
  format: (f: string) => `Format: ${clip(f, 40)}.`,
  formats: (fs: readonly string[]) => `Format: ${list(fs.map((f) => clip(f, 40)))}.`,
  formatsAll: (fs: readonly string[]) => `Formats: ${list(fs.map((f) => clip(f, 40)))} (all apply).`,
  alsoMatch: (p: string) => `Must also match /${clip(p, 120)}/.`,
  matchOneOf: (ps: readonly string[]) => `Matches one of ${ps.map((p) => `/${clip(p, 60)}/`).join(' | ')}.`,
  invalidPattern: (p: string) => `Pattern /${clip(p, 80)}/ (not a valid regular expression) not enforced.`,
  alsoMultipleOf: (m: number) => `Must also be a multiple of ${m}.`,
  multipleOfOneOf: (ms: readonly number[]) => `Multiple of ${ms.join(' or ')}, depending on the variant.`,
  bigEnum: (n: number, sample: readonly JsonValue[]) => `One of ${n} values, e.g. ${list(sample.map(literal), 5)}.`,
  deprecated: () => 'Deprecated.',
  defaultDropped: () => 'Default dropped: it holds schema keywords.',
  contradictory: (name: string) => `${name}: contradictory in original; omit it.`,
  contradictoryRequired: (name: string) => `${name}: contradictory in original.`,
  doNotProvide: (name: string) => `Do not provide ${name}.`,
  undeclared: () => 'Undeclared in original; any value accepted.',
  exactlyOneOf: (groups: readonly string[]) => `Exactly one of: ${list(groups)}.`,
  atLeastOneOf: (groups: readonly string[]) => `At least one of: ${list(groups)}.`,
  requiredInSome: () => 'Required in some variants.',
  onlyWhen: (disc: string, tags: readonly string[], required: boolean) =>
    `Only when ${disc} = ${list(tags)}${required ? ' (required there)' : ''}.`,
  requiredWhen: (disc: string, tags: readonly string[]) => `Required when ${disc} = ${list(tags)}.`,
  variantsBy: (disc: string, variants: readonly string[]) => `Variants by ${disc}: ${variants.join(' | ')}.`,
  variantDescriptions: (ds: readonly string[]) => `Variants: ${ds.map((d) => clip(d, 100)).join(' | ')}.`,
  numberVariants: (parts: readonly string[]) => `One of: ${parts.join(' or ')}.`,
  mixedClosedness: (names: readonly string[]) =>
    `Parts of the original restrict extra properties differently${names.length ? ` (${list(names)})` : ''}; not enforced here.`,
  keysMatching: (p: string, summary: string) => `Keys matching /${clip(p, 80)}/: ${summary}.`,
  keysMatchingInvalid: (p: string, summary: string) => `Keys matching /${clip(p, 80)}/ (pattern not valid here): ${summary}.`,
  keysMust: (summary: string) => `Keys must be ${summary}.`,
  keysMustMatch: (p: string) => `Keys must match /${clip(p, 80)}/.`,
  conditional: (label: string, summary: string) => `${label}: ${summary}.`,
  onlyIf: (label: string, required: boolean) => `Only ${lowerFirst(label)}${required ? ' (required there)' : ''}.`,
  ifGiven: (name: string, others: readonly string[]) => `If ${name} is given, also provide ${list(others)}.`,
  whenGiven: (name: string) => `When ${name} is given`,
  position: (parts: readonly string[]) => `Position ${parts.join('; position ')}.`,
  contains: (summary: string) => `Must contain at least one item: ${summary}.`,
  noOtherProperties: () => 'No other properties allowed in the original.',
  noOtherItems: () => 'No other items allowed in the original.',
  otherProperties: (summary: string) => `Other properties: ${summary}.`,
  mustNotBe: (what: string) => `Must not be ${what}.`,
  mustNotBeValues: (vs: readonly JsonValue[]) => `Must not be: ${list(vs.map(literal))}.`,
  notTogether: (names: readonly string[]) =>
    names.length === 1 ? `Do not provide ${names[0]}.` : `Do not provide ${list(names)} together.`,
  notAnyOf: (names: readonly string[]) => `Do not provide any of: ${list(names)}.`,
  mustNotMatch: (keys: readonly string[]) => `Must NOT match the original's "not" schema (${list(keys)}).`,
  rootNotObject: (types: string) => `Original root is not an object (${types}); arguments are an object here.`,
  rootNarrowed: (types: string) => `Root narrowed to object (original also allowed ${types}).`,
  rootTypeless: () => 'Root narrowed to object (original had no type).',
  ignoredForType: (keyword: string, types: string) => `Original declares "${keyword}" on a node typed ${types}; ignored.`,
  literalsOf: (types: string, vs: readonly JsonValue[]) => `${upperFirst(types)} values: one of ${list(vs.map(literal))}.`,
  familyVariants: (label: string, parts: readonly string[]) => `${label}: ${parts.join(' | ')}.`,
  // per-provider profiles (issue 16, profiles/*.ts)
  valuesOneOf: (vs: readonly JsonValue[]) => `One of: ${list(vs.map(literal))}.`,
  greaterThan: (x: number) => `Must be > ${x}.`,
  lessThan: (x: number) => `Must be < ${x}.`,
  multipleOf: (m: number) => `Must be a multiple of ${m}.`,
  uniqueItems: () => 'Items must be unique.',
  mustBeNull: () => 'Must be null.',
  notExpressed: (parts: readonly string[]) => `Also in the original: ${list(parts)}.`,
  defaultValue: (v: JsonValue) => `Default: ${literal(v)}.`,
  optionalAsNull: (names: readonly string[]) => `Optional in the original (null means not given): ${list(names)}.`,
  notStrict: (reason: string) => `Not strict: ${clip(reason, 160)}; the neutral compact schema is served.`,
  exactRewrite: (what: string) => `Rewritten exactly: ${clip(what, 120)}.`,
  profileResidual: (message: string) => `Not expressible for this provider: ${clip(message, 160)}.`,
  rootEnum: () => 'Original root is restricted to fixed values (see the standard view).',
  rootNever: () => 'Original schema accepts no value (see the standard view).',
  typeInferred: (t: string) => `Type inferred: ${t}.`,
  typesNarrowed: (kept: string, dropped: string) => `Typed as ${kept} here; the original also accepts ${dropped}.`,
  pruned: () => 'Omitted: not expanded in the compact view (see the standard view).',
  fallback: () => 'Arguments schema too complex for the compact view; see the standard view.',
  moreInStandardView: () => '… (more constraints in the standard view)',
  reportTruncated: (n: number) => `${n} more report notes omitted.`,
} as const;

function upperFirst(s: string): string {
  return s.length > 0 ? s[0].toUpperCase() + s.slice(1) : s;
}

function lowerFirst(s: string): string {
  return s.length > 0 ? s[0].toLowerCase() + s.slice(1) : s;
}

/**
 * Appends note sentences to a description (§4.7 "appended after the original description"). Issue 16: a
 * description without final punctuation ("A link") would run into the first note ("A link Format: uri."), so it
 * gets a full stop first; trailing whitespace is dropped so the notes stay on the description's last line.
 */
export function appendSentences(description: string | undefined, notes: string): string {
  const d = (description ?? '').trimEnd();
  if (notes === '') return description ?? '';
  if (d === '') return notes;
  return `${/[.!?…:;]["'”’)\]]*$/.test(d) ? d : d + '.'} ${notes}`;
}

/**
 * Usefulness rank of a visible note (issue 16): lower comes first, so the per-node cap (pitfall 27) cuts the least
 * useful notes. The discriminator map and the "which fields go together" notes tell the model how to build a
 * valid call; the branch descriptions ("Variants: …") repeat prose and come last. Unlisted rules rank in between,
 * in their emission order (the sort is stable, so the output stays deterministic).
 */
const NOTE_RANK: Readonly<Record<string, number>> = {
  'union-discriminator': 0,
  'union-required': 1,
  never: 2,
  'union-literals': 3,
  'union-family': 3,
  'union-description': 9,
};

export function rankNotes<T extends { rule: string }>(notes: readonly T[]): T[] {
  const rank = (n: T) => NOTE_RANK[n.rule] ?? 5;
  return [...notes].sort((a, b) => rank(a) - rank(b));
}

export interface NoteBudget {
  used: number;
  exhausted: boolean;
}

/**
 * Joins note sentences for one node, capped at `perNode` characters and at the per-tool budget
 * (pitfall 27). Returns the text to append to the description ('' when nothing fits).
 */
export function foldNoteTexts(texts: readonly string[], perNode: number, perTool: number, budget: NoteBudget): string {
  if (texts.length === 0) return '';
  let text = texts.join(' ');
  const suffix = TEXT.moreInStandardView();
  if (text.length > perNode) {
    const room = Math.max(0, perNode - suffix.length - 1);
    const cut = text.lastIndexOf(' ', room);
    text = (cut > 0 ? text.slice(0, cut) : text.slice(0, room)) + ' ' + suffix;
  }
  if (budget.used + text.length > perTool) {
    budget.exhausted = true;
    return '';
  }
  budget.used += text.length;
  return text;
}
