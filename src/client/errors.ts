/**
 * Typed errors for the answers an agent acts on differently: 401 (fix the credential), 404 (the tool is not yours or
 * not there: the same answer, TC-CAT-4), 429 and 503 (wait `retryAfterSeconds`, when the host said). Everything else
 * is a ToolcatError with the host's status and code (docs/errors.md).
 */
export class ToolcatError extends Error {
  override readonly name: string = 'ToolcatError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    /** Seconds from Retry-After, when the answer carried one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export class UnauthorizedError extends ToolcatError {
  override readonly name = 'UnauthorizedError';
}

export class NotFoundError extends ToolcatError {
  override readonly name = 'NotFoundError';
}

export class RateLimitedError extends ToolcatError {
  override readonly name = 'RateLimitedError';
}

export class UnavailableError extends ToolcatError {
  override readonly name = 'UnavailableError';
}

/** The host answered something this client cannot read as the contract says (not JSON, a stream without a result). */
export class ProtocolError extends ToolcatError {
  override readonly name = 'ProtocolError';
}

/** A streamed call that ended with `tool.call.error` (the JSON answer's error status, as an event). */
export class CallFailedError extends ToolcatError {
  override readonly name = 'CallFailedError';
}

/** The error for an HTTP answer: its status, and the `{ error: { code, message, details } }` envelope when present. */
export function errorFor(status: number, body: string, retryAfter: string | null): ToolcatError {
  let code = `HTTP_${status}`;
  let message = `The host answered ${status}.`;
  let details: Record<string, unknown> | undefined;
  try {
    const e = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error;
    if (e && typeof e.code === 'string') code = e.code;
    if (e && typeof e.message === 'string') message = e.message;
    if (e && e.details !== null && typeof e.details === 'object') details = e.details as Record<string, unknown>;
  } catch {
    // Not the envelope (a proxy's page, an empty body): the status alone says what happened.
  }
  const retryAfterSeconds = parseRetryAfter(retryAfter);
  const Type = status === 401 ? UnauthorizedError : status === 404 ? NotFoundError : status === 429 ? RateLimitedError : status === 503 ? UnavailableError : ToolcatError;
  return new Type(status, code, message, details, retryAfterSeconds);
}

/** Retry-After as seconds (RFC 9110: delay-seconds or an HTTP-date); undefined when absent or unreadable. */
function parseRetryAfter(v: string | null, now: () => number = Date.now): number | undefined {
  if (v === null) return undefined;
  const t = v.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const at = Date.parse(t);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now()) / 1000));
}
