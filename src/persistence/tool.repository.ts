import { type DataSource, In, type SelectQueryBuilder } from 'typeorm';
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
    const rows = await this.visibleQuery(p).getMany();
    return rows.map(toRecord);
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
    const rows = (await this.visibleQuery(p).select(['t.tool_id AS tool_id', 't.served_hash AS served_hash']).getRawMany()) as Array<{ tool_id: string; served_hash: string }>;
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
