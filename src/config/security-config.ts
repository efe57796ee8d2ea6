import { readFileSync } from 'node:fs';
import type { JwtConfig } from './jwt-settings';
import { type Role, isRole } from '../catalog/principal';
import { DEFAULT_GRAPHQL_LIMITS, type GraphQLIde, type GraphQLLimits, type IntrospectionMode } from './graphql-settings';

/** The admin console's OIDC client (a public client: no secret; PKCE S256). */
export interface AdminOidcSettings {
  readonly clientId: string;
  /** The IdP's authorization endpoint (the browser is sent there). */
  readonly authorizationEndpoint: string;
  /** The IdP's token endpoint (the console POSTs the code there; its origin joins the page's connect-src). */
  readonly tokenEndpoint: string;
  readonly scope: string;
}

/** Identity and hardening settings (issue 5), read from the environment by loadConfig. */
export interface SecurityConfig {
  /** OIDC/JWT bearer tokens beside API keys; null: API keys only. */
  readonly jwt: { readonly config: JwtConfig; readonly roleMap: Readonly<Record<string, Role>> | undefined; readonly defaultRole: Role | null } | null;
  readonly graphqlLimits: GraphQLLimits;
  /**
   * Who may introspect the GraphQL schema (issue 11, defect 4): `off`, `admins` (tenant and host admins) or `all`.
   * Default `admins` in development, `off` in production. Agents and anonymous callers never get "Did you mean"
   * suggestions either way (src/graphql/limits/schema-visibility.plugin.ts).
   */
  readonly introspection: IntrospectionMode;
  /**
   * What a browser opening /graphql gets (issue 20): `graphiql` (bundled, served locally, works offline), `sandbox`
   * (Apollo Sandbox, loaded from Apollo's CDN) or `off`. Default graphiql in development, off in production.
   */
  readonly graphqlIde: GraphQLIde;
  /**
   * OIDC sign-in for the admin console (issue 20): authorization code + PKCE, in the browser, against these
   * endpoints; the token it gets is verified like any bearer JWT (`jwt` above). null: API keys only.
   */
  readonly adminOidc: AdminOidcSettings | null;
  /** Per-principal token bucket on the REST routes. */
  readonly rateLimit: { readonly capacity: number; readonly refillPerSecond: number; readonly maxKeys: number };
  /** When set, GET /metrics requires `Authorization: Bearer <this>`; null: /metrics is open (internal network only). */
  readonly metricsToken: string | null;
}

export const SECURITY_ENV_DOCS: Readonly<Record<string, string>> = {
  NODE_ENV: 'production turns introspection and the /graphql IDE off by default',
  TOOLCAT_GRAPHQL_INTROSPECTION:
    'off|admins|all: who may introspect the GraphQL schema (default: admins, i.e. tenant and host admins; off with NODE_ENV=production); true = all, false = off',
  TOOLCAT_GRAPHQL_IDE:
    'graphiql|sandbox|off: the IDE a browser gets at /graphql; graphiql is bundled and works offline, sandbox loads Apollo Sandbox from its CDN (default: graphiql; off with NODE_ENV=production)',
  TOOLCAT_GRAPHQL_LANDING_PAGE: 'older switch, used when TOOLCAT_GRAPHQL_IDE is unset: true = sandbox, false = off',
  TOOLCAT_GRAPHQL_MAX_DEPTH: `default ${DEFAULT_GRAPHQL_LIMITS.maxDepth}`,
  TOOLCAT_GRAPHQL_MAX_ALIASES: `default ${DEFAULT_GRAPHQL_LIMITS.maxAliases}`,
  TOOLCAT_GRAPHQL_MAX_COMPLEXITY: `default ${DEFAULT_GRAPHQL_LIMITS.maxComplexity}`,
  TOOLCAT_GRAPHQL_MAX_TOKENS: `default ${DEFAULT_GRAPHQL_LIMITS.maxTokens}`,
  TOOLCAT_GRAPHQL_MAX_BATCH: `operations per HTTP request (default ${DEFAULT_GRAPHQL_LIMITS.maxBatch}: batching off)`,
  TOOLCAT_GRAPHQL_MAX_REQUEST_BYTES: `default ${DEFAULT_GRAPHQL_LIMITS.maxRequestBytes}`,
  TOOLCAT_RATE_LIMIT_BURST: 'REST requests a principal may make at once (default 200)',
  TOOLCAT_RATE_LIMIT_PER_SECOND: 'sustained REST requests per second per principal (default 100)',
  TOOLCAT_METRICS_TOKEN: 'bearer token required by GET /metrics (at least 16 characters); unset: /metrics is open',
  TOOLCAT_JWT_ISSUER: 'enables OIDC/JWT bearer tokens: the expected iss',
  TOOLCAT_JWT_AUDIENCE: 'expected aud (comma-separated for several)',
  TOOLCAT_JWT_JWKS_URL: 'the IdP JWKS endpoint (https; http only on loopback)',
  TOOLCAT_JWT_KEYS_FILE: 'instead of a JWKS URL: a JSON file { "keys": [public JWKs] }',
  TOOLCAT_JWT_TENANT_CLAIM: 'claim holding the tenant name (default tenant; dotted paths allowed)',
  TOOLCAT_JWT_SUBJECT_CLAIM: 'default sub',
  TOOLCAT_JWT_ROLES_CLAIM: 'default roles (array or space-separated string)',
  TOOLCAT_JWT_GROUPS_CLAIM: 'default groups (an array of group names, or one name as a string: a string is never split, as group names may hold spaces): grants naming one of these groups narrow the token\'s principal',
  TOOLCAT_JWT_ROLE_MAP: 'token role=catalog role pairs, comma-separated (default agent=agent,tenant-admin=tenant-admin)',
  TOOLCAT_JWT_DEFAULT_ROLE: 'role for a token with no mapped role (default: refuse the token)',
  TOOLCAT_JWT_CLOCK_TOLERANCE_SEC: 'allowed clock skew for exp/nbf (default 30)',
  TOOLCAT_ADMIN_OIDC_CLIENT_ID: 'enables OIDC sign-in (authorization code + PKCE) in the admin console: its public client id (needs TOOLCAT_JWT_ISSUER)',
  TOOLCAT_ADMIN_OIDC_AUTHORIZATION_URL: 'the IdP authorization endpoint (https; http only on loopback)',
  TOOLCAT_ADMIN_OIDC_TOKEN_URL: 'the IdP token endpoint (https; http only on loopback); it must allow CORS from toolcat\'s origin',
  TOOLCAT_ADMIN_OIDC_SCOPE: 'default openid',
};

