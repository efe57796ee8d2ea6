import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A registered MCP server (public part) and its sync status. Secrets live in McpSourceSecretEntity. */
@Entity({ name: 'mcp_source' })
export class McpSourceEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name!: string;

  @Column({ type: 'varchar', length: 8 })
  transport!: string;

  @Column({ type: 'text', nullable: true })
  command!: string | null;

  /** JSON array of strings. */
  @Column({ type: 'text' })
  args!: string;

  @Column({ name: 'public_url', type: 'text', nullable: true })
  publicUrl!: string | null;

  @Column({ name: 'tenant_id', type: 'varchar', length: 36, nullable: true })
  tenantId!: string | null;

  @Column({ name: 'drift_policy', type: 'varchar', length: 16 })
  driftPolicy!: string;

  @Column({ name: 'sync_interval_seconds', type: 'integer' })
  syncIntervalSeconds!: number;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  /** config | graphql */
  @Column({ type: 'varchar', length: 16 })
  origin!: string;

  /** never-synced | ok | degraded | failing */
  @Column({ type: 'varchar', length: 16 })
  status!: string;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'last_sync_at', type: 'varchar', length: 32, nullable: true })
  lastSyncAt!: string | null;

  @Column({ name: 'last_success_at', type: 'varchar', length: 32, nullable: true })
  lastSuccessAt!: string | null;

  @Column({ name: 'tool_count', type: 'integer' })
  toolCount!: number;

  @Column({ name: 'quarantined_count', type: 'integer' })
  quarantinedCount!: number;

  @Column({ name: 'created_at', type: 'varchar', length: 32 })
  createdAt!: string;
}
