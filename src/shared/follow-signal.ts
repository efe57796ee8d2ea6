/**
 * A signal of one operation's own that aborts when `outer` does, linked only until `release()`.
 *
 * Why: the MCP SDK, and fetch, add an abort listener to the signal they are given and do not remove it. Given a
 * long-lived signal (a sync's deadline, a session's, the call pool's shutdown), each request left a listener behind,
 * holding what its closure held: a listing's pages, one per Streamable HTTP request, one per reconnect (issues 12
 * and 14). Each operation gets a signal of its own instead, and the link to the outer one is removed when it ends.
 */
export interface FollowedSignal {
  readonly signal: AbortSignal;
  /** Ends the link to the outer signal (idempotent). */
  release(): void;
}

export function followSignal(outer: AbortSignal | null | undefined): FollowedSignal {
  const own = new AbortController();
  if (!outer) return { signal: own.signal, release: () => undefined };
  const forward = () => own.abort(outer.reason);
  if (outer.aborted) {
    forward();
    return { signal: own.signal, release: () => undefined };
  }
  outer.addEventListener('abort', forward, { once: true });
  return { signal: own.signal, release: () => outer.removeEventListener('abort', forward) };
}
