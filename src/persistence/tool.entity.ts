import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A served tool: the upstream definition after ingest checks plus the effective classification. Schemas are
 * `text`, never jsonb (which reorders keys): the stored bytes are the served bytes on both drivers.
 */
@Entity({ name: 'tool' })
export class ToolEntity {
  @PrimaryColumn({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  @Column({ type: 'varchar', length: 32 })
  source!: string;

  @Index('idx_tool_origin')
  @Column({ type: 'varchar', length: 128 })
  origin!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 36, nullable: true })
  tenantId!: string | null;

  @Column({ type: 'varchar', length: 128 })
  name!: string;

  @Column({ type: 'text', nullable: true })
  title!: string | null;

  @Column({ type: 'text' })
  description!: string;

  @Column({ name: 'input_schema', type: 'text' })
  inputSchema!: string;

  @Column({ name: 'output_schema', type: 'text', nullable: true })
  outputSchema!: string | null;

  @Column({ name: 'safety_tier', type: 'varchar', length: 8 })
  safetyTier!: string;

  @Column({ name: 'tier_rank', type: 'integer' })
  tierRank!: number;

  @Column({ name: 'replay_policy', type: 'varchar', length: 16 })
  replayPolicy!: string;

  @Column({ type: 'varchar', length: 16 })
  egress!: string;

  @Column({ type: 'boolean' })
  classified!: boolean;

  @Column({ type: 'text', nullable: true })
  claims!: string | null;

  @Column({ name: 'content_hash', type: 'varchar', length: 64 })
  contentHash!: string;

  @Column({ name: 'updated_at', type: 'varchar', length: 32 })
  updatedAt!: string;
}
