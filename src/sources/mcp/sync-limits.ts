/** Bounds on one sync of one MCP server: whatever the server does, a sync ends within these. Configurable. */
export interface SyncLimits {
  /** Spawn/connect plus the MCP initialize handshake. */
  readonly connectTimeoutMs: number;
  /** One tools/list request. */
  readonly requestTimeoutMs: number;
  /** The whole sync (all pages). */
  readonly syncTimeoutMs: number;
  readonly maxPages: number;
  /** More tools than this and the listing is refused as a whole (the last good snapshot keeps serving). */
  readonly maxTools: number;
  /** One JSON-RPC message (a page). A larger one kills the connection: memory stays bounded. */
  readonly maxMessageBytes: number;
}

export const DEFAULT_SYNC_LIMITS: SyncLimits = Object.freeze({
  connectTimeoutMs: 20_000,
  requestTimeoutMs: 15_000,
  syncTimeoutMs: 60_000,
  maxPages: 200,
  maxTools: 5_000,
  maxMessageBytes: 16 * 1024 * 1024,
});
