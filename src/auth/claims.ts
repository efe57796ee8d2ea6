import { normalizeGroupName } from '../catalog/principal';

/**
 * Maps verified JWT claims to a catalog identity. Only called on a payload whose signature, issuer, audience and
 * lifetime jose has already checked; what it still guards against is an IdP that sends unexpected shapes.
 */
export interface JwtIdentity {
  readonly tenant: string;
  readonly subject: string;
  readonly roles: string[];
  /** Narrowing grant groups (issue 11 defect 7); empty when the token carries none. */
  readonly groups: string[];
}

export interface ClaimNames {
  /** Claim naming the tenant; a dotted path (`org.id`) or a literal claim name (`https://x.example/tenant`). */
  readonly tenantClaim: string;
  readonly subjectClaim: string;
  /** An array of strings or one space-separated string (the OAuth `scope` convention). */
  readonly rolesClaim: string;
  /** Same forms as rolesClaim: the groups whose narrowing grants apply to the token's principal. */
  readonly groupsClaim: string;
}

export type ClaimProblem = 'missing_claim' | 'invalid_claim';

const MAX_ID_LENGTH = 256;
const MAX_ROLES = 64;
const MAX_ROLE_LENGTH = 128;
// No control characters: these values end up in logs and SQL parameters.
const PRINTABLE = /^[^\u0000-\u001f\u007f]+$/;

/**
 * A claim by name: the literal name first (namespaced claims contain dots), then as a dotted path through nested
 * objects. Own properties only, so `__proto__` or `constructor` never resolve to something the token did not send.
 */
function claimAt(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let cur: unknown = payload;
  for (const part of name.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

function idValue(v: unknown): string | ClaimProblem {
  if (v === undefined || v === null || v === '') return 'missing_claim';
  // Some IdPs send numeric organisation ids; a safe integer has one canonical text form.
  const s = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
  if (typeof s !== 'string' || s.length > MAX_ID_LENGTH || s.trim() !== s || !PRINTABLE.test(s)) return 'invalid_claim';
  return s;
}

/** A list claim: an array of strings or one space-separated string (roles; groupsValue gives a string as one name); bounded, printable, distinct. */
function listValue(v: unknown): string[] | ClaimProblem {
  if (v === undefined || v === null) return [];
  const list = typeof v === 'string' ? v.split(/[ \t]+/).filter((r) => r !== '') : v;
  if (!Array.isArray(list) || list.length > MAX_ROLES) return 'invalid_claim';
  const roles: string[] = [];
  for (const r of list) {
    if (typeof r !== 'string' || r === '' || r.length > MAX_ROLE_LENGTH || !PRINTABLE.test(r)) return 'invalid_claim';
    if (!roles.includes(r)) roles.push(r);
  }
  return roles;
}

/**
 * Groups: an array of names, or ONE name as a string (group names may hold spaces, "Data Science", so a string is
 * not split as roles are); each in its one spelling (normalizeGroupName), sorted and distinct.
 */
function groupsValue(v: unknown): string[] | ClaimProblem {
  const list = listValue(typeof v === 'string' ? [v] : v);
  if (!Array.isArray(list)) return list;
  return [...new Set(list.map(normalizeGroupName).filter((g) => g !== ''))].sort();
}

/** The identity in a verified payload, or why there is none. A missing roles or groups claim is an empty list. */
export function identityFromClaims(payload: Readonly<Record<string, unknown>>, names: ClaimNames): JwtIdentity | ClaimProblem {
  const tenant = idValue(claimAt(payload, names.tenantClaim));
  if (tenant === 'missing_claim' || tenant === 'invalid_claim') return tenant;
  const subject = idValue(claimAt(payload, names.subjectClaim));
  if (subject === 'missing_claim' || subject === 'invalid_claim') return subject;
  const roles = listValue(claimAt(payload, names.rolesClaim));
  if (!Array.isArray(roles)) return roles;
  const groups = groupsValue(claimAt(payload, names.groupsClaim));
  if (!Array.isArray(groups)) return groups;
  return { tenant, subject, roles, groups };
}
