/** Who is calling. Built from a verified credential only; every read is scoped by tenantId. */
export const Role = { Agent: 'agent', TenantAdmin: 'tenant-admin', HostAdmin: 'host-admin' } as const;
export type Role = (typeof Role)[keyof typeof Role];
export const ROLES: readonly Role[] = ['agent', 'tenant-admin', 'host-admin'];

/** How the principal authenticated: a stored principal's API key, or a verified OIDC/JWT access token. */
const PrincipalKind = { ApiKey: 'api-key', Jwt: 'jwt' } as const;
type PrincipalKind = (typeof PrincipalKind)[keyof typeof PrincipalKind];

export interface Principal {
  /** A stored principal's UUID, or `jwt:` + a hash of issuer, tenant and subject (bearer.ts). */
  readonly id: string;
  readonly kind: PrincipalKind;
  readonly tenantId: string;
  readonly tenantName: string;
  readonly name: string;
  readonly role: Role;
  /**
   * Narrowing grant groups the principal belongs to (issue 11 defect 7): the groups claim of a JWT, as the host
   * configured it; always empty for stored principals (they are narrowed by their own id). Sorted, distinct.
   */
  readonly groups: readonly string[];
}

export function isRole(v: unknown): v is Role {
  return typeof v === 'string' && (ROLES as readonly string[]).includes(v);
}

/**
 * Everything a per-principal decision depends on, as one key (issue 11 defect 1): tenant, kind, id, role and
 * narrowing groups. Every cache of a decision (visible sets) and every per-principal budget (rate limits) is
 * keyed by this and nothing less, so two principals that differ in any input can never share an answer: the
 * same JWT subject in two tenants, or the same subject with other groups, is another key.
 */
export function decisionKey(p: Principal): string {
  let key = decisionKeys.get(p);
  if (key === undefined) {
    key = JSON.stringify([p.tenantId, p.kind, p.id, p.role, p.groups]);
    decisionKeys.set(p, key);
  }
  return key;
}

/**
 * Principals are immutable (readonly fields, groups sorted when built) and one object serves every request of a
 * credential for a catalog generation (the authentication cache), so its key is computed once per object rather
 * than three times per request (issue 21: ~4 µs of each 304). Weak: the key dies with its principal.
 */
const decisionKeys = new WeakMap<Principal, string>();

/**
 * The one spelling of a narrowing group name, for grants and for token claims alike (issue 11, red-team follow-up:
 * a group that failed to match because of Unicode normalisation, case or stray spaces left a principal unnarrowed,
 * i.e. with the tenant's whole grant): NFC, trimmed, lower case. Group names are identifiers to the host; two
 * spellings of one name narrow the same principals.
 */
export function normalizeGroupName(name: string): string {
  return name.normalize('NFC').trim().toLowerCase();
}
