/**
 * Entry point (design/compact-view.md §4.2): total, pure, deterministic, bounded. Any failure, or a
 * schema that cannot fit the budgets, yields the per-tool fallback, never an exception (pitfall 23).
 */
import { findBannedKeywords } from './banned';
import { BudgetExceeded } from './budget';
import { CompileContext } from './context';
import { Emitter } from './emit';
import { cloneInput, isObject, type RawObject } from './json';
import { createCompiler } from './node';
import { appendSentences, TEXT } from './notes';
import { RefResolver } from './ref-resolver';
import { rootify } from './rootify';
import { DEFAULT_OPTIONS, type CompactNote, type CompactOptions, type CompactResult, type JsonObject, type JsonValue } from './types';

/** Bump whenever the output for some input changes: it is part of the cache key (§4.8). */
export const COMPACTOR_VERSION = '1.2.0';
// History: 1.1.0 (issue 13); 1.2.0 (issue 16: the fidelity gaps, i.e. lost literals and string/number alternatives
// noted, notes ranked before the cap, ignored `items`/`properties` noted, "Exactly one of" only when exclusive,
// notes punctuated, typeless root noted; and the per-provider profiles, whose rule tables are part of the derived
// output: a rule-table change bumps this version too, so stored profile forms are recomputed at start).

interface Attempt {
  maxRecursion: number;
  maxDepth: number;
}

interface AttemptResult {
  schema: JsonObject;
  notes: CompactNote[];
  truncated: boolean;
  exceeded: boolean;
}

export function compact(schema: unknown, opts?: Partial<CompactOptions>): CompactResult {
  let options: CompactOptions = DEFAULT_OPTIONS;
  try {
    options = resolveOptions(opts);
    const input = cloneInput(schema, options.maxInputNodes, options.maxInputBytes);
    const resolver = new RefResolver(input);
    let last: AttemptResult | undefined;
    for (const attempt of ladder(options)) {
      last = runAttempt(input, resolver, options, attempt);
      if (last !== undefined && !last.exceeded) return finish(last, schema);
    }
    // §4.2 step 6: every smaller attempt still hit a budget; keep the last one if it is within bytes
    if (last !== undefined && JSON.stringify(last.schema).length <= options.maxBytes) return finish({ ...last, truncated: true }, schema);
    return fallback(schema, 'budget');
  } catch {
    return fallback(schema, 'error');
  }
}

function runAttempt(input: JsonValue, resolver: RefResolver, opts: CompactOptions, a: Attempt): AttemptResult | undefined {
  const ctx = new CompileContext(opts, resolver, a.maxRecursion, a.maxDepth);
  try {
    const ir = rootify(createCompiler(ctx).compile(input, '', 1));
    const emitter = new Emitter(opts, a.maxDepth);
    let schema = emitter.emit(ir, '', 1, true);
    if (emitter.budget.exhausted) schema = withRootSuffix(schema);
    const bytes = JSON.stringify(schema).length;
    return { schema, notes: emitter.notes, truncated: ctx.truncated, exceeded: ctx.budget.exceeded || bytes > opts.maxBytes };
  } catch (err) {
    if (err instanceof BudgetExceeded) return undefined;
    throw err;
  }
}

/**
 * Retry smaller (§4.2 step 6): recursion 1 first, then a shallower depth. At most three attempts, so
 * the worst case costs three node budgets; the last attempt is kept (with tails) if it fits in bytes.
 */
function ladder(o: CompactOptions): Attempt[] {
  const out: Attempt[] = [{ maxRecursion: o.maxRecursion, maxDepth: o.maxDepth }];
  if (o.maxRecursion > 1) out.push({ maxRecursion: 1, maxDepth: o.maxDepth });
  const shallow = Math.max(3, Math.min(o.maxDepth - 2, Math.ceil(o.maxDepth / 2) + 1));
  if (shallow < o.maxDepth) out.push({ maxRecursion: 1, maxDepth: shallow });
  return out;
}

/** The per-tool note budget ran out (pitfall 27): say so once, on the root. */
function withRootSuffix(schema: JsonObject): JsonObject {
  const text = [schema.description, TEXT.moreInStandardView()].filter((d) => typeof d === 'string' && d !== '').join(' ');
  const entries = Object.entries(schema).filter(([k]) => k !== 'description');
  entries.splice(1, 0, ['description', text]);
  return Object.fromEntries(entries) as JsonObject;
}

/** The report is bounded too (a diamond can inline hundreds of refs). */
const MAX_REPORT_NOTES = 200;

function finish(r: AttemptResult, original: unknown): CompactResult {
  // G1 self-check with the same schema-aware walker the conformance suite uses (TC-VIEW-3)
  if (findBannedKeywords(r.schema).length > 0) return fallback(original, 'banned');
  let notes = r.notes;
  if (notes.length > MAX_REPORT_NOTES) {
    const rest = notes.length - (MAX_REPORT_NOTES - 1);
    notes = [...notes.slice(0, MAX_REPORT_NOTES - 1), { path: '', origin: '', rule: 'report', action: 'truncated', text: TEXT.reportTruncated(rest) }];
  }
  return { schema: r.schema, notes, fallback: false, truncated: r.truncated };
}

function fallback(original: unknown, reason: string): CompactResult {
  let description = TEXT.fallback();
  try {
    const d = isObject(original) ? (original as RawObject).description : undefined;
    if (typeof d === 'string' && d !== '' && d.length <= 2000) description = appendSentences(d, description);
  } catch {
    // hostile getter: keep the fixed text only
  }
  // a fixpoint of compact(): compacting this schema again returns it unchanged (idempotence)
  const schema: JsonObject = { type: 'object', description, properties: {} };
  const note: CompactNote = { path: '', origin: '', rule: `fallback-${reason}`, action: 'fallback', text: TEXT.fallback() };
  return { schema, notes: [note], fallback: true, truncated: reason === 'budget' };
}

function int(v: unknown, fallbackValue: number, min: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(min, Math.floor(v)) : fallbackValue;
}

function resolveOptions(opts: Partial<CompactOptions> | undefined): CompactOptions {
  const o = opts ?? {};
  const d = DEFAULT_OPTIONS;
  return {
    maxRecursion: int(o.maxRecursion, d.maxRecursion, 1),
    maxDepth: int(o.maxDepth, d.maxDepth, 2),
    maxNodes: int(o.maxNodes, d.maxNodes, 16),
    maxBytes: int(o.maxBytes, d.maxBytes, 1024),
    maxEnum: int(o.maxEnum, d.maxEnum, 1),
    noteChars: int(o.noteChars, d.noteChars, 80),
    toolNoteChars: int(o.toolNoteChars, d.toolNoteChars, 0),
    formats: Array.isArray(o.formats) ? o.formats.filter((f) => typeof f === 'string') : d.formats,
    inferTypes: typeof o.inferTypes === 'boolean' ? o.inferTypes : d.inferTypes,
    truncation: o.truncation === 'prune' ? 'prune' : 'permissive',
    typeArrays: o.typeArrays === 'never' || o.typeArrays === 'nullOnly' ? o.typeArrays : 'allow',
    maxInputBytes: int(o.maxInputBytes, d.maxInputBytes, 1024),
    maxInputNodes: int(o.maxInputNodes, d.maxInputNodes, 16),
  };
}
