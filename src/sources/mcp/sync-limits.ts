/**
 * Bounds on one sync of one MCP server: whatever the server does, a sync ends within these. Each is configurable
 * (TOOLCAT_SYNC_*, src/config/config.ts; issue 12 defect 6: the connect timeout was hard-coded).
 */
export interface SyncLimits {
  /** Spawn/connect plus the MCP initialize handshake (never longer than syncTimeoutMs). */
  readonly connectTimeoutMs: number;
  /** One tools/list request. */
  readonly requestTimeoutMs: number;
  /** The whole sync: connecting and all pages. */
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

/**
 * How much syncing one replica does, and how much a source's notifications may make it do (issue 12, defects 2
 * and 4). Configurable (TOOLCAT_SYNC_MAX_CONCURRENT, …).
 */
export interface SyncPolicy {
  /** Syncs this replica runs at once, of any kind (on demand, at start, scheduled, notified). */
  readonly maxConcurrentSyncs: number;
  /** On-demand syncs that may wait for a free place; one more is refused at once (CONFLICT, "too many syncs"). */
  readonly maxQueuedSyncs: number;
  /** Least time from the start of a source's last sync to a sync its list_changed notifications trigger. */
  readonly minSyncIntervalMs: number;
  /** Notifications of one source read per second; the rest are dropped before they are parsed. */
  readonly maxNotificationsPerSecond: number;
  /** How long a source that went over the notification cap FLOOD_SECONDS seconds in a row stays throttled (renewed while it floods). */
  readonly throttleMs: number;
}

export const DEFAULT_SYNC_POLICY: SyncPolicy = Object.freeze({
  maxConcurrentSyncs: 4,
  maxQueuedSyncs: 32,
  minSyncIntervalMs: 5_000,
  maxNotificationsPerSecond: 20,
  throttleMs: 60_000,
});

/** Seconds in a row over the notification cap that make a source "flooding", and so throttled. */
export const FLOOD_SECONDS = 3;
