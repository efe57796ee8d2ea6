import type { ConfigFileSource } from '../config/config-file';
import type { SourceInput } from './source-admin.service';
import type { SecretValue } from './source-spec';

/** Config-file MCP server entries → source inputs. Strings are literals; `{ fromEnv }` is a reference. */
export function toSourceInput(s: ConfigFileSource, tenantIdByName: (name: string) => string | null): SourceInput {
  const secret = (v: string | { fromEnv: string }): SecretValue => (typeof v === 'string' ? { value: v } : { fromEnv: v.fromEnv });
  const map = (m?: Record<string, string | { fromEnv: string }>) => Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, secret(v)]));
  return {
    spec: {
      name: s.name,
      transport: s.transport,
      command: s.command ?? null,
      args: s.args ?? [],
      tenantId: s.tenant ? tenantIdByName(s.tenant) : null,
      driftPolicy: s.driftPolicy ?? 'withhold',
      syncIntervalSeconds: s.syncIntervalSeconds ?? 300,
      enabled: s.enabled ?? true,
    },
    secrets: { env: map(s.env), url: s.url === undefined ? null : secret(s.url), headers: map(s.headers) },
  };
}
