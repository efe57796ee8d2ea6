import type { DataSource } from 'typeorm';
import { McpSourceSecretEntity } from '../persistence/mcp-source-secret.entity';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import type { DriftPolicy, McpSourceSecrets, McpSourceSpec, SecretValue } from './source-spec';

/** Reads a source's spec and (for connecting only) its secrets. */
export async function loadSource(ds: DataSource, name: string): Promise<{ row: McpSourceEntity; spec: McpSourceSpec; secrets: McpSourceSecrets } | null> {
  const row = await ds.getRepository(McpSourceEntity).findOne({ where: { name } });
  if (!row) return null;
  const sec = await ds.getRepository(McpSourceSecretEntity).findOne({ where: { sourceName: name } });
  return {
    row,
    spec: {
      name: row.name,
      transport: row.transport as McpSourceSpec['transport'],
      command: row.command,
      args: JSON.parse(row.args) as string[],
      tenantId: row.tenantId,
      driftPolicy: row.driftPolicy as DriftPolicy,
      syncIntervalSeconds: row.syncIntervalSeconds,
      enabled: Boolean(row.enabled),
    },
    secrets: {
      env: sec ? (JSON.parse(sec.env) as Record<string, SecretValue>) : {},
      url: sec?.url ? (JSON.parse(sec.url) as SecretValue) : null,
      headers: sec ? (JSON.parse(sec.headers) as Record<string, SecretValue>) : {},
    },
  };
}

/**
 * The values of a source's secrets as they reach its server, `{ fromEnv }` ones resolved from `env`, so error
 * texts that quote one (a server echoing its environment on stderr, a URL in an error) can be scrubbed (issue 11,
 * defect 3: only literals were, so an echoed `fromEnv` secret landed verbatim in lastError, the audit row and the
 * log). Computed when an error is sanitised and dropped with it: resolved values are never stored.
 */
export function secretValues(s: McpSourceSecrets, env: Readonly<Record<string, string | undefined>>): string[] {
  const resolve = (v: SecretValue): string | undefined => ('value' in v ? v.value : env[v.fromEnv]);
  const vals: string[] = [];
  for (const v of [...Object.values(s.env), ...Object.values(s.headers)]) {
    const r = resolve(v);
    if (r === undefined) continue;
    vals.push(r);
    // `Bearer <token>`, `token=<value>`: a server may echo the credential part alone.
    for (const part of r.split(/[\s=:,;]+/)) if (part.length >= 8 && part !== r) vals.push(part);
  }
  const url = s.url ? resolve(s.url) : undefined;
  if (url !== undefined) {
    const u = URL.canParse(url) ? new URL(url) : null;
    // A literal URL's scheme, host and path are what admins see anyway (publicUrl); a `fromEnv` one shows only
    // the variable's name, so all of it is secret.
    if (s.url && 'fromEnv' in s.url) vals.push(url, ...(u ? [`${u.origin}${u.pathname}`] : []));
    if (u?.username) vals.push(u.username, safeDecode(u.username));
    if (u?.password) vals.push(u.password, safeDecode(u.password));
    if (u?.search) vals.push(u.search.slice(1), ...[...u.searchParams.values()].filter((p) => p.length >= 8));
  }
  // The forms they take inside texts: URL-encoded and JSON-escaped.
  return [...new Set(vals.flatMap((v) => [v, encodeURIComponent(v), JSON.stringify(v).slice(1, -1)]))];
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
