/**
 * The independent visibility model for the isolation property, written from the README ("Tenancy and grants"),
 * not from the service code: no SQL, no regular expressions, no imports from src/.
 */
export const TIERS = ['pure', 'read', 'write', 'exec'] as const;
export type Tier = (typeof TIERS)[number];

export interface ModelTool {
  readonly id: string;
  readonly source: 'mcp' | 'host-extension';
  readonly tier: Tier;
  /** null: a global tool. */
  readonly tenantId: string | null;
}

export interface ModelGrant {
  readonly pattern: string;
  readonly source: string | null;
  readonly maxTier: Tier | null;
}

/** `*` matches any run of characters (dots included, possibly empty); every other character matches itself. */
function globMatches(pattern: string, id: string): boolean {
  // Classic two-pointer wildcard match with backtracking to the last star: O(|p|·|s|) worst case, bounded.
  let p = 0;
  let s = 0;
  let star = -1;
  let mark = 0;
  while (s < id.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === id[s]) {
      p++;
      s++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = s;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p++;
  return p === pattern.length;
}

const rank = (t: Tier): number => TIERS.indexOf(t);

function grantMatches(g: ModelGrant, t: ModelTool): boolean {
  return globMatches(g.pattern, t.id) && (g.source === null || g.source === t.source) && (g.maxTier === null || rank(t.tier) <= rank(g.maxTier));
}

/**
 * visible = (tool global or of the principal's tenant) AND (no ceiling was set, or an entry of it matches)
 *           AND some tenant-wide grant matches
 *           AND (the principal has no narrowing grants OR one of them matches too).
 * A principal's narrowing grants are its own (stored principals) or those of its groups (JWT principals): the
 * caller passes them in `own`. A ceiling of null is the unrestricted default.
 */
export function visibleTo(
  t: ModelTool,
  principal: { tenantId: string; own: readonly ModelGrant[] },
  tenantGrants: readonly ModelGrant[],
  ceiling: readonly ModelGrant[] | null = null,
): boolean {
  if (t.tenantId !== null && t.tenantId !== principal.tenantId) return false;
  if (ceiling !== null && !ceiling.some((g) => grantMatches(g, t))) return false;
  if (!tenantGrants.some((g) => grantMatches(g, t))) return false;
  return principal.own.length === 0 || principal.own.some((g) => grantMatches(g, t));
}

/** Runs `fn` over `items` with at most `width` in flight; the first failure rejects. Bounded by items.length. */
export async function runRequests<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}
