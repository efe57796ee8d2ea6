/**
 * Issue 19: tracing and budgets shared across replicas. Both are off unless configured: with neither set, toolcat
 * loads no OpenTelemetry module and opens no Redis connection.
 */
export interface TracingSettings {
  /** `service.name` of the spans (OTEL_SERVICE_NAME, default toolcat). */
  readonly serviceName: string;
}

export interface SharedLimitSettings {
  /** redis:// or rediss:// URL (REDIS_URL). */
  readonly url: string;
  /** Prefix of every key toolcat writes (TOOLCAT_REDIS_PREFIX); replicas that share budgets use the same one. */
  readonly prefix: string;
  /** Bound on one budget check; past it (or on any Redis error) the replica's own budget decides (TOOLCAT_REDIS_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

export const OPS_ENV_DOCS: Readonly<Record<string, string>> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: 'OTLP/HTTP collector base URL (e.g. http://127.0.0.1:4318); setting it (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_TRACES_EXPORTER=otlp) turns tracing on (docs/observability.md)',
  OTEL_TRACES_EXPORTER: 'otlp turns tracing on; none turns it off whatever else is set (default: off)',
  OTEL_SDK_DISABLED: 'true turns tracing off whatever else is set',
  OTEL_SERVICE_NAME: 'service.name of the spans (default toolcat)',
  REDIS_URL: 'redis://host:port: rate-limit budgets are shared by every replica using this Redis (default: each replica has its own)',
  TOOLCAT_REDIS_PREFIX: 'prefix of the Redis keys of the shared budgets (default toolcat:rl:)',
  TOOLCAT_REDIS_TIMEOUT_MS: 'bound on one shared budget check; past it, or with Redis down, the replica\'s own budget decides (default 250)',
};

type Int = (name: string, dflt: number, min: number, max: number) => number;

/** Tracing is on when an OTLP exporter is asked for (the standard OpenTelemetry variables), null otherwise. */
export function loadTracingSettings(env: Record<string, string | undefined>, problems: string[]): TracingSettings | null {
  if (/^(true|1)$/i.test(env.OTEL_SDK_DISABLED ?? '')) return null;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean);
  const bad = exporters.filter((e) => e !== 'otlp' && e !== 'none');
  if (bad.length) problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got ${JSON.stringify(env.OTEL_TRACES_EXPORTER)})`);
  if (exporters.includes('none')) return null;
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!exporters.includes('otlp') && !endpoint) return null;
  if (endpoint && !/^https?:\/\//.test(endpoint)) problems.push('OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT must be an http:// or https:// URL (toolcat exports OTLP over HTTP)');
  return { serviceName: env.OTEL_SERVICE_NAME || 'toolcat' };
}

export function loadSharedLimitSettings(env: Record<string, string | undefined>, int: Int, problems: string[]): SharedLimitSettings | null {
  const url = env.REDIS_URL;
  if (!url) return null;
  if (!/^rediss?:\/\//.test(url)) problems.push('REDIS_URL must start with redis:// or rediss://');
  return { url, prefix: env.TOOLCAT_REDIS_PREFIX || 'toolcat:rl:', timeoutMs: int('TOOLCAT_REDIS_TIMEOUT_MS', 250, 10, 10_000) };
}
