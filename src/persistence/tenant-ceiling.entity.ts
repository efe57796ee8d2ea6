import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One entry of a tenant's ceiling (issue 11 defect 6): the most the tenant's grants may ever allow. Same shape and
 * matching as a grant (src/persistence/grant-match.ts); a tool is visible only inside some entry.
 */
@Entity({ name: 'tenant_ceiling' })
export class TenantCeilingEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('idx_ceiling_tenant')
  @Column({ name: 'tenant_id', type: 'varchar', length: 36 })
  tenantId!: string;

  @Column({ name: 'tool_pattern', type: 'varchar', length: 200 })
  toolPattern!: string;

  @Column({ name: 'like_pattern', type: 'varchar', length: 400 })
  likePattern!: string;

  @Column({ type: 'varchar', length: 32, nullable: true })
  source!: string | null;

  @Column({ name: 'max_safety_tier', type: 'varchar', length: 8, nullable: true })
  maxSafetyTier!: string | null;

  @Column({ name: 'max_tier_rank', type: 'integer', nullable: true })
  maxTierRank!: number | null;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt!: string;
}
