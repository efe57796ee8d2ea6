import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One admin change: who, when, what, before and after, under which request (issue 5). */
@Entity({ name: 'audit_log' })
// Pages newest first: a tenant admin's, by action, by target (migration BoundedLogPages1764610000000).
@Index('idx_audit_tenant_at', ['tenantId', 'at', 'seq'])
@Index('idx_audit_tenant_action_at', ['tenantId', 'action', 'at', 'seq'])
@Index('idx_audit_action_at', ['action', 'at', 'seq'])
@Index('idx_audit_target_at', ['targetId', 'at', 'seq'])
export class AuditEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  @Index('idx_audit_at')
  @Column({ type: 'varchar', length: 32 })
  at!: string;

  /** Orders rows written within one millisecond by one process. */
  @Column({ type: 'integer' })
  seq!: number;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;

  @Column({ name: 'actor_id', type: 'varchar', length: 64 })
  actorId!: string;

  @Column({ name: 'actor_name', type: 'text' })
  actorName!: string;

  @Column({ name: 'actor_role', type: 'varchar', length: 16 })
  actorRole!: string;

  @Column({ name: 'actor_tenant_id', type: 'varchar', length: 36, nullable: true })
  actorTenantId!: string | null;

  /** The mutation (or CLI command) that made the change. */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ name: 'target_type', type: 'varchar', length: 32 })
  targetType!: string;

  @Column({ name: 'target_id', type: 'text' })
  targetId!: string;

  /** The tenant the change concerns (tenant admins read only these rows); null: host-wide. */
  @Column({ name: 'tenant_id', type: 'varchar', length: 36, nullable: true })
  tenantId!: string | null;

  @Column({ type: 'text', nullable: true })
  before!: string | null;

  @Column({ type: 'text', nullable: true })
  after!: string | null;
}
