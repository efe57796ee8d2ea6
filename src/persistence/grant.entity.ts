import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A grant lets a tenant (principal_id and group_name null) invoke the tools matching all of its conditions, or
 * narrows one stored principal (principal_id) or every JWT principal of a group (group_name): a narrowed principal
 * sees what both a tenant grant and one of its own grants allow. like_pattern is tool_pattern translated once
 * for the SQL LIKE.
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

  /** Narrows the JWT principals whose groups claim holds this name (issue 11 defect 7). */
  @Column({ name: 'group_name', type: 'varchar', length: 128, nullable: true })
  groupName!: string | null;

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