type Env = Record<string, string | undefined>;
type Num = (name: string, dflt: number, min: number, max: number) => number;
type Bool = (name: string, dflt: boolean) => boolean;

export function loadSecurityConfig(env: Env, int: Num, bool: Bool, problems: string[]): SecurityConfig {
  const production = env.NODE_ENV === 'production';
  const L = DEFAULT_GRAPHQL_LIMITS;
  return {
    jwt: loadJwt(env, int, problems),
    graphqlLimits: {
      maxDepth: int('TOOLCAT_GRAPHQL_MAX_DEPTH', L.maxDepth, 2, 100),
      maxAliases: int('TOOLCAT_GRAPHQL_MAX_ALIASES', L.maxAliases, 0, 1000),
      maxComplexity: int('TOOLCAT_GRAPHQL_MAX_COMPLEXITY', L.maxComplexity, 10, 1_000_000),
      maxTokens: int('TOOLCAT_GRAPHQL_MAX_TOKENS', L.maxTokens, 100, 1_000_000),
      maxBatch: int('TOOLCAT_GRAPHQL_MAX_BATCH', L.maxBatch, 1, 100),
      maxRequestBytes: int('TOOLCAT_GRAPHQL_MAX_REQUEST_BYTES', L.maxRequestBytes, 1024, 64 * 1024 ** 2),
    },
    introspection: introspectionMode(env.TOOLCAT_GRAPHQL_INTROSPECTION, production, problems),
    graphqlIde: graphqlIde(env, production, bool, problems),
    rateLimit: {
      capacity: int('TOOLCAT_RATE_LIMIT_BURST', 200, 1, 1_000_000),
      refillPerSecond: int('TOOLCAT_RATE_LIMIT_PER_SECOND', 100, 1, 1_000_000),
      maxKeys: 100_000,
    },
    metricsToken: metricsToken(env.TOOLCAT_METRICS_TOKEN, problems),
    adminOidc: adminOidc(env, problems),
  };
}

function adminOidc(env: Env, problems: string[]): AdminOidcSettings | null {
  const clientId = env.TOOLCAT_ADMIN_OIDC_CLIENT_ID;
  if (!clientId) return null;
  if (!env.TOOLCAT_JWT_ISSUER) problems.push('TOOLCAT_ADMIN_OIDC_CLIENT_ID needs TOOLCAT_JWT_ISSUER (and its keys): the console\'s tokens are verified as bearer JWTs');
  const endpoint = (name: string): string => {
    const v = env[name] ?? '';
    let u: URL | null = null;
    try {
      u = new URL(v);
    } catch {
      /* reported below */
    }
    const loopback = u !== null && (u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]');
    if (!u || !(u.protocol === 'https:' || (u.protocol === 'http:' && loopback))) problems.push(`${name} must be an https URL (http only on loopback); got ${JSON.stringify(v)}`);
    return v;
  };
  return {
    clientId,
    authorizationEndpoint: endpoint('TOOLCAT_ADMIN_OIDC_AUTHORIZATION_URL'),
    tokenEndpoint: endpoint('TOOLCAT_ADMIN_OIDC_TOKEN_URL'),
    scope: env.TOOLCAT_ADMIN_OIDC_SCOPE || 'openid',
  };
}

