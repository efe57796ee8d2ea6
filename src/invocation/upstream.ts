/**
 * Where a call goes once the catalog's decision allowed it (issue 14): the contract between the invocation core
 * (authorization, validation, replay safety, audit; src/invocation/invocation.service.ts) and the implementations
 * that reach a tool: an MCP source's managed client session (mcp-call-pool.ts) or a host extension's declared
 * implementation (extension-http.ts). An implementation never sees the caller's credential: it authenticates to the
 * upstream with the source's own secrets (no token passthrough, MCP authorization spec).
 */

/** What is called: an MCP source's tool (by its upstream name) or a host extension (by its toolId). */
export type CallTarget =
  | { readonly kind: 'mcp'; readonly source: string; readonly tool: string }
  | { readonly kind: 'extension'; readonly toolId: string; readonly name: string };

export interface ProgressUpdate {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * Who is calling, as an implementation may need it to keep callers apart (a host extension's endpoint gets it in the
 * signed request; red-team pass on issue 14). Identifiers only: never a credential (no token passthrough).
 */
interface CallerIdentity {
  readonly tenantId: string;
  /** `api-key` (a stored principal) or `jwt` (a verified access token). */
  readonly principalKind: string;
  /** A stored principal's UUID, or `jwt:` + a hash of issuer, tenant and subject. */
  readonly principalId: string;
}

export interface UpstreamCall {
  readonly callId: string;
  readonly caller: CallerIdentity;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** Aborted when the caller goes away or the call's time is up: the implementation cancels upstream. */
  readonly signal: AbortSignal;
  /** The whole call's bound; the implementation answers UpstreamError('timeout') past it. */
  readonly timeoutMs: number;
  /** Largest result accepted, in bytes of its JSON; a larger one is UpstreamError('too-large'). */
  readonly maxResultBytes: number;
  readonly onProgress?: (p: ProgressUpdate) => void;
  /**
   * Runs when the call leaves its source's queue, right before it is sent: the invocation core asks the decision
   * again there (a call may wait up to its timeout; a revocation or reclassification meanwhile must stop it). It
   * throws to refuse; nothing is sent then.
   */
  readonly beforeSend?: () => Promise<void>;
  /** Who the call is for (its tenant): each party gets a fair share of a source's slots and queue. */
  readonly party?: string;
}

/** MCP CallToolResult as toolcat passes it on. */
export interface UpstreamResult {
  readonly isError: boolean;
  readonly content: readonly unknown[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/**
 * Why no result came back. `retryable` is the implementation's view of the transport (a connection that broke
 * before the request was sent is safe to send again); the invocation core retries only tools whose host-assigned
 * replayPolicy is deterministic or idempotent (issue 14 item 5), never non-idempotent ones.
 */
export type UpstreamErrorKind =
  | 'timeout' // no answer within the call's bound
  | 'unavailable' // cannot connect, the server exited, the session broke mid-call
  | 'overloaded' // the source's queue is full (answered 429 with Retry-After)
  | 'circuit-open' // the source failed repeatedly; calls are refused for a while (503 with Retry-After)
  | 'too-large' // the result is larger than maxResultBytes
  | 'protocol' // the upstream answered something that is not a result
  | 'not-implemented' // a host extension without a declared implementation
  | 'cancelled' // the caller went away
  | 'revoked'; // the decision changed while the call waited in its source's queue: nothing was sent

export class UpstreamError extends Error {
  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly opts: { readonly retryable?: boolean; readonly retryAfterSeconds?: number; readonly cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.name = 'UpstreamError';
  }
}

export interface Upstream {
  call(target: CallTarget, call: UpstreamCall): Promise<UpstreamResult>;
  /** Ends every session and refuses new calls (shutdown). */
  close(): Promise<void>;
}
