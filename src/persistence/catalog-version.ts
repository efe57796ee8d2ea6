import type { EntityManager } from 'typeorm';

/**
 * Bumps the catalog version inside the caller's transaction (see CatalogStateEntity) and marks the query
 * runner, so the in-process cache generation advances right after the commit (cache/catalog-generation.ts).
 */
export async function bumpCatalogVersion(m: EntityManager): Promise<void> {
  await m.query('UPDATE catalog_state SET version = version + 1 WHERE id = 1');
  // PostgreSQL delivers the notification to every listening replica when (and only if) this transaction commits.
  if (m.connection.options.type === 'postgres') await m.query("SELECT pg_notify('toolcat_catalog', '')");
  if (m.queryRunner) (m.queryRunner.data as { catalogChanged?: boolean }).catalogChanged = true;
}

export async function readCatalogVersion(m: EntityManager): Promise<number> {
  const rows = (await m.query('SELECT version FROM catalog_state WHERE id = 1')) as Array<{ version: number | string }>;
  return rows.length ? Number(rows[0].version) : 0;
}
