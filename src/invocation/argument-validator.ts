import { createHash } from 'node:crypto';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { LRUCache } from 'lru-cache';

/**
 * Arguments checked against the tool's own inputSchema, in its own dialect, before anything is forwarded (issue 14
 * item 3). The schema is the served standard view's: the upstream's definition as received, minus credential
 * annotations (defaults, examples) that constrain nothing, plus `type: object` on a typeless root. Validators are
 * compiled once per schema text and kept in a bounded cache.
 */
interface ArgumentProblem {
  /** JSON Pointer into the arguments ('' is the arguments object itself). */
  readonly pointer: string;
  readonly message: string;
}

export type ValidationOutcome = { readonly ok: true } | { readonly ok: false; readonly problems: readonly ArgumentProblem[] } | { readonly ok: false; readonly uncheckable: string };

const OPTIONS = { allErrors: true, strict: false, validateSchema: false, allowUnionTypes: true } as const;
const dialects = {
  draft07: addFormats(new Ajv(OPTIONS)),
  '2019': addFormats(new Ajv2019(OPTIONS)),
  '2020': addFormats(new Ajv2020(OPTIONS)),
};
/** Most problems listed in one answer: enough to fix a call, bounded for a hostile schema. */
const MAX_PROBLEMS = 50;

export class ArgumentValidator {
  private readonly compiled = new LRUCache<string, ValidateFunction | string>({ max: 1000 });

  validate(inputSchema: Readonly<Record<string, unknown>>, args: unknown): ValidationOutcome {
    const fn = this.compile(inputSchema);
    if (typeof fn === 'string') return { ok: false, uncheckable: fn };
    if (fn(args)) return { ok: true };
    return { ok: false, problems: (fn.errors ?? []).slice(0, MAX_PROBLEMS).map(problemOf) };
  }

  private compile(schema: Readonly<Record<string, unknown>>): ValidateFunction | string {
    const text = JSON.stringify(schema);
    const key = createHash('sha256').update(text).digest('base64url');
    const hit = this.compiled.get(key);
    if (hit !== undefined) return hit;
    const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
    const ajv = /draft-0[4-7]/.test(dialect) ? dialects.draft07 : /2019-09/.test(dialect) ? dialects['2019'] : dialects['2020'];
    // A fresh copy without $schema: the dialect is chosen above, and ajv must not look the meta-schema up by URI.
    const { $schema: _dialect, $id: _id, ...rest } = JSON.parse(text) as Record<string, unknown>;
    let out: ValidateFunction | string;
    try {
      out = ajv.compile(rest);
    } catch (err) {
      // Fail closed: a schema that cannot be compiled (an external $ref, say) cannot vouch for any arguments.
      out = `the tool's inputSchema cannot be checked (${(err as Error).message.slice(0, 200)})`;
    }
    this.compiled.set(key, out);
    return out;
  }
}

const segment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function problemOf(e: ErrorObject): ArgumentProblem {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  // A missing property is pointed at where it should be; an unexpected one is named.
  const pointer = e.keyword === 'required' && params.missingProperty !== undefined ? `${e.instancePath}/${segment(params.missingProperty)}` : e.instancePath;
  const extra = e.keyword === 'additionalProperties' && params.additionalProperty !== undefined ? ` (${params.additionalProperty})` : '';
  return { pointer, message: `${e.message ?? e.keyword}${extra}` };
}
