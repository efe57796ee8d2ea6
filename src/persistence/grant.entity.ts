import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A grant lets a tenant (principal_id null) or one principal (narrowing the tenant's grants) invoke the
 * tools matching all of its conditions. like_pattern is tool_pattern translated once for the SQL LIKE.
 */
@Entity({ name: 'tool_grant' })
export class GrantEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('idx_grant_tenant')
  @Column({ name: 'tenant_id', type: 'varchar', length: 36 })
  tenantId!: string;

  @Column({ name: 'principal_id', type: 'varchar', length: 36, nullable: true })
  principalId!: string | null;

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
