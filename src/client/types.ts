/**
 * The wire shapes the client reads, written from the published contract (schemas/v2, openapi.json), not imported
 * from the server: the client is a separate layer that must work against any tool catalog v2 host. Every object is
 * open (`[key: string]: unknown`): a consumer keeps fields it does not know (TC-CAT-6 asks it to tolerate a host's
 * choices; a newer host may add fields), and enumerations are `string` where a host may widen them.
 */

/** `mcp` and `host-extension` today; any other value a host projects is kept as it came. */
export type ToolSource = 'mcp' | 'host-extension' | (string & {});
export type ReplayPolicy = 'deterministic' | 'idempotent' | 'non-idempotent' | (string & {});
export type SafetyTier = 'pure' | 'read' | 'write' | 'exec' | (string & {});

export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
  readonly [key: string]: unknown;
}

/** A descriptor in either view. Only `toolId` and `inputSchema` are relied on; the rest may be absent on a minimal host. */
export interface ToolDescriptor {
  readonly toolId: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly source?: ToolSource;
  readonly safetyTier?: SafetyTier;
  readonly replayPolicy?: ReplayPolicy;
  readonly egress?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: ToolAnnotations;
  /** A provider-safe function name, when the host serves a provider profile (`?profile=openai|anthropic|gemini`). */
  readonly functionName?: string;
  readonly [key: string]: unknown;
}

export interface Capabilities {
  readonly hostVersion?: string;
  readonly toolCatalog?: {
    /** Any subset, empty included (TC-CAT-6). */
    readonly sources?: readonly ToolSource[];
    readonly compactView?: boolean;
    readonly sessionLifecycle?: boolean;
    readonly calls?: boolean;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

export interface ContentBlock {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** MCP's CallToolResult plus ids. A tool error is a result (`isError: true`), never an exception. */
export interface CallResult {
  readonly callId: string;
  readonly toolId: string;
  readonly isError: boolean;
  readonly content: readonly ContentBlock[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** One event of a streamed call. Session events may be absent: a host need not send them (TC-SESS-2). */
export type CallEvent =
  | { readonly type: 'tool.session.opened' | 'tool.session.closed'; readonly data: { readonly callId?: string; readonly at?: string } }
  | { readonly type: 'tool.call.progress'; readonly data: { readonly callId?: string; readonly progress?: number; readonly total?: number; readonly message?: string } }
  | { readonly type: 'tool.call.result'; readonly data: CallResult }
  | { readonly type: 'tool.call.error'; readonly data: { readonly callId?: string; readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> } }
  /** An event this client does not know, kept as it came. */
  | { readonly type: 'other'; readonly event: string; readonly data: unknown };

export interface PastCall {
  readonly callId: string;
  readonly toolId: string;
  readonly status?: string;
  readonly outcome?: string;
  readonly result?: CallResult;
  readonly error?: { readonly code?: string; readonly message?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** `catalog.changed`: the caller's own list changed; `etag` is its new list ETag (also the event id). */
export interface CatalogChange {
  readonly etag: string;
}
