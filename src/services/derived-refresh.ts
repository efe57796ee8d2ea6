import type { DataSource } from 'typeorm';
import { CatalogError } from '../catalog/catalog.errors';
import { COMPACTOR_VERSION } from '../catalog/compact';
import { INGEST_GATE_VERSION, prepareTool } from '../catalog/ingest';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { ClassificationEntity } from '../persistence/classification.entity';
import { ToolEntity } from '../persistence/tool.entity';
import { toEntity, toRecord } from '../persistence/tool-record.mapper';
import type { Logger } from '../shared/logger';
import type { SourceSnapshotService } from '../sources/source-snapshot.service';

/**
 * Served rows are derived state: the ingest gate and the compactor turn a definition into what is served. At
 * start, every row made by another gate or compactor version is derived again from what it was derived from
 * (issue 11 defect 5: "derived state is recomputed at start when the code that derives it changes"):
 *   - MCP tools: their source is projected again from its stored listing, as a staged snapshot of that listing
 *     (SourceSnapshotService.reproject, issue 12): gated in the ingest pool, staged in bounded batches, published per
 *     source by one short swap. 100,000 stored tools are therefore re-derived off the event loop, with bounded
 *     memory, without a transaction that holds the write lock for the whole refresh;
 *   - host extensions: the stored definition passes the current gate again with its classification. One that the
 *     current gate refuses (say a newly recognised credential in a const) stops being served, and the log says why.
 *     Its hash is the definition hash of that stored definition (issue 13: rows of gate version 2 hold a hash of
 *     the gate's output), and the decision recorded for the row's old hash is moved onto the new one, so the
 *     approval survives the refresh.
 * Once per code version, never per request; the stale rows are found in SQL.
 */
export async function refreshDerivedRows(ds: DataSource, log: Logger, snapshots: Pick<SourceSnapshotService, 'reproject'>): Promise<number> {
  const stale = await ds
    .getRepository(ToolEntity)
    .createQueryBuilder('t')
    .select(['t.tool_id AS tool_id', 't.source AS source', 't.origin AS origin'])
    .where('t.gate_version <> :gate OR t.compact_key NOT LIKE :suffix', { gate: INGEST_GATE_VERSION, suffix: `%:${COMPACTOR_VERSION}` })
    .getRawMany<{ tool_id: string; source: string; origin: string }>();
  if (!stale.length) return 0;
  // One source at a time, each published whole; a failure stops the start as before (rows of an older gate may
  // serve what the current one removes, so they are not left serving silently).
  for (const source of new Set(stale.filter((r) => r.source === 'mcp').map((r) => r.origin))) await snapshots.reproject(source);
  const extensions = stale.filter((r) => r.source === 'host-extension');
  const dropped: Array<{ toolId: string; reason: string }> = [];
  if (extensions.length) {
    await ds.transaction(async (m) => {
      for (const { tool_id: toolId } of extensions) {
        const row = await m.getRepository(ToolEntity).findOneOrFail({ where: { toolId } });
        const r = toRecord(row);
        try {
          const prepared = prepareTool(
            {
              source: r.source, origin: r.origin, tenantId: r.tenantId, toolId: r.toolId, name: r.name, title: r.title ?? undefined, description: r.description,
              inputSchema: JSON.parse(r.inputSchemaText), outputSchema: r.outputSchemaText === null ? undefined : JSON.parse(r.outputSchemaText),
            },
            r.classification,
          );
          await m.getRepository(ToolEntity).save(toEntity({ ...prepared.record, classified: r.classified }, row.updatedAt, row.definitionHash));
          if (prepared.record.contentHash !== r.contentHash) {
            await m.getRepository(ClassificationEntity).update({ toolId, approvedHash: r.contentHash }, { approvedHash: prepared.record.contentHash });
          }
        } catch (err) {
          if (!(err instanceof CatalogError)) throw err;
          dropped.push({ toolId, reason: err.message });
          await m.getRepository(ToolEntity).delete({ toolId });
        }
      }
      await bumpCatalogVersion(m);
    });
  }
  for (const d of dropped) log.warn(d, 'host extension no longer passes the ingest gate; it is not served');
  log.info({ tools: stale.length, gateVersion: INGEST_GATE_VERSION, compactorVersion: COMPACTOR_VERSION }, 'served rows derived again for a new gate or compactor version (compact view recomputed)');
  return stale.length;
}
