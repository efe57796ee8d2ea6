import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { containsCredential, looksRandom, redactCredentials } from '../catalog/credentials';
import { SOURCE_NAME_PATTERN } from './mcp-tool-id';

/**
 * An MCP server registered as a tool source. The public part (this spec) is what admins read back; the
 * connection secrets (env values, headers, the full URL) live apart in McpSourceSecrets and are write-only.
 */
export const DriftPolicy = { Withhold: 'withhold', KeepServing: 'keep-serving' } as const;
export type DriftPolicy = (typeof DriftPolicy)[keyof typeof DriftPolicy];

/** A secret is a literal, or a reference to an environment variable of the toolcat process (read at connect). */
export type SecretValue = { readonly value: string } | { readonly fromEnv: string };

export interface McpSourceSpec {
  readonly name: string;
  readonly transport: 'stdio' | 'http';
  readonly command: string | null;
  readonly args: readonly string[];
  /** null: a global source; otherwise its tools are visible only inside this tenant. */
  readonly tenantId: string | null;
  readonly driftPolicy: DriftPolicy;
  readonly syncIntervalSeconds: number;
  readonly enabled: boolean;
}

export interface McpSourceSecrets {
  readonly env: Readonly<Record<string, SecretValue>>;
  /** http: the endpoint; a literal may carry a token in its query, so the whole URL is a secret. */
  readonly url: SecretValue | null;
  readonly headers: Readonly<Record<string, SecretValue>>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/;

export function validateSource(spec: McpSourceSpec, secrets: McpSourceSecrets): void {
  const problems: string[] = [];
  if (!SOURCE_NAME_PATTERN.test(spec.name)) problems.push('name must be 1-32 characters of a-z, 0-9 and "-", starting with a letter or digit');
  // The name is in every toolId agents see, in metric labels and logs: it may not look like a token (issue 11).
  else if (containsCredential(spec.name)) problems.push('name looks like a credential; choose another (it is part of every toolId of the source)');
  if (spec.transport === 'stdio') {
    if (!spec.command || spec.command.length > 1024) problems.push('stdio sources need a command (at most 1024 characters)');
    if (secrets.url) problems.push('stdio sources take no url');
    if (Object.keys(secrets.headers).length) problems.push('stdio sources take no headers');
  } else if (spec.transport === 'http') {
    if (!secrets.url) problems.push('http sources need a url');
    else if ('value' in secrets.url && (!/^https?:\/\//.test(secrets.url.value) || !URL.canParse(secrets.url.value))) problems.push('url must be an http:// or https:// URL');
    else if ('fromEnv' in secrets.url && !ENV_NAME.test(secrets.url.fromEnv)) problems.push('url.fromEnv must be an environment variable name');
    if (spec.command) problems.push('http sources take no command');
  } else problems.push('transport must be stdio or http');
  if (spec.args.length > 256 || spec.args.some((a) => typeof a !== 'string' || a.length > 4096)) problems.push('args must be at most 256 strings');
  for (const k of Object.keys(secrets.env)) if (!ENV_NAME.test(k)) problems.push(`env name "${k}" is not a valid variable name`);
  for (const k of Object.keys(secrets.headers)) if (!HEADER_NAME.test(k)) problems.push(`header name "${k}" is not a valid header name`);
  for (const v of [...Object.values(secrets.env), ...Object.values(secrets.headers)]) {
    if ('fromEnv' in v ? !ENV_NAME.test(v.fromEnv) : typeof v.value !== 'string' || v.value.length > 65536) {
      problems.push('secret values are { value: string } or { fromEnv: VARIABLE_NAME }');
      break;
    }
  }
  if (spec.driftPolicy !== 'withhold' && spec.driftPolicy !== 'keep-serving') problems.push('driftPolicy must be withhold or keep-serving');
  if (!Number.isInteger(spec.syncIntervalSeconds) || spec.syncIntervalSeconds < 0 || spec.syncIntervalSeconds > 86400 * 7) {
    problems.push('syncIntervalSeconds must be an integer from 0 (no periodic sync) to 604800');
  }
  if (problems.length) throw new CatalogError(CatalogErrorCode.InvalidArgument, problems.join('; '));
}

/** Resolves secrets for a connection. A missing environment variable is a clear error, never an empty value. */
export function resolveSecrets(values: Readonly<Record<string, SecretValue>>, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    if ('fromEnv' in v) {
      const resolved = env[v.fromEnv];
      if (resolved === undefined) throw new Error(`environment variable ${v.fromEnv} (for ${k}) is not set`);
      out[k] = resolved;
    } else out[k] = v.value;
  }
  return out;
}

/**
 * What admins may see of a URL: scheme, host and path. Userinfo and query (where tokens hide) are cut, and a
 * credential-shaped path segment (a webhook secret, a token in the path) is redacted (issue 11).
 */
export function publicUrl(url: SecretValue | null): string | null {
  if (!url) return null;
  if ('fromEnv' in url) return `$${url.fromEnv}`;
  if (!URL.canParse(url.value)) return null;
  const u = new URL(url.value);
  // Many hosted MCP endpoints carry their key as a path segment (`/s/<key>/sse`): a segment that looks random is
  // shown as [redacted], like any credential-shaped text (issue 11, red-team follow-up).
  const path = u.pathname
    .split('/')
    .map((seg) => (looksRandom(decodeSegment(seg), 16) ? '[redacted]' : seg))
    .join('/');
  return redactCredentials(`${u.protocol}//${u.host}${path}`);
}

function decodeSegment(seg: string): string {
  try {
    return decodeURIComponent(seg);
  } catch {
    return seg;
  }
}

export function resolveUrl(url: SecretValue, env: Readonly<Record<string, string | undefined>>): string {
  const resolved = resolveSecrets({ url }, env).url;
  if (!/^https?:\/\//.test(resolved) || !URL.canParse(resolved)) throw new Error('the source url is not an http(s) URL');
  return resolved;
}
