/** The MCP face and the catalog event stream (issue 15), declared with their defaults; src/mcp-face applies them. */
export interface McpSettings {
  /**
   * Host header values (hostname, without port; lower case) /mcp and /catalog/events answer for: the DNS-rebinding
   * guard the MCP transport spec asks for. Default: the loopback names plus HOST when it names one host. `*`: any.
   */
  readonly allowedHosts: readonly string[];
  /**
   * Origins (scheme://host[:port]) a browser page may call from. A request without Origin (every non-browser client)
   * passes; loopback origins pass by default (local tools such as the MCP Inspector); `*`: any.
   */
  readonly allowedOrigins: readonly string[];
  /** The public base URL (https://toolcat.example.com) for RFC 9728 metadata; null: from the request's (allowed) Host. */
  readonly publicUrl: string | null;
  /** tools/list page size (cursor pagination past it). */
  readonly pageSize: number;
  /** Live MCP sessions of this replica, and of one principal (its least recently used one is closed past it). */
  readonly maxSessions: number;
  readonly maxSessionsPerPrincipal: number;
  /** Live MCP sessions (and, separately, event streams) of one tenant: one tenant never takes a replica's every slot. */
  readonly maxSessionsPerTenant: number;
  /** A session nobody used for this long is closed. */
  readonly sessionIdleMs: number;
  /** Catalog changes are coalesced for this long before callers' views are compared (list_changed, catalog.changed). */
  readonly changeDebounceMs: number;
  /** An idle event stream sends a comment this often (SSE heartbeat). */
  readonly heartbeatMs: number;
  /** Largest JSON-RPC request body. */
  readonly maxRequestBytes: number;
  /** A request body (on /mcp and the call endpoint) must have arrived within this long (TOOLCAT_BODY_DEADLINE_MS). */
  readonly bodyDeadlineMs: number;
}

export const DEFAULT_MCP_SETTINGS: McpSettings = Object.freeze({
  allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
  allowedOrigins: [],
  publicUrl: null,
  pageSize: 1000,
  maxSessions: 2000,
  maxSessionsPerPrincipal: 32,
  maxSessionsPerTenant: 256,
  sessionIdleMs: 30 * 60_000,
  changeDebounceMs: 100,
  heartbeatMs: 15_000,
  maxRequestBytes: 1024 * 1024 + 64 * 1024,
  bodyDeadlineMs: 30_000,
});

export const MCP_ENV_DOCS: Readonly<Record<string, string>> = {
  TOOLCAT_ALLOWED_HOSTS: 'comma-separated Host names /mcp and /catalog/events answer for (default: localhost, 127.0.0.1, [::1] and HOST); * = any',
  TOOLCAT_ALLOWED_ORIGINS: 'comma-separated browser Origins allowed on /mcp and /catalog/events besides loopback ones (default: none); * = any',
  TOOLCAT_PUBLIC_URL: 'public base URL (https://…) named in /.well-known/oauth-protected-resource (default: from the request Host)',
  TOOLCAT_MCP_PAGE_SIZE: `tools/list page size on /mcp (default ${DEFAULT_MCP_SETTINGS.pageSize})`,
  TOOLCAT_MCP_MAX_SESSIONS: `live MCP sessions per replica (default ${DEFAULT_MCP_SETTINGS.maxSessions}); then 503`,
  TOOLCAT_MCP_MAX_SESSIONS_PER_PRINCIPAL: `live MCP sessions of one principal (default ${DEFAULT_MCP_SETTINGS.maxSessionsPerPrincipal}); its least recently used one is closed`,
  TOOLCAT_MCP_MAX_SESSIONS_PER_TENANT: `live MCP sessions, and event streams, of one tenant (default ${DEFAULT_MCP_SETTINGS.maxSessionsPerTenant}); then 429`,
  TOOLCAT_BODY_DEADLINE_MS: `a request body on /mcp or a call endpoint must arrive within this long; then 408 (default ${DEFAULT_MCP_SETTINGS.bodyDeadlineMs})`,
  TOOLCAT_MCP_SESSION_IDLE_SECONDS: `an unused MCP session is closed after this long (default ${DEFAULT_MCP_SETTINGS.sessionIdleMs / 1000})`,
};

type Int = (name: string, dflt: number, min: number, max: number) => number;
type Env = Record<string, string | undefined>;

export function loadMcpSettings(env: Env, int: Int, problems: string[]): McpSettings {
  const d = DEFAULT_MCP_SETTINGS;
  const hosts = list(env.TOOLCAT_ALLOWED_HOSTS);
  const listenHost = (env.HOST || '').toLowerCase();
  const defaultHosts = listenHost && !['0.0.0.0', '::', '[::]'].includes(listenHost) ? [...d.allowedHosts, bracketed(listenHost)] : d.allowedHosts;
  const origins = list(env.TOOLCAT_ALLOWED_ORIGINS);
  for (const o of origins) if (o !== '*' && !/^https?:\/\/[^/]+$/i.test(o)) problems.push(`TOOLCAT_ALLOWED_ORIGINS: ${JSON.stringify(o)} is not an origin (scheme://host[:port])`);
  const publicUrl = env.TOOLCAT_PUBLIC_URL ? env.TOOLCAT_PUBLIC_URL.replace(/\/+$/, '') : null;
  if (publicUrl !== null && !/^https?:\/\/[^/]+(\/.*)?$/i.test(publicUrl)) problems.push(`TOOLCAT_PUBLIC_URL must be an http(s) URL (got ${JSON.stringify(publicUrl)})`);
  return {
    ...d,
    allowedHosts: hosts.length ? hosts.map((h) => h.toLowerCase()) : [...new Set(defaultHosts)],
    allowedOrigins: origins.map((o) => (o === '*' ? o : o.toLowerCase())),
    publicUrl,
    pageSize: int('TOOLCAT_MCP_PAGE_SIZE', d.pageSize, 1, 100_000),
    maxSessions: int('TOOLCAT_MCP_MAX_SESSIONS', d.maxSessions, 1, 1_000_000),
    maxSessionsPerPrincipal: int('TOOLCAT_MCP_MAX_SESSIONS_PER_PRINCIPAL', d.maxSessionsPerPrincipal, 1, 10_000),
    maxSessionsPerTenant: int('TOOLCAT_MCP_MAX_SESSIONS_PER_TENANT', d.maxSessionsPerTenant, 1, 1_000_000),
    bodyDeadlineMs: int('TOOLCAT_BODY_DEADLINE_MS', d.bodyDeadlineMs, 100, 600_000),
    sessionIdleMs: int('TOOLCAT_MCP_SESSION_IDLE_SECONDS', d.sessionIdleMs / 1000, 1, 7 * 86_400) * 1000,
  };
}

function list(v: string | undefined): string[] {
  return (v ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** An IPv6 listen address as a Host header writes it. */
function bracketed(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
