import { type SafetyTier, tierRank } from '../catalog/descriptor';
import { toolPatternToLike } from '../catalog/tool-id';

/**
 * The one home of grant matching in SQL (issue 13). Tenant grants, narrowing grants (of a stored principal or of a
 * JWT group) and tenant ceilings share one shape (toolId pattern, optional source, optional highest tier). Their
 * stored match columns are made here (grantMatchColumns) and matched against a tool row here (grantMatches), with
 * the tool's own `tier_rank` made by toolTierRank; SQLite's LIKE is case-sensitive only under SQLITE_MATCH_PRAGMAS,
 * which every SQLite connection runs (data-source.ts and the snapshot writer thread), as PostgreSQL's LIKE is.
 */
export function grantMatches(grantAlias: string, toolAlias = 't'): string {
  const g = grantAlias;
  const t = toolAlias;
  return (
    `${t}.tool_id LIKE ${g}.like_pattern ESCAPE '\\' AND (${g}.source IS NULL OR ${g}.source = ${t}.source)` +
    ` AND (${g}.max_tier_rank IS NULL OR ${t}.tier_rank <= ${g}.max_tier_rank)`
  );
}

/** The stored columns a grant-shaped row is matched by: its pattern as a LIKE pattern, its tier as a rank. */
export function grantMatchColumns(shape: { toolPattern: string; maxSafetyTier: SafetyTier | null }): { likePattern: string; maxTierRank: number | null } {
  return { likePattern: toolPatternToLike(shape.toolPattern), maxTierRank: shape.maxSafetyTier === null ? null : tierRank(shape.maxSafetyTier) };
}

/** A tool row's `tier_rank`, compared with a grant's `max_tier_rank`. */
export function toolTierRank(tier: SafetyTier): number {
  return tierRank(tier);
}

/** Run on every SQLite connection that evaluates grants: LIKE matches toolIds case-sensitively, as on PostgreSQL. */
export const SQLITE_MATCH_PRAGMAS: readonly string[] = Object.freeze(['case_sensitive_like = ON']);
