import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The host's decision for a tool, kept apart from the tool row so it survives re-syncs of the source. */
@Entity({ name: 'tool_classification' })
export class ClassificationEntity {
  @PrimaryColumn({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  @Column({ name: 'safety_tier', type: 'varchar', length: 8 })
  safetyTier!: string;

  @Column({ name: 'replay_policy', type: 'varchar', length: 16 })
  replayPolicy!: string;

  @Column({ type: 'varchar', length: 16 })
  egress!: string;

  /** Definition hash the decision was made for (MCP tools); a different current definition is drift. */
  @Column({ name: 'approved_hash', type: 'varchar', length: 64, nullable: true })
  approvedHash!: string | null;

  @Column({ name: 'decided_by', type: 'varchar', length: 128 })
  decidedBy!: string;

  @Column({ name: 'decided_at', type: 'varchar', length: 32 })
  decidedAt!: string;
}
