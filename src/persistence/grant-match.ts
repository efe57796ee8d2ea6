/**
 * The one home of grant matching in SQL. Tenant grants, narrowing grants (of a stored principal or of a JWT
 * group) and tenant ceilings share one shape (toolId pattern, optional source, optional highest tier) and are
 * matched against a tool row by this fragment alone. like_pattern is the pattern translated by
 * toolPatternToLike (catalog/tool-id.ts); SQLite's LIKE is made case-sensitive by the connection's
 * `case_sensitive_like` pragma (data-source.ts), as PostgreSQL's is.
 */
export function grantMatches(grantAlias: string, toolAlias = 't'): string {
  const g = grantAlias;
  const t = toolAlias;
  return (
    `${t}.tool_id LIKE ${g}.like_pattern ESCAPE '\\' AND (${g}.source IS NULL OR ${g}.source = ${t}.source)` +
    ` AND (${g}.max_tier_rank IS NULL OR ${t}.tier_rank <= ${g}.max_tier_rank)`
  );
}
