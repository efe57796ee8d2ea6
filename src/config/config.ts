import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CatalogCacheLimits, DEFAULT_CACHE_BYTES, DEFAULT_STREAM_LIST_MIN_TOOLS, cacheLimitsFor } from './cache-settings';
import { type SyncLimits, type SyncPolicy, loadSyncLimits, loadSyncPolicy } from './sync-settings';
import { SECURITY_ENV_DOCS, type SecurityConfig, loadSecurityConfig } from './security-config';
import { CALL_ENV_DOCS, type CallSettings, loadCallSettings } from './call-settings';
import { MCP_ENV_DOCS, type McpSettings, loadMcpSettings } from './mcp-settings';
import { SEARCH_ENV_DOCS, type SearchSettings, loadSearchSettings } from './search-settings';
import { OPS_ENV_DOCS, type SharedLimitSettings, type TracingSettings, loadSharedLimitSettings, loadTracingSettings } from './ops-settings';
import { isSafetyTier } from '../catalog/descriptor';
import { type GrantShape, UNRESTRICTED_CEILING } from '../catalog/grant-scope';

/**
 * The only place environment variables are read (called with the real env by the CLI alone). Every
 * variable is validated and every problem listed at once.
 */
export type DatabaseConfig =
  | {
      readonly type: 'sqlite';
      readonly path: string;
      /**
       * SQLite's `synchronous` in WAL mode (issue 14): `normal` (default) commits without an fsync, so a commit survives
       * a crash of toolcat but the last ones may roll back after a power loss or an OS crash (never a corrupt file);
       * `full` fsyncs every commit, which blocks the event loop ~0.3 ms per write on this machine's disk (two writes per
       * tool call). PostgreSQL is the production backend; its durability is its own setting.
       */
      readonly synchronous?: SqliteSynchronous;
    }
  | { readonly type: 'postgres'; readonly url: string; readonly poolSize: number };

type SqliteSynchronous = 'normal' | 'full';

export interface Config {
  readonly db: DatabaseConfig;
  readonly http: { readonly host: string; readonly port: number };
  /** Config file with host extensions and MCP servers (YAML or JSON); null: none. */
  readonly configFile: string | null;
  /**
   * How start-up applies the config file (issue 19): `prune` also removes what the file no longer declares;
   * `force` applies it even though the database has another file applied (by another replica or operator).
   */
  readonly configApply: { readonly prune: boolean; readonly force: boolean };
  /** Bounds on one MCP source sync. */
  readonly syncLimits: SyncLimits;
  /** How many syncs run at once, and how often a source's notifications may trigger one (issue 12). */
  readonly syncPolicy: SyncPolicy;
  /** Sync MCP sources at start and on their intervals (off for one-shot CLI commands). */
  readonly startSources: boolean;
  /** How often the stored catalog version is polled for changes made by other processes (0: never). */
  readonly versionPollMs: number;
  /** How often the database is probed for /readyz and fast 503s (0: never). */
  readonly healthProbeMs: number;
  /** Byte bounds of the response cache. */
  readonly cache: CatalogCacheLimits;
  /** GET /tools streams lists of at least this many tools from the cached descriptors (issue 21). */
  readonly streamListMinTools: number;
  /** Identity and hardening (issue 5). */
  readonly security: SecurityConfig;
  /** Environment that `{ fromEnv }` secrets of MCP sources are read from. */
  readonly secretEnv: Readonly<Record<string, string | undefined>>;
  /** Advertise and serve `?view=compact` (toolCatalog.compactView). */
  readonly compactView: boolean;
  readonly logLevel: string;
  readonly hostVersion: string;
  /** Run pending migrations at start instead of refusing to serve. */
  readonly migrateOnStart: boolean;
  /** The ceiling a new tenant starts with (issue 11 defect 6); host admins change it per tenant. */
  readonly tenantDefaultCeiling: readonly GrantShape[];
  /** Bounds on tool calls (issue 14). */
  readonly calls: CallSettings;
  /** The MCP face and the catalog event stream (issue 15). */
  readonly mcp: McpSettings;
  /** Tool search: the optional embedding stage (issue 18). */
  readonly search: SearchSettings;
  /** OpenTelemetry tracing (issue 19); null: off, and no OpenTelemetry module is loaded. */
  readonly tracing: TracingSettings | null;
  /** Rate-limit budgets shared through Redis (issue 19); null: each replica keeps its own. */
  readonly sharedLimits: SharedLimitSettings | null;
}

