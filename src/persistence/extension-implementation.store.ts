import type { EntityManager } from 'typeorm';
import type { DataSource } from 'typeorm';
import type { ExtensionImplementationSpec, SecretSpec } from '../catalog/host-extension';
import { ExtensionImplementationEntity } from './extension-implementation.entity';

/** A host extension's implementation as a call needs it, secrets resolved (issue 14). */
export interface ResolvedImplementation {
  readonly kind: 'http';
  readonly url: string;
  readonly secret: string;
  readonly timeoutMs?: number;
}

/**
 * Host-extension implementations (issue 14): written with the extension (config file or GraphQL), read only when a
 * call is made, where `{ fromEnv }` values are resolved from the process environment. The secret is never read back
 * by any query.
 */
export async function writeImplementation(m: EntityManager, toolId: string, spec: ExtensionImplementationSpec | null | undefined): Promise<void> {
  const repo = m.getRepository(ExtensionImplementationEntity);
  if (!spec) {
    await repo.delete({ toolId });
    return;
  }
  await repo.save(repo.create({ toolId, kind: 'http', url: JSON.stringify(spec.http.url), secret: JSON.stringify(spec.http.secret), timeoutMs: spec.http.timeoutMs ?? null }));
}

export async function removeImplementation(m: EntityManager, toolId: string): Promise<void> {
  await m.getRepository(ExtensionImplementationEntity).delete({ toolId });
}

export class ExtensionImplementationStore {
  constructor(
    private readonly ds: DataSource,
    private readonly env: Readonly<Record<string, string | undefined>>,
  ) {}

  /** null when the extension declares none; throws when a `fromEnv` variable is not set (a configuration error). */
  async resolve(toolId: string): Promise<ResolvedImplementation | null> {
    const row = await this.ds.getRepository(ExtensionImplementationEntity).findOne({ where: { toolId } });
    if (!row) return null;
    return {
      kind: 'http',
      url: this.value(JSON.parse(row.url) as SecretSpec, 'url'),
      secret: this.value(JSON.parse(row.secret) as SecretSpec, 'secret'),
      ...(row.timeoutMs !== null ? { timeoutMs: row.timeoutMs } : {}),
    };
  }

  private value(v: SecretSpec, what: string): string {
    if (typeof v === 'string') return v;
    const resolved = this.env[v.fromEnv];
    if (resolved === undefined || resolved === '') throw new Error(`environment variable ${v.fromEnv} (the implementation's ${what}) is not set`);
    return resolved;
  }
}

/** What is wrong with an implementation spec (empty when nothing is). */
export function implementationProblems(spec: ExtensionImplementationSpec | null | undefined): string[] {
  if (spec === null || spec === undefined) return [];
  const problems: string[] = [];
  const http = (spec as { http?: unknown }).http as { url?: unknown; secret?: unknown; timeoutMs?: unknown } | undefined;
  if (!http || typeof http !== 'object') return ['implementation must be { http: { url, secret } }'];
  const secretOk = (v: unknown, minLength: number) =>
    (typeof v === 'string' && v.length >= minLength && v.length <= 65536) || (v !== null && typeof v === 'object' && typeof (v as { fromEnv?: unknown }).fromEnv === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test((v as { fromEnv: string }).fromEnv));
  if (!secretOk(http.url, 8) || (typeof http.url === 'string' && !(/^https?:\/\//.test(http.url) && URL.canParse(http.url)))) problems.push('implementation.http.url must be an http(s) URL or { fromEnv: VARIABLE }');
  // The secret keys an HMAC: a short one could be guessed.
  if (!secretOk(http.secret, 16)) problems.push('implementation.http.secret must be at least 16 characters, or { fromEnv: VARIABLE }');
  if (http.timeoutMs !== undefined && (!Number.isInteger(http.timeoutMs) || (http.timeoutMs as number) < 100 || (http.timeoutMs as number) > 3_600_000)) problems.push('implementation.http.timeoutMs must be an integer from 100 to 3600000');
  return problems;
}
