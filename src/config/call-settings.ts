/** Bounds on tool calls (issue 14), declared with their defaults; src/invocation applies them. */
export interface CallSettings {
  /** The whole call, retries included (TOOLCAT_CALL_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Largest request body of a call, in bytes (TOOLCAT_CALL_MAX_REQUEST_BYTES). */
  readonly maxRequestBytes: number;
  /** Deepest nesting of the arguments (objects and arrays). */
  readonly maxArgumentDepth: number;
  /** Largest result passed on, in bytes of its JSON (TOOLCAT_CALL_MAX_RESULT_BYTES). */
  readonly maxResultBytes: number;
  /** Retries of a transport failure, for deterministic and idempotent tools only (TOOLCAT_CALL_RETRIES). */
  readonly retries: number;
  /** First backoff between retries; it doubles each time. */
  readonly retryBackoffMs: number;
  /** How long an Idempotency-Key holds (TOOLCAT_CALL_IDEMPOTENCY_SECONDS). */
  readonly idempotencySeconds: number;
  /** Keep the arguments themselves in the call log, not only their hash (TOOLCAT_CALL_RECORD_ARGUMENTS). */
  readonly recordArguments: boolean;
  /** Calls of one source at once (TOOLCAT_CALL_CONCURRENCY_PER_SOURCE), and how many may wait (TOOLCAT_CALL_QUEUE_PER_SOURCE). */
  readonly concurrencyPerSource: number;
  readonly queuePerSource: number;
  /** Consecutive failures that open a source's circuit, and for how long (TOOLCAT_CALL_BREAKER_*). */
  readonly breakerFailures: number;
  readonly breakerOpenSeconds: number;
}

export const DEFAULT_CALL_SETTINGS: CallSettings = Object.freeze({
  timeoutMs: 60_000,
  maxRequestBytes: 1024 * 1024,
  maxArgumentDepth: 64,
  maxResultBytes: 4 * 1024 * 1024,
  retries: 2,
  retryBackoffMs: 100,
  idempotencySeconds: 86_400,
  recordArguments: false,
  concurrencyPerSource: 8,
  queuePerSource: 32,
  breakerFailures: 5,
  breakerOpenSeconds: 30,
});

export const CALL_ENV_DOCS: Readonly<Record<string, string>> = {
  TOOLCAT_CALL_TIMEOUT_MS: `bound on one tool call, retries included (default ${DEFAULT_CALL_SETTINGS.timeoutMs})`,
  TOOLCAT_CALL_MAX_REQUEST_BYTES: `largest call request body (default ${DEFAULT_CALL_SETTINGS.maxRequestBytes})`,
  TOOLCAT_CALL_MAX_RESULT_BYTES: `largest tool result passed on (default ${DEFAULT_CALL_SETTINGS.maxResultBytes})`,
  TOOLCAT_CALL_RETRIES: `retries of a transport failure, deterministic and idempotent tools only (default ${DEFAULT_CALL_SETTINGS.retries})`,
  TOOLCAT_CALL_IDEMPOTENCY_SECONDS: `how long an Idempotency-Key holds (default ${DEFAULT_CALL_SETTINGS.idempotencySeconds})`,
  TOOLCAT_CALL_RECORD_ARGUMENTS: 'true|false: keep call arguments in the call log, not only their hash (default false)',
  TOOLCAT_CALL_CONCURRENCY_PER_SOURCE: `calls of one source at once (default ${DEFAULT_CALL_SETTINGS.concurrencyPerSource})`,
  TOOLCAT_CALL_QUEUE_PER_SOURCE: `calls of one source that may wait; then 429 (default ${DEFAULT_CALL_SETTINGS.queuePerSource})`,
  TOOLCAT_CALL_BREAKER_FAILURES: `consecutive failures that open a source's circuit; then 503 (default ${DEFAULT_CALL_SETTINGS.breakerFailures})`,
  TOOLCAT_CALL_BREAKER_OPEN_SECONDS: `how long an open circuit refuses calls (default ${DEFAULT_CALL_SETTINGS.breakerOpenSeconds})`,
};

type Int = (name: string, dflt: number, min: number, max: number) => number;
type Bool = (name: string, dflt: boolean) => boolean;

export function loadCallSettings(int: Int, bool: Bool): CallSettings {
  const d = DEFAULT_CALL_SETTINGS;
  return {
    ...d,
    timeoutMs: int('TOOLCAT_CALL_TIMEOUT_MS', d.timeoutMs, 100, 3_600_000),
    maxRequestBytes: int('TOOLCAT_CALL_MAX_REQUEST_BYTES', d.maxRequestBytes, 1024, 256 * 1024 ** 2),
    maxResultBytes: int('TOOLCAT_CALL_MAX_RESULT_BYTES', d.maxResultBytes, 1024, 1024 ** 3),
    retries: int('TOOLCAT_CALL_RETRIES', d.retries, 0, 10),
    idempotencySeconds: int('TOOLCAT_CALL_IDEMPOTENCY_SECONDS', d.idempotencySeconds, 1, 30 * 86_400),
    recordArguments: bool('TOOLCAT_CALL_RECORD_ARGUMENTS', d.recordArguments),
    concurrencyPerSource: int('TOOLCAT_CALL_CONCURRENCY_PER_SOURCE', d.concurrencyPerSource, 1, 1024),
    queuePerSource: int('TOOLCAT_CALL_QUEUE_PER_SOURCE', d.queuePerSource, 0, 100_000),
    breakerFailures: int('TOOLCAT_CALL_BREAKER_FAILURES', d.breakerFailures, 1, 1000),
    breakerOpenSeconds: int('TOOLCAT_CALL_BREAKER_OPEN_SECONDS', d.breakerOpenSeconds, 1, 3600),
  };
}
