import { type DataSource, In, IsNull, type SelectQueryBuilder } from 'typeorm';
import { literalPrefix, prefixRanges } from '../catalog/tool-id';
import { GrantEntity } from './grant.entity';
import type { Principal } from '../catalog/principal';
import type { ToolRecord } from '../catalog/tool-record';
import { ToolEntity } from './tool.entity';
import { toRecord } from './tool-record.mapper';

/**
 * Tenant-scoped reads (TC-CAT-3/4). The caller's tenant and grants are part of the WHERE clause: a tool the
 * caller may not invoke is never loaded, so "unknown" and "not yours" are the same empty result.
 *
 * Visible = (global tool, or a tool of the caller's tenant)
 *   AND some tenant-wide grant matches it
 *   AND (the principal has no grants of its own, or one of them matches it too)   -- per-principal narrowing
 * A grant matches when the toolId is LIKE its pattern, the source fits, and the tier is at most its maximum.
 */
export class ToolRepository {
  constructor(private readonly ds: DataSource) {}

  async findVisible(p: Principal): Promise<ToolRecord[]> {
    const q = await this.visibleListQuery(p);
    return q ? (await q.getMany()).map(toRecord) : [];
  }

  async findVisibleById(p: Principal, toolId: string): Promise<ToolRecord | null> {
    const row = await this.visibleQuery(p).andWhere('t.tool_id = :toolId', { toolId }).getOne();
    return row ? toRecord(row) : null;
  }

  /**
   * The caller's visible set as (toolId, servedHash) pairs: the same scoped query, without the payload.
   * The cache layer keys descriptor bytes on servedHash and fetches only what it lacks (findByIds).
   */
  async findVisibleStamps(p: Principal): Promise<Array<{ toolId: string; servedHash: string }>> {
    const q = await this.visibleListQuery(p);
    if (!q) return [];
    const rows = (await q.select(['t.tool_id AS tool_id', 't.served_hash AS served_hash']).getRawMany()) as Array<{ tool_id: string; served_hash: string }>;
    return rows.map((r) => ({ toolId: r.tool_id, servedHash: r.served_hash }));
  }

  /** Records by id, for building cached bytes of tools already known to be visible (never a visibility check). */
  async findByIds(ids: readonly string[]): Promise<ToolRecord[]> {
    const out: ToolRecord[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      out.push(...(await this.ds.getRepository(ToolEntity).find({ where: { toolId: In(ids.slice(i, i + 500)) } })).map(toRecord));
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
    const grants = await this.ds.getRepository(GrantEntity).find({ select: { toolPattern: true }, where: { tenantId: p.tenantId, principalId: IsNull() } });
    if (!grants.length) return null;
    const q = this.visibleQuery(p);
    const ranges = prefixRanges(grants.map((g) => literalPrefix(g.toolPattern)));
    if (!ranges) return q;
    // Byte order: SQLite's primary key (BINARY); on PostgreSQL the "C" collation index (migration 1764500000000).
    const col = this.ds.options.type === 'postgres' ? 't.tool_id COLLATE "C"' : 't.tool_id';
    const params: Record<string, string> = {};
    const terms = ranges.map(([lo, hi], i) => {
      params[`lo${i}`] = lo;
      params[`hi${i}`] = hi;
      return `(${col} >= :lo${i} AND ${col} < :hi${i})`;
    });
    return q.andWhere(`(${terms.join(' OR ')})`, params);
  }

  private visibleQuery(p: Principal): SelectQueryBuilder<ToolEntity> {
    const match = (g: string) =>
      `t.tool_id LIKE ${g}.like_pattern ESCAPE '\\' AND (${g}.source IS NULL OR ${g}.source = t.source)` +
      ` AND (${g}.max_tier_rank IS NULL OR t.tier_rank <= ${g}.max_tier_rank)`;
    return this.ds
      .getRepository(ToolEntity)
      .createQueryBuilder('t')
      .where('(t.tenant_id IS NULL OR t.tenant_id = :tenantId)')
      .andWhere(`EXISTS (SELECT 1 FROM tool_grant g WHERE g.tenant_id = :tenantId AND g.principal_id IS NULL AND ${match('g')})`)
      .andWhere(
        '(NOT EXISTS (SELECT 1 FROM tool_grant n WHERE n.tenant_id = :tenantId AND n.principal_id = :principalId)' +
          ` OR EXISTS (SELECT 1 FROM tool_grant n WHERE n.tenant_id = :tenantId AND n.principal_id = :principalId AND ${match('n')}))`,
      )
      .setParameters({ tenantId: p.tenantId, principalId: p.id });
  }
}
