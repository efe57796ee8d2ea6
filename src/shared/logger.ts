import pino, { type Logger } from 'pino';
import { redactCredentials } from '../catalog/credentials';
import { currentRequestId } from './request-scope';
import { redactJson } from '../catalog/credential-redaction';

export type { Logger };

/** Fields every line gets from the active trace (issue 19: trace_id, span_id); null while tracing is off. */
let logFields: (() => Record<string, string> | null) | null = null;

/** Set by ops/tracing.ts when tracing starts (null when it stops). */
export function setLogFields(fn: (() => Record<string, string> | null) | null): void {
  logFields = fn;
}

/**
 * Structured JSON logs. Every line written while a request is served carries its requestId (mixin).
 * Secrets never reach a log line: callers log places and kinds, not values, and known secret fields are
 * redacted. As a second line of defence (issue 11, defect 3), every finished line is checked whole, strings
 * and property names alike, whatever put them there (a message, a serialised error, a mixin, a child binding):
 * anything credential-shaped, and any literal under a secret-like name, becomes `[redacted]`.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'toolcat' },
    mixin: () => {
      const requestId = currentRequestId();
      const traced = logFields === null ? null : logFields();
      if (traced !== null) return requestId ? { requestId, ...traced } : traced;
      return requestId ? { requestId } : {};
    },
    redact: { paths: ['apiKey', 'key', 'authorization', 'req.headers.authorization', 'req.headers.cookie', '*.apiKey', 'env', 'headers'], censor: '[redacted]' },
    // Runs on the stringified line, so only for lines that are written: a disabled level is pino's no-op
    // function and never gets here.
    hooks: { streamWrite: redactLogLine },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * One log line (JSON text and a newline) without credentials: the line itself when it holds none (the usual
 * case: one parse and one detector pass over its strings), else the same fields, redacted.
 */
function redactLogLine(line: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return redactCredentials(line); // not JSON: text, redacted as text
  }
  const out = redactJson(parsed);
  return out.redacted ? `${JSON.stringify(out.value)}\n` : line;
}
