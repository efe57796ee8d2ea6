import { type SafetyTier, type ToolSource, tierRank } from './descriptor';

/**
 * Tenant ceilings (issue 11 defect 6). The host admin gives each tenant a ceiling: a list of entries of the same
 * shape as grants (toolId pattern, optional source, optional highest tier). A tool is within the ceiling when some
 * entry matches it, and the visibility query requires that (src/persistence/visibility.query.ts), so a lowered
 * ceiling takes effect at once. A grant is accepted only when one entry contains it (grantWithinCeiling), so
 * tenant admins cannot grant past what the host allows. An empty ceiling allows nothing.
 */
export interface GrantShape {
  readonly toolPattern: string;
  /** null: every source. */
  readonly source: ToolSource | null;
  /** null: every tier. */
  readonly maxSafetyTier: SafetyTier | null;
}

/** The ceiling a tenant has when nothing else is said: everything (unrestricted), as before ceilings existed. */
export const UNRESTRICTED_CEILING: readonly GrantShape[] = Object.freeze([{ toolPattern: '*', source: null, maxSafetyTier: null }]);

/**
 * Does every toolId that `inner` matches also match `outer`? Patterns hold literal characters and `*` (any run).
 * Decided by matching `outer` against `inner` read as text in which each `*` of `inner` is a symbol that only a `*`
 * of `outer` can absorb: if that succeeds, any run substituted for inner's stars is absorbed the same way. Sound
 * (never says yes wrongly); it may say no for a pattern covered only by a union of entries, which then needs an
 * entry of its own. O(|outer| · |inner|) with the classic star-backtracking match.
 */
export function patternContains(outer: string, inner: string): boolean {
  let o = 0;
  let i = 0;
  let star = -1;
  let mark = 0;
  while (i < inner.length) {
    if (o < outer.length && outer[o] !== '*' && inner[i] !== '*' && outer[o] === inner[i]) {
      o++;
      i++;
    } else if (o < outer.length && outer[o] === '*') {
      star = o++;
      mark = i;
    } else if (star >= 0) {
      o = star + 1;
      i = ++mark;
    } else return false;
  }
  while (o < outer.length && outer[o] === '*') o++;
  return o === outer.length;
}

/**
 * Is the grant inside this one ceiling entry: pattern contained, source no wider, tier no higher? No tier means
 * every tier, i.e. up to `exec`, the highest.
 */
export function entryContains(entry: GrantShape, grant: GrantShape): boolean {
  if (entry.source !== null && grant.source !== entry.source) return false;
  if (entry.maxSafetyTier !== null && tierRank(grant.maxSafetyTier ?? 'exec') > tierRank(entry.maxSafetyTier)) return false;
  return patternContains(entry.toolPattern, grant.toolPattern);
}

export function grantWithinCeiling(grant: GrantShape, ceiling: readonly GrantShape[]): boolean {
  return ceiling.some((e) => entryContains(e, grant));
}

/** The words of a refusal: what was asked, and what the ceiling allows (so the admin knows what to change). */
export function describeCeiling(ceiling: readonly GrantShape[]): string {
  if (!ceiling.length) return 'nothing (the ceiling is empty)';
  return ceiling.map((e) => `${e.toolPattern}${e.source ? ` from ${e.source}` : ''}${e.maxSafetyTier ? ` up to ${e.maxSafetyTier}` : ''}`).join('; ');
}

export function describeGrant(g: GrantShape): string {
  return `${g.toolPattern}${g.source ? ` from ${g.source}` : ' from any source'}${g.maxSafetyTier ? ` up to ${g.maxSafetyTier}` : ' at any tier'}`;
}