/**
 * TOOLCAT_GRAPHQL_IDE wins; else the older TOOLCAT_GRAPHQL_LANDING_PAGE keeps its meaning (true: Apollo Sandbox);
 * else GraphiQL, the one that works without internet, outside production.
 */
function graphqlIde(env: Env, production: boolean, bool: Bool, problems: string[]): GraphQLIde {
  const v = env.TOOLCAT_GRAPHQL_IDE?.trim().toLowerCase();
  if (v === 'graphiql' || v === 'sandbox' || v === 'off') return v;
  if (v) problems.push(`TOOLCAT_GRAPHQL_IDE must be graphiql, sandbox or off; got ${JSON.stringify(env.TOOLCAT_GRAPHQL_IDE)}`);
  if (env.TOOLCAT_GRAPHQL_LANDING_PAGE !== undefined && env.TOOLCAT_GRAPHQL_LANDING_PAGE !== '') return bool('TOOLCAT_GRAPHQL_LANDING_PAGE', false) ? 'sandbox' : 'off';
  return production ? 'off' : 'graphiql';
}

/** off | admins | all; true and false keep their earlier meaning (true: everyone, false: nobody). */
function introspectionMode(v: string | undefined, production: boolean, problems: string[]): IntrospectionMode {
  const dflt: IntrospectionMode = production ? 'off' : 'admins';
  if (v === undefined || v === '') return dflt;
  const s = v.trim().toLowerCase();
  if (s === 'admins') return 'admins';
  if (/^(all|true|1|yes|on)$/.test(s)) return 'all';
  if (/^(off|false|0|no)$/.test(s)) return 'off';
  problems.push(`TOOLCAT_GRAPHQL_INTROSPECTION must be off, admins or all (true means all, false means off); got ${JSON.stringify(v)}`);
  return dflt;
}

function metricsToken(v: string | undefined, problems: string[]): string | null {
  if (v === undefined || v === '') return null;
  if (v.length < 16 || !/^[\x21-\x7e]+$/.test(v)) problems.push('TOOLCAT_METRICS_TOKEN must be at least 16 printable ASCII characters, without spaces');
  return v;
}

function loadJwt(env: Env, int: Num, problems: string[]): SecurityConfig['jwt'] {
  if (!env.TOOLCAT_JWT_ISSUER) return null;
  let staticKeys: JwtConfig['staticKeys'];
  if (env.TOOLCAT_JWT_KEYS_FILE) {
    try {
      staticKeys = (JSON.parse(readFileSync(env.TOOLCAT_JWT_KEYS_FILE, 'utf8')) as { keys: JwtConfig['staticKeys'] }).keys;
    } catch (err) {
      problems.push(`TOOLCAT_JWT_KEYS_FILE cannot be read as { "keys": [...] }: ${(err as Error).message}`);
    }
  }
  const roleMap: Record<string, Role> = {};
  for (const pair of (env.TOOLCAT_JWT_ROLE_MAP ?? '').split(',').filter(Boolean)) {
    const [from, to] = pair.split('=').map((x) => x.trim());
    if (!from || !isRole(to)) problems.push(`TOOLCAT_JWT_ROLE_MAP entry "${pair}" must be tokenRole=agent|tenant-admin|host-admin`);
    else roleMap[from] = to;
  }
  const defaultRole = env.TOOLCAT_JWT_DEFAULT_ROLE ?? null;
  if (defaultRole !== null && !isRole(defaultRole)) problems.push('TOOLCAT_JWT_DEFAULT_ROLE must be agent, tenant-admin or host-admin');
  return {
    config: {
      issuer: env.TOOLCAT_JWT_ISSUER,
      audience: (env.TOOLCAT_JWT_AUDIENCE ?? '').split(',').map((a) => a.trim()).filter(Boolean),
      jwksUrl: env.TOOLCAT_JWT_JWKS_URL || undefined,
      staticKeys,
      tenantClaim: env.TOOLCAT_JWT_TENANT_CLAIM || undefined,
      subjectClaim: env.TOOLCAT_JWT_SUBJECT_CLAIM || undefined,
      rolesClaim: env.TOOLCAT_JWT_ROLES_CLAIM || undefined,
      groupsClaim: env.TOOLCAT_JWT_GROUPS_CLAIM || undefined,
      clockToleranceSec: int('TOOLCAT_JWT_CLOCK_TOLERANCE_SEC', 30, 0, 300),
    },
    roleMap: Object.keys(roleMap).length ? roleMap : undefined,
    defaultRole: defaultRole as Role | null,
  };
}
