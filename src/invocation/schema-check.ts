import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The pure part of checking a value against a tool's schema (issue 14 item 3), shared by the main thread (cheap
 * checks, argument-validator.ts) and the validation worker (argument-check.worker.ts), so both answer alike: the
 * dialect, the ajv options, fail-closed compilation, the problems and their pointers, the finite-number rule, and the
 * pre-analysis that says which schemas may cost more than a bounded amount of CPU.
 */
export interface ArgumentProblem {
  /** JSON Pointer into the value ('' is the value itself). */
  readonly pointer: string;
  readonly message: string;
}

export type ValidationOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly problems: readonly ArgumentProblem[] }
  /** With retryAfterSeconds: the caller's share of the checker was full (argument-validator.ts), nothing was tried. */
  | { readonly ok: false; readonly uncheckable: string; readonly retryAfterSeconds?: number };

/** What is checked: a call's arguments against the inputSchema, or a result's structuredContent against the outputSchema. */
export type CheckedRole = 'arguments' | 'structuredContent';

const OPTIONS = { allErrors: true, strict: false, validateSchema: false, allowUnionTypes: true } as const;
const dialects = {
  draft07: addFormats(new Ajv(OPTIONS)),
  '2019': addFormats(new Ajv2019(OPTIONS)),
  '2020': addFormats(new Ajv2020(OPTIONS)),
};
/** Most problems listed in one answer: enough to fix a call, bounded for a hostile schema. */
const MAX_PROBLEMS = 50;

export const schemaName = (role: CheckedRole): string => (role === 'arguments' ? 'inputSchema' : 'outputSchema');

/** A compiled validator, or why the schema cannot be compiled (the caller fails closed). */
export type Compiled = ValidateFunction | { readonly error: string };

export function compileSchema(text: string): Compiled {
  const schema = JSON.parse(text) as Record<string, unknown>;
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  const ajv = /draft-0[4-7]/.test(dialect) ? dialects.draft07 : /2019-09/.test(dialect) ? dialects['2019'] : dialects['2020'];
  // Without $schema: the dialect is chosen above, and ajv must not look the meta-schema up by URI.
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  try {
    return ajv.compile(rest);
  } catch (err) {
    // Fail closed: a schema that cannot be compiled (an external $ref, say) cannot vouch for any value.
    return { error: (err as Error).message.slice(0, 200) };
  } finally {
    // ajv keeps every schema object it compiled in a map of its own; the callers' bounded caches are the only ones.
    ajv.removeSchema(rest);
  }
}

export function outcomeOf(compiled: Compiled, value: unknown, role: CheckedRole): ValidationOutcome {
  if (!(compiled instanceof Function)) return { ok: false, uncheckable: `the tool's ${schemaName(role)} cannot be checked (${compiled.error})` };
  if (compiled(value)) return { ok: true };
  return { ok: false, problems: (compiled.errors ?? []).slice(0, MAX_PROBLEMS).map(problemOf) };
}

const segment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function problemOf(e: ErrorObject): ArgumentProblem {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  // A missing property is pointed at where it should be; an unexpected one is named.
  const pointer = e.keyword === 'required' && params.missingProperty !== undefined ? `${e.instancePath}/${segment(params.missingProperty)}` : e.instancePath;
  const extra = e.keyword === 'additionalProperties' && params.additionalProperty !== undefined ? ` (${params.additionalProperty})` : '';
  return { pointer, message: `${e.message ?? e.keyword}${extra}` };
}

/**
 * One iterative walk of the value (no recursion, whatever its depth): the non-finite numbers in it (JSON.parse reads
 * `1e400` as Infinity, which ajv takes for a number and JSON.stringify would forward as null), and its size, about its
 * JSON length in characters.
 */
