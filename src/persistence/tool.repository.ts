import { type DataSource, type EntityManager, In, IsNull, type SelectQueryBuilder } from 'typeorm';
import { literalPrefix, prefixRanges } from '../catalog/tool-id';
import type { Principal } from '../catalog/principal';
import type { ToolRecord } from '../catalog/tool-record';
import { GrantEntity } from './grant.entity';
import { grantMatches } from './grant-match';
import { ToolEntity } from './tool.entity';
import { toRecord } from './tool-record.mapper';
import { compareCodeUnits } from '../catalog/stable-compare';

/** A visible tool as the cache needs it: its id and the stamp of its stored row. */
export interface VisibleStamp {
  readonly toolId: string;
  readonly rowHash: string;
}

/**
 * Tenant-scoped reads (TC-CAT-3/4). The caller's tenant, grants and ceiling are part of the WHERE clause: a tool
 * the caller may not invoke is never loaded, so "unknown" and "not yours" are the same empty result.
 *
 * Visible = (global tool, or a tool of the caller's tenant)
 *   AND some entry of the tenant's ceiling matches it                                   -- issue 11 defect 6
 *   AND some tenant-wide grant matches it
 *   AND (the principal has no narrowing grants, or one of them matches it too)        -- per-principal narrowing
 * A principal's narrowing grants are those naming its id (stored principals) or one of its groups (JWT principals,
 * issue 11 defect 7). Matching is grantMatches (grant-match.ts) for all three kinds of rows.
 */
export class ToolRepository {
  /** A DataSource, or the EntityManager of an open transaction (the grants preview reads uncommitted draft grants). */
  constructor(private readonly ds: DataSource | EntityManager) {}

  /**
   * The caller's visible records, sorted by toolId (TC-CAT-7), read by the same query as findVisibleStamps but
   * without the cache: for a read inside a transaction (GrantService.previewWithDrafts), never for serving.
   */
  async findVisibleRecords(p: Principal): Promise<ToolRecord[]> {
    const q = await this.visibleListQuery(p);
    if (!q) return [];
    return (await q.getMany()).map(toRecord).sort((a, b) => compareCodeUnits(a.toolId, b.toolId));
  }

  /**
   * The caller's visible set as (toolId, rowHash) pairs, without the payload: the one read path of the catalog
   * (issue 11 defect 5). The cache keys descriptor bytes on rowHash and fetches only what it lacks (findStampedByIds).
   */
  async findVisibleStamps(p: Principal): Promise<VisibleStamp[]> {
    const q = await this.visibleListQuery(p);
    if (!q) return [];
    const rows = (await q.select(['t.tool_id AS tool_id', 't.row_hash AS row_hash']).getRawMany()) as Array<{ tool_id: string; row_hash: string }>;
    return rows.map((r) => ({ toolId: r.tool_id, rowHash: r.row_hash }));
  }

  /**
   * Records by id with their stored stamps, for building cached bytes of tools already known to be visible
   * (never a visibility check: the caller holds stamps from findVisibleStamps and compares them).
   */
  async findStampedByIds(ids: readonly string[]): Promise<Array<{ record: ToolRecord; rowHash: string }>> {
    const out: Array<{ record: ToolRecord; rowHash: string }> = [];
    for (let i = 0; i < ids.length; i += 500) {
      for (const e of await this.ds.getRepository(ToolEntity).find({ where: { toolId: In(ids.slice(i, i + 500)) } })) out.push({ record: toRecord(e), rowHash: e.rowHash });
    }
    return out;
  }

  /**
   * visibleQuery, plus the key ranges the tenant's grants can match, so that the database reads those index
   * ranges instead of every tool (issue 6: at 100,000 tools a full scan per tenant took ~90 ms on SQLite and
   * ~300 ms on PostgreSQL, and every catalog change makes each tenant's next list run it). The ranges only
   * narrow: the grant conditions of visibleQuery still decide, so ranges from a grant read a moment before a
   * concurrent change can hide a tool for one request (the change also advances the cache generation, so the
   * next request re-reads) but never show one. null: no grant, so nothing is visible. Public for the plan test
   * (test/integration/visible-query-plan.test.ts).
   */
  async visibleListQuery(p: Principal): Promise<SelectQueryBuilder<ToolEntity> | null> {
    const grants = await this.ds.getRepository(GrantEntity).find({ select: { toolPattern: true }, where: { tenantId: p.tenantId, principalId: IsNull(), groupName: IsNull() } });
    if (!grants.length) return null;
    const q = this.visibleQuery(p);
    const ranges = prefixRanges(grants.map((g) => literalPrefix(g.toolPattern)));
    if (!ranges) return q;
    // Byte order: SQLite's primary key (BINARY); on PostgreSQL the "C" collation index (migration 1764500000000).
    const type = ('connection' in this.ds ? this.ds.connection : this.ds).options.type;
    const col = type === 'postgres' ? 't.tool_id COLLATE "C"' : 't.tool_id';
    const params: Record<string, string> = {};
    const terms = ranges.map(([lo, hi], i) => {
      params[`lo${i}`] = lo;
      params[`hi${i}`] = hi;
      return `(${col} >= :lo${i} AND ${col} < :hi${i})`;
    });
    return q.andWhere(`(${terms.join(' OR ')})`, params);
  }

  private visibleQuery(p: Principal): SelectQueryBuilder<ToolEntity> {
    const own = p.groups.length ? '(n.principal_id = :principalId OR n.group_name IN (:...groups))' : 'n.principal_id = :principalId';
    const narrowing = `n.tenant_id = :tenantId AND ${own}`;
    return this.ds
      .getRepository(ToolEntity)
      .createQueryBuilder('t')
      .where('(t.tenant_id IS NULL OR t.tenant_id = :tenantId)')
      .andWhere(`EXISTS (SELECT 1 FROM tenant_ceiling c WHERE c.tenant_id = :tenantId AND ${grantMatches('c')})`)
      .andWhere(`EXISTS (SELECT 1 FROM tool_grant g WHERE g.tenant_id = :tenantId AND g.principal_id IS NULL AND g.group_name IS NULL AND ${grantMatches('g')})`)
      .andWhere(`(NOT EXISTS (SELECT 1 FROM tool_grant n WHERE ${narrowing}) OR EXISTS (SELECT 1 FROM tool_grant n WHERE ${narrowing} AND ${grantMatches('n')}))`)
      .setParameters({ tenantId: p.tenantId, principalId: p.id, groups: [...p.groups] });
  }
}