export const ENV_DOCS: Readonly<Record<string, string>> = {
  DATABASE_URL: 'PostgreSQL URL (postgres://…); when unset, the embedded SQLite file is used',
  TOOLCAT_SQLITE_PATH: 'SQLite file (default ./data/toolcat.sqlite; ":memory:" for a throwaway catalog)',
  TOOLCAT_SQLITE_SYNCHRONOUS: 'SQLite durability: normal (default; a commit survives a toolcat crash, the last ones may be lost on power loss) or full (an fsync per commit)',
  TOOLCAT_DB_POOL_SIZE: 'PostgreSQL pool size (default 10)',
  HOST: 'listen address (default 127.0.0.1)',
  PORT: 'listen port (default 8080; 0 picks a free one)',
  TOOLCAT_CONFIG_FILE: 'config file with host extensions and MCP servers, YAML or JSON (default: none; TOOLCAT_EXTENSIONS_FILE is an alias)',
  TOOLCAT_CONFIG_PRUNE: 'true|false: at start, also remove what the config file owns and no longer declares (default false: listed, kept)',
  TOOLCAT_CONFIG_FORCE: 'true|false: at start, apply the config file even if the database has another one applied (default false: not applied, warned)',
  TOOLCAT_DRAIN_MS: 'on SIGTERM, how long in-flight requests may take to finish (default 10000)',
  TOOLCAT_HEALTH_PROBE_MS: 'how often the database is probed for readiness (default 1000)',
  TOOLCAT_VERSION_POLL_MS: 'how often changes made by other processes are looked for (default 1000)',
  TOOLCAT_CACHE_MAX_BYTES: 'bound on the whole response cache: 1/2 documents, 1/3 descriptors, 1/6 visible sets (default 192 MiB)',
  TOOLCAT_STREAM_LIST_MIN_TOOLS: 'GET /tools streams lists of at least this many tools from the cached descriptors instead of one buffered body (default 10000)',
  TOOLCAT_SYNC_CONNECT_TIMEOUT_MS: 'bound on starting/connecting to an MCP server and its initialize handshake (default 20000)',
  TOOLCAT_SYNC_REQUEST_TIMEOUT_MS: 'bound on one tools/list page (default 15000)',
  TOOLCAT_SYNC_TIMEOUT_MS: 'bound on one whole MCP source sync, connecting and all pages (default 60000)',
  TOOLCAT_SYNC_MAX_PAGES: 'a source paginating past this many tools/list pages fails its sync (default 200)',
  TOOLCAT_SYNC_MAX_TOOLS: 'a source listing more tools is refused (default 5000)',
  TOOLCAT_SYNC_MAX_MESSAGE_BYTES: 'largest message accepted from an MCP server (default 16 MiB)',
  TOOLCAT_SYNC_MAX_CONCURRENT: 'syncs one replica runs at once, of any kind (default 4)',
  TOOLCAT_SYNC_MAX_QUEUED: 'on-demand syncs that may wait for a free place; more are refused with CONFLICT (default 32)',
  TOOLCAT_SYNC_MIN_INTERVAL_MS: 'least time between a source\'s last sync and one its list_changed notifications trigger (default 5000)',
  TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND: 'notifications of one source read per second; the rest are dropped unparsed (default 20)',
  TOOLCAT_SYNC_THROTTLE_MS: 'how long a source over that cap 3 seconds in a row is throttled, renewed while it floods (default 60000)',
  TOOLCAT_COMPACT_VIEW: 'true|false: serve ?view=compact (default true)',
  TOOLCAT_MIGRATE: 'true|false: run pending migrations at start (default true for SQLite, false for PostgreSQL)',
  TOOLCAT_TENANT_DEFAULT_MAX_TIER: 'pure|read|write|exec: the ceiling of a new tenant is every tool up to this tier (default: unrestricted)',
  ...SECURITY_ENV_DOCS,
  ...CALL_ENV_DOCS,
  ...MCP_ENV_DOCS,
  ...SEARCH_ENV_DOCS,
  ...OPS_ENV_DOCS,
  LOG_LEVEL: 'pino level: fatal|error|warn|info|debug|trace|silent (default info)',
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const problems: string[] = [];
  const bool = (name: string, dflt: boolean): boolean => {
    const v = env[name];
    if (v === undefined || v === '') return dflt;
    if (/^(true|1|yes|on)$/i.test(v)) return true;
    if (/^(false|0|no|off)$/i.test(v)) return false;
    problems.push(`${name} must be true or false (got ${JSON.stringify(v)})`);
    return dflt;
  };
  const int = (name: string, dflt: number, min: number, max: number): number => {
    const v = env[name];
    if (v === undefined || v === '') return dflt;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
      return dflt;
    }
    return n;
  };

  let db: DatabaseConfig;
  const url = env.DATABASE_URL;
  if (url) {
    if (!/^postgres(ql)?:\/\//.test(url)) problems.push('DATABASE_URL must start with postgres:// or postgresql://');
    db = { type: 'postgres', url, poolSize: int('TOOLCAT_DB_POOL_SIZE', 10, 1, 200) };
  } else {
    const synchronous = (env.TOOLCAT_SQLITE_SYNCHRONOUS || 'normal').toLowerCase();
    if (synchronous !== 'normal' && synchronous !== 'full') problems.push(`TOOLCAT_SQLITE_SYNCHRONOUS must be normal or full (got ${JSON.stringify(env.TOOLCAT_SQLITE_SYNCHRONOUS)})`);
    db = { type: 'sqlite', path: env.TOOLCAT_SQLITE_PATH || join('data', 'toolcat.sqlite'), synchronous: synchronous === 'full' ? 'full' : 'normal' };
  }
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const config: Config = {
    db,
    http: { host: env.HOST || '127.0.0.1', port: int('PORT', 8080, 0, 65535) },
    configFile: env.TOOLCAT_CONFIG_FILE || env.TOOLCAT_EXTENSIONS_FILE || null,
    configApply: { prune: bool('TOOLCAT_CONFIG_PRUNE', false), force: bool('TOOLCAT_CONFIG_FORCE', false) },
    syncLimits: loadSyncLimits(int),
    syncPolicy: loadSyncPolicy(int),
    startSources: true,
    versionPollMs: int('TOOLCAT_VERSION_POLL_MS', 1000, 0, 60_000),
    healthProbeMs: int('TOOLCAT_HEALTH_PROBE_MS', 1000, 0, 60_000),
    cache: cacheLimitsFor(int('TOOLCAT_CACHE_MAX_BYTES', DEFAULT_CACHE_BYTES, 0, 48 * 1024 ** 3)),
    streamListMinTools: int('TOOLCAT_STREAM_LIST_MIN_TOOLS', DEFAULT_STREAM_LIST_MIN_TOOLS, 1, 1_000_000_000),
    secretEnv: env,
    security: loadSecurityConfig(env, int, bool, problems),
    compactView: bool('TOOLCAT_COMPACT_VIEW', true),
    logLevel,
    hostVersion: packageVersion(),
    migrateOnStart: bool('TOOLCAT_MIGRATE', db.type === 'sqlite'),
    tenantDefaultCeiling: defaultCeiling(env.TOOLCAT_TENANT_DEFAULT_MAX_TIER, problems),
    calls: loadCallSettings(int, bool),
    mcp: loadMcpSettings(env, int, problems),
    search: loadSearchSettings(env, int, problems),
    tracing: loadTracingSettings(env, problems),
    sharedLimits: loadSharedLimitSettings(env, int, problems),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

function defaultCeiling(v: string | undefined, problems: string[]): readonly GrantShape[] {
  if (v === undefined || v === '') return UNRESTRICTED_CEILING;
  if (!isSafetyTier(v)) {
    problems.push(`TOOLCAT_TENANT_DEFAULT_MAX_TIER must be pure, read, write or exec (got ${JSON.stringify(v)})`);
    return UNRESTRICTED_CEILING;
  }
  return [{ toolPattern: '*', source: null, maxSafetyTier: v }];
}

/** Defaults for tests and embedding: in-memory SQLite, ephemeral port. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ TOOLCAT_SQLITE_PATH: ':memory:', PORT: '0', LOG_LEVEL: 'silent' }), ...overrides };
}

let cachedVersion: string | null = null;
function packageVersion(): string {
  if (cachedVersion) return cachedVersion;
  // dist/src/config -> repo root, or src/config -> repo root
  for (const up of ['../../..', '../..']) {
    try {
      cachedVersion = (JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as { version: string }).version;
      return cachedVersion;
    } catch {
      /* try the next candidate */
    }
  }
  return '0.0.0';
}
