import type { DataSource } from 'typeorm';
import { COMPACTOR_VERSION } from '../catalog/compact';
import { compactFor } from '../catalog/compact-view';
import type { Logger } from '../shared/logger';
import { bumpCatalogVersion } from './catalog-version';
import { ToolEntity } from './tool.entity';
import { servedHashOf, toEntity, toRecord } from './tool-record.mapper';

/**
 * At start: recompute the compact form of every tool whose stored form was made by another compactor
 * version (or predates the column). Once per schema version, never per request (issue 3).
 */
export async function refreshCompactForms(ds: DataSource, log: Logger): Promise<number> {
  // The key ends with the compactor version: stale rows are found in SQL, without loading every schema.
  const stale = (
    await ds.getRepository(ToolEntity).createQueryBuilder('t').select('t.tool_id', 'tool_id').where('t.compact_key NOT LIKE :suffix', { suffix: `%:${COMPACTOR_VERSION}` }).getRawMany<{ tool_id: string }>()
  ).map((r) => r.tool_id);
  if (!stale.length) return 0;
  await ds.transaction(async (m) => {
    for (const toolId of stale) {
      const row = await m.getRepository(ToolEntity).findOneOrFail({ where: { toolId } });
      const form = compactFor(row.inputSchema);
      const record = { ...toRecord(row), compactSchemaText: form.schemaText, compactNotesText: JSON.stringify(form.notes), compactKey: form.key };
      const e = toEntity(record, row.updatedAt, row.definitionHash);
      e.servedHash = servedHashOf(record);
      await m.getRepository(ToolEntity).save(e);
    }
    await bumpCatalogVersion(m);
  });
  log.info({ tools: stale.length }, 'compact view recomputed for a new compactor version');
  return stale.length;
}
