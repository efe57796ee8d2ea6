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

  /**
   * A sync in progress (issue 12 defect 6), written by the replica running it so that admins on every replica see
   * it: when it started, pages and tools read so far, and when that was last written (an old value is a replica
   * that died mid-sync). Null / 0 when no sync runs.
   */
  @Column({ name: 'sync_started_at', type: 'varchar', length: 32, nullable: true })
  syncStartedAt!: string | null;

  @Column({ name: 'sync_pages', type: 'integer', default: 0 })
  syncPages!: number;

  @Column({ name: 'sync_tools_read', type: 'integer', default: 0 })
  syncToolsRead!: number;

  @Column({ name: 'sync_progress_at', type: 'varchar', length: 32, nullable: true })
  syncProgressAt!: string | null;

  /** A source that flooded notifications is throttled until then (issue 12 defect 4), and why. */
  @Column({ name: 'throttled_until', type: 'varchar', length: 32, nullable: true })
  throttledUntil!: string | null;

  @Column({ name: 'throttle_reason', type: 'text', nullable: true })
  throttleReason!: string | null;
}
