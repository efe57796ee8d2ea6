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

/** Literal secret values, so error texts that happen to quote one can be scrubbed. */
export function literalSecrets(s: McpSourceSecrets): string[] {
  const vals = [...Object.values(s.env), ...Object.values(s.headers)].flatMap((v) => ('value' in v ? [v.value] : []));
  if (s.url && 'value' in s.url) {
    const u = URL.canParse(s.url.value) ? new URL(s.url.value) : null;
    if (u?.password) vals.push(u.password);
    if (u?.search) vals.push(u.search.slice(1));
  }
  return vals;
}
