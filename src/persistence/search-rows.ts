import type { DataSource } from 'typeorm';
import type { SearchDocument } from '../search/fields';

/**
 * What the search index (issue 18) reads of the stored catalog: every served tool's stamp, and the text of the tools
 * whose stamp it has not indexed yet. Not a visibility read (the index holds every tool; a query is ranked over the
 * caller's visible set, which CatalogCache resolves through the scoped query): these feed maintenance only.
 */
export interface ToolStamp {
  readonly toolId: string;
  readonly rowHash: string;
}

/** Ids per `IN (...)` (SQLite's bound-parameter limit is 32,766; 500 keeps each statement small). */
const BATCH = 500;

/** Every served tool's (toolId, rowHash): two short columns, the whole table (~40 ms at 100,000 tools on SQLite). */
export async function readToolStamps(ds: DataSource): Promise<ToolStamp[]> {
  const rows = (await ds.query('SELECT tool_id, row_hash FROM tool')) as Array<{ tool_id: string; row_hash: string }>;
  return rows.map((r) => ({ toolId: r.tool_id, rowHash: r.row_hash }));
}

/** The indexed text of these tools with the stamp it was read at (ids deleted meanwhile are simply absent). */
export async function readSearchRows(ds: DataSource, ids: readonly string[]): Promise<Array<{ doc: SearchDocument; rowHash: string }>> {
  const out: Array<{ doc: SearchDocument; rowHash: string }> = [];
  const pg = ds.options.type === 'postgres';
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const marks = batch.map((_, j) => (pg ? `$${j + 1}` : '?')).join(', ');
    const rows = (await ds.query(
      `SELECT tool_id, tenant_id, name, title, description, input_schema, origin, row_hash FROM tool WHERE tool_id IN (${marks})`,
      batch,
    )) as Array<{ tool_id: string; tenant_id: string | null; name: string; title: string | null; description: string; input_schema: string; origin: string; row_hash: string }>;
    for (const r of rows) {
      out.push({
        doc: { toolId: r.tool_id, tenantId: r.tenant_id, name: r.name, title: r.title, description: r.description, inputSchema: r.input_schema, source: r.origin },
        rowHash: r.row_hash,
      });
    }
  }
  return out;
}
