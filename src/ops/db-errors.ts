/**
 * Is this error the database being unreachable (restarting, down, refusing, out of connections), as opposed
 * to a bug or bad input? Those become 503 with Retry-After, never a 500 (issue 7).
 */
const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006', '53300', '53400']);
const MESSAGES = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|Connection terminated|terminating connection|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)|Connection refused|SQLITE_BUSY|database is locked|Query read timeout/i;

// TypeORM releases a PostgreSQL query runner when its connection dies; the rest of that transaction then fails
// with one of these (the first from the query runner itself, the second from manager.query on the transaction's
// EntityManager). The transaction did not commit, so "retry shortly" (503) is the truthful answer.
const RELEASED_BY_CONNECTION_LOSS = new Set(['QueryRunnerAlreadyReleasedError', 'QueryRunnerProviderAlreadyReleasedError']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const x = e as { code?: unknown; message?: unknown; name?: unknown; driverError?: unknown; cause?: unknown };
    if (typeof x.name === 'string' && RELEASED_BY_CONNECTION_LOSS.has(x.name)) return true;
    if (typeof x.code === 'string' && (PG_UNAVAILABLE_CODES.has(x.code) || /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT)$/.test(x.code))) return true;
    if (typeof x.message === 'string' && MESSAGES.test(x.message)) return true;
    e = x.driverError ?? x.cause;
  }
  return false;
}

export class ServiceUnavailableError extends Error {
  readonly retryAfterSeconds = 2;
  constructor(cause?: unknown) {
    super('The catalog database is unavailable; retry shortly.', { cause });
    this.name = 'ServiceUnavailableError';
  }
}