export function scanValue(value: unknown): { readonly nonFinite: readonly ArgumentProblem[]; readonly size: number } {
  const nonFinite: ArgumentProblem[] = [];
  let size = 0;
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, pointer] = stack.pop() as [unknown, string];
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number') {
      size += 8;
      if (!Number.isFinite(v) && nonFinite.length < MAX_PROBLEMS) nonFinite.push({ pointer, message: 'must be a finite number' });
    } else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${pointer}/${i}`]);
    } else if (v !== null && typeof v === 'object') {
      size += 2;
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        size += keys[i].length + 4;
        stack.push([(v as Record<string, unknown>)[keys[i]], `${pointer}/${segment(keys[i])}`]);
      }
    } else size += 5;
  }
  return { nonFinite, size };
}

/**
 * Formats whose ajv-formats implementation (full mode, what addFormats installs) is a regex that backtracks
 * super-linearly on hostile input. Measured over 64 KB strings built from repeated units (see docs/architecture.md,
 * "Validation budget"): `url` (the dperini regex) took 261 ms at 20 KB and grows quadratically; every other format
 * stayed under 15 ms at 64 KB, in line with its length (date, time, date-time: fixed-shape regexes and a split;
 * email, hostname, uri, uri-reference, uri-template, json-pointer, byte: separators keep the repetitions unambiguous;
 * ipv4, ipv6, uuid: bounded repetitions; regex compiles the string, never runs it).
 */
const COSTLY_FORMATS: ReadonlySet<string> = new Set(['url']);

/** Schema objects counted after expanding local $refs, above which a schema is not checked inline. */
const MAX_INLINE_NODES = 2_000;

/**
 * The pre-analysis: `costly` names the first reason this schema may cost more than its size times the value's (a
 * `pattern`, `patternProperties`, `uniqueItems`, a costly format, a recursive or non-local `$ref`, more than
 * MAX_INLINE_NODES schema objects once local `$ref`s are expanded: refs shared down a chain multiply), else null;
 * `nodes` is that expanded count. Only keyword positions are walked (a property named `pattern` is no pattern);
 * unknown keywords are skipped, as ajv ignores them (strict: false).
 */
export function analyseSchema(root: unknown): { readonly costly: string | null; readonly nodes: number } {
  const memo = new Map<object, number>();
  const visiting = new Set<object>();
  let costly: string | null = null;
  const size = (node: unknown, depth: number): number => {
    if (costly !== null || node === null || typeof node !== 'object' || Array.isArray(node)) return 1;
    const known = memo.get(node);
    if (known !== undefined) return known;
    if (visiting.has(node)) {
      costly = 'a recursive $ref';
      return 1;
    }
    if (depth > 256) {
      costly = 'schema nesting deeper than 256';
      return 1;
    }
    visiting.add(node);
    const s = node as Record<string, unknown>;
    let n = 1;
    if (typeof s.pattern === 'string') costly = 'pattern';
    else if (s.patternProperties !== null && typeof s.patternProperties === 'object' && Object.keys(s.patternProperties).length > 0) costly = 'patternProperties';
    else if (s.uniqueItems === true) costly = 'uniqueItems';
    else if (typeof s.format === 'string' && COSTLY_FORMATS.has(s.format)) costly = `format ${s.format}`;
    else if (s.$dynamicRef !== undefined || s.$recursiveRef !== undefined) costly = 'a dynamic $ref';
    else if (depth > 0 && (s.$id !== undefined || s.id !== undefined || s.$anchor !== undefined || s.$dynamicAnchor !== undefined)) costly = 'an embedded $id or $anchor';
    if (s.$ref !== undefined) {
      const target = typeof s.$ref === 'string' ? resolveLocal(root, s.$ref) : undefined;
      if (target === undefined) costly ??= 'a non-local $ref';
      else n += size(target, depth + 1);
    }
    for (const k of ONE) if (k in s) n += size(s[k], depth + 1);
    for (const k of MANY) if (Array.isArray(s[k])) for (const x of s[k] as unknown[]) n += size(x, depth + 1);
    if (Array.isArray(s.items)) for (const x of s.items as unknown[]) n += size(x, depth + 1);
    else if ('items' in s) n += size(s.items, depth + 1);
    for (const k of MAP) {
      const m = s[k];
      if (m !== null && typeof m === 'object' && !Array.isArray(m)) for (const x of Object.values(m)) if (!Array.isArray(x)) n += size(x, depth + 1);
    }
    visiting.delete(node);
    if (n > MAX_INLINE_NODES) costly ??= `more than ${MAX_INLINE_NODES} schema objects`;
    memo.set(node, n);
    return n;
  };
  const nodes = size(root, 0);
  return { costly, nodes };
}

/** Keywords holding one subschema, an array of them, or a map of them, over draft-07, 2019-09 and 2020-12. */
const ONE = ['not', 'if', 'then', 'else', 'additionalItems', 'additionalProperties', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAP = ['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];

/** A `#` or `#/json/pointer` reference into the root, or undefined (anchors, other documents: not resolved here). */
function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (at === null || typeof at !== 'object' || !Object.prototype.hasOwnProperty.call(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
