import { Writable } from 'node:stream';
import { createLogger } from '../../src/shared/logger';
import { type App, createApp } from '../../src/app';
import { type Config, testConfig } from '../../src/config/config';
import type { DatabaseConfig } from '../../src/config/config';
import type { Role } from '../../src/catalog/principal';

/** A real toolcat on a loopback port, with a host admin, a log capture and small HTTP/GraphQL clients. */
export interface TestHost {
  readonly app: App;
  readonly url: string;
  readonly adminKey: string;
  readonly logs: string[];
  get(path: string, key?: string | null, headers?: Record<string, string>): Promise<HttpResult>;
  request(method: string, path: string, key?: string | null, body?: string): Promise<HttpResult>;
  gql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<GqlResult<T>>;
  /** gql that fails the test on any error. */
  gqlOk<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<T>;
  close(): Promise<void>;
}

interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  json(): unknown;
}

export interface GqlResult<T> {
  readonly status: number;
  readonly data: T | null;
  readonly errors: Array<{ message: string; extensions?: { code?: string } }> | undefined;
}

export async function startHost(db: DatabaseConfig, overrides: Partial<Config> = {}, bootstrap = true, appOpts: Pick<NonNullable<Parameters<typeof createApp>[1]>, 'tracing'> = {}): Promise<TestHost> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const log = createLogger('debug', sink);
  const app = await createApp(testConfig({ db, ...overrides }), { log, ...appOpts });
  const { url } = await app.listen(0, '127.0.0.1');
  let adminKey = '';
  if (bootstrap) {
    const ops = (await app.services.tenancy.findTenantByName('ops')) ?? (await app.services.tenancy.createTenantUnchecked('ops'));
    adminKey = (await app.services.tenancy.createPrincipalUnchecked(ops.id, 'test-admin', 'host-admin')).apiKey;
  }
  const request = async (method: string, path: string, key?: string | null, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> => {
    const h: Record<string, string> = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(url + path, { method, headers: h, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
  };
  const gql = async <T>(query: string, variables: Record<string, unknown> = {}, key: string | null = adminKey): Promise<GqlResult<T>> => {
    const r = await request('POST', '/graphql', key, JSON.stringify({ query, variables }));
    const parsed = JSON.parse(r.text) as { data?: T; errors?: GqlResult<T>['errors'] };
    return { status: r.status, data: parsed.data ?? null, errors: parsed.errors };
  };
  return {
    app,
    url,
    adminKey,
    logs,
    get: (path, key = null, headers = {}) => request('GET', path, key, undefined, headers),
    request: (method, path, key = null, body) => request(method, path, key, body),
    gql,
    async gqlOk<T>(query: string, variables: Record<string, unknown> = {}, key: string | null = adminKey): Promise<T> {
      const r = await gql<T>(query, variables, key);
      if (r.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(r.errors)}`);
      return r.data as T;
    },
    close: () => app.close(),
  };
}

/** Creates a tenant with a principal of the given role through the public GraphQL API; returns ids and key. */
export async function aTenantWithKey(host: TestHost, name: string, role: Role = 'agent'): Promise<{ tenantId: string; principalId: string; key: string }> {
  const t = await host.gqlOk<{ createTenant: { id: string } }>('mutation($n: String!) { createTenant(name: $n) { id } }', { n: name });
  const p = await aPrincipal(host, t.createTenant.id, `${name}-${role}`, role);
  return { tenantId: t.createTenant.id, principalId: p.principalId, key: p.key };
}

export async function aPrincipal(host: TestHost, tenantId: string, name: string, role: Role = 'agent', actorKey = host.adminKey): Promise<{ principalId: string; key: string }> {
  const r = await host.gqlOk<{ createPrincipal: { apiKey: string; principal: { id: string } } }>(
    'mutation($i: CreatePrincipalInput!) { createPrincipal(input: $i) { apiKey principal { id } } }',
    { i: { tenantId, name, role } },
    actorKey,
  );
  return { principalId: r.createPrincipal.principal.id, key: r.createPrincipal.apiKey };
}

export async function aGrant(
  host: TestHost,
  input: { tenantId: string; toolPattern: string; principalId?: string; source?: string; maxSafetyTier?: string },
): Promise<string> {
  const r = await host.gqlOk<{ createGrant: { id: string } }>('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: input });
  return r.createGrant.id;
}

export async function anExtension(
  host: TestHost,
  input: { name: string; safetyTier: string; replayPolicy: string; egress: string; description?: string; inputSchema?: unknown; title?: string; tenantId?: string },
): Promise<void> {
  await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
    i: { description: `${input.name} tool`, inputSchema: { type: 'object', properties: {} }, ...input },
  });
}

/**
 * One database and one host for a whole describe block (before/after hooks registered here). `setup` runs
 * once after start. Read `s.host` and `s.db` inside tests and hooks (they exist only once `before` ran).
 */
export function hostPerSuite(
  database: { create(): Promise<{ db: DatabaseConfig; drop(): Promise<void> }> },
  overrides: Partial<Config> = {},
  setup?: (host: TestHost) => Promise<void>,
): { readonly host: TestHost; readonly db: DatabaseConfig } {
  const state: { host?: TestHost; db?: DatabaseConfig; drop?: () => Promise<void> } = {};
  before(async function () {
    this.timeout(60000);
    const created = await database.create();
    state.db = created.db;
    state.drop = created.drop;
    state.host = await startHost(created.db, overrides);
    await setup?.(state.host);
  });
  after(async () => {
    await state.host?.close();
    await state.drop?.();
  });
  return {
    get host() {
      return state.host!;
    },
    get db() {
      return state.db!;
    },
  };
}
