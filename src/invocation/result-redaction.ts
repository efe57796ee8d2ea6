import { wholeSecretForms } from '../sources/mcp/secret-forms';

/**
 * A source's own credentials never reach a caller (issue 14, security standard: no credential reaches a descriptor,
 * a log line, an error or an admin field). Errors from a source were scrubbed of them (sanitizeError) but results and
 * progress messages were passed on as sent: a tool that quotes the header it was called with, or server-everything's
 * `get-env` (its whole environment, the source's `env` secrets included), handed them to every agent allowed to call
 * it (red-team finding, 2026-12-04). Every whole form of each secret value (as it is, JSON- or percent-escaped,
 * reversed, hex, base64) is replaced by `[redacted]` in every string of the result, keys included.
 *
 * The cost stays with results that hold a secret: one search of the result's JSON text per form first (the text the
 * result's size bound already made), and the walk only when one is found, without recursion (a result may be nested
 * deeper than the stack).
 */
export const REDACTED = '[redacted]';

export class ResultRedactor {
  private readonly forms: readonly string[];
  /** The forms as they appear inside JSON text (a quote or backslash escaped). */
  private readonly inJson: readonly string[];

  constructor(secretValues: readonly string[]) {
    this.forms = wholeSecretForms(secretValues);
    this.inJson = this.forms.map((f) => JSON.stringify(f).slice(1, -1));
  }

  /** The forms found in `json` (the value's JSON text), none when the value holds no secret. */
  private found(json: string): string[] {
    return this.forms.filter((_, i) => json.includes(this.inJson[i]));
  }

  /** `text` (a plain string, not JSON text: a progress message) without a secret. */
  text(text: string): string {
    return redactString(text, this.forms.filter((f) => text.includes(f)));
  }

  /**
   * `value` (a result parsed from JSON, owned by the caller: changed in place) without a secret. `json` must be
   * `JSON.stringify(value)`, never the upstream's own text: that may spell a secret with `\u` escapes the parsed
   * value no longer has (re-test of the fix, 2026-12-04). A number that spells a secret (one of digits only) becomes
   * the string `[redacted]`.
   */
  value<T>(value: T, json: string): T {
    const forms = this.found(json);
    if (forms.length === 0) return value;
    if (typeof value === 'string' || typeof value === 'number') return scalar(value, forms) as T;
    const stack: unknown[] = [value];
    while (stack.length > 0) {
      const node = stack.pop();
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          const v = node[i];
          if (v !== null && typeof v === 'object') stack.push(v);
          else node[i] = scalar(v, forms);
        }
      } else if (node !== null && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        for (const key of Object.keys(o)) {
          const v = o[key];
          const clean = v !== null && typeof v === 'object' ? v : scalar(v, forms);
          if (clean !== null && typeof clean === 'object') stack.push(clean);
          const k = redactString(key, forms);
          if (k !== key) delete o[key];
          // Defined, not assigned: a key "__proto__" (an own property JSON.parse made) must stay a plain property.
          if (k !== key || clean !== v) Object.defineProperty(o, k, { value: clean, writable: true, enumerable: true, configurable: true });
        }
      }
    }
    return value;
  }
}

/** A string, or a number as its JSON spells it, without a secret; anything else as it is. */
function scalar(v: unknown, forms: readonly string[]): unknown {
  if (typeof v === 'string') return redactString(v, forms);
  if (typeof v !== 'number') return v;
  const spelled = JSON.stringify(v);
  const clean = redactString(spelled, forms);
  return clean === spelled ? v : clean;
}

function redactString(s: string, forms: readonly string[]): string {
  let out = s;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join(REDACTED);
  return out;
}
