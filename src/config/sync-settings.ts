/**
 * MCP sync settings (issue 12), declared in config/ with their defaults and their parsing; src/sources applies them
 * (issue 13: configuration never imports the code it configures).
 */

/** config.ts's reader of one integer variable: the value, or `dflt` with the problem recorded. */
type IntReader = (name: string, dflt: number, min: number, max: number) => number;

/**
 * Bounds on one sync of one MCP server: whatever the server does, a sync ends within these. Each is configurable
 * (TOOLCAT_SYNC_*; issue 12 defect 6: the connect timeout was hard-coded).
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
  /** How long a source that went over the notification cap FLOOD_SECONDS (src/sources/mcp/notification-gate.ts) seconds in a row stays throttled (renewed while it floods). */
  readonly throttleMs: number;
}

export const DEFAULT_SYNC_POLICY: SyncPolicy = Object.freeze({
  maxConcurrentSyncs: 4,
  maxQueuedSyncs: 32,
  minSyncIntervalMs: 5_000,
  maxNotificationsPerSecond: 20,
  throttleMs: 60_000,
});

/** TOOLCAT_SYNC_* bounds of one sync; a value out of range is reported by `int` and the default kept. */
export function loadSyncLimits(int: IntReader): SyncLimits {
  return {
    connectTimeoutMs: int('TOOLCAT_SYNC_CONNECT_TIMEOUT_MS', DEFAULT_SYNC_LIMITS.connectTimeoutMs, 100, 3_600_000),
    requestTimeoutMs: int('TOOLCAT_SYNC_REQUEST_TIMEOUT_MS', DEFAULT_SYNC_LIMITS.requestTimeoutMs, 100, 3_600_000),
    syncTimeoutMs: int('TOOLCAT_SYNC_TIMEOUT_MS', DEFAULT_SYNC_LIMITS.syncTimeoutMs, 100, 3_600_000),
    maxPages: int('TOOLCAT_SYNC_MAX_PAGES', DEFAULT_SYNC_LIMITS.maxPages, 1, 100_000),
    maxTools: int('TOOLCAT_SYNC_MAX_TOOLS', DEFAULT_SYNC_LIMITS.maxTools, 1, 1_000_000),
    maxMessageBytes: int('TOOLCAT_SYNC_MAX_MESSAGE_BYTES', DEFAULT_SYNC_LIMITS.maxMessageBytes, 1024, 1024 ** 3),
  };
}

/** TOOLCAT_SYNC_MAX_CONCURRENT and the notification budget of one replica. */
export function loadSyncPolicy(int: IntReader): SyncPolicy {
  return {
    maxConcurrentSyncs: int('TOOLCAT_SYNC_MAX_CONCURRENT', DEFAULT_SYNC_POLICY.maxConcurrentSyncs, 1, 1000),
    maxQueuedSyncs: int('TOOLCAT_SYNC_MAX_QUEUED', DEFAULT_SYNC_POLICY.maxQueuedSyncs, 0, 100_000),
    minSyncIntervalMs: int('TOOLCAT_SYNC_MIN_INTERVAL_MS', DEFAULT_SYNC_POLICY.minSyncIntervalMs, 0, 86_400_000),
    maxNotificationsPerSecond: int('TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND', DEFAULT_SYNC_POLICY.maxNotificationsPerSecond, 0, 1_000_000),
    throttleMs: int('TOOLCAT_SYNC_THROTTLE_MS', DEFAULT_SYNC_POLICY.throttleMs, 1000, 86_400_000),
  };
}
