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

  @Column({ name: 'compact_schema', type: 'text' })
  compactSchema!: string;

  /** JSON array of CompactNote: what the compact view relaxed, for admins. */
  @Column({ name: 'compact_notes', type: 'text' })
  compactNotes!: string;

  /** sha256(input schema) : compactor version. A different current key means the compact form is stale. */
  @Column({ name: 'compact_key', type: 'varchar', length: 80 })
  compactKey!: string;

  /** JSON of StoredProfiles: the per-provider profiles of the compact view (issue 16), derived with compact_key. */
  @Column({ name: 'compact_profiles', type: 'text' })
  compactProfiles!: string;

  /**
   * A stamp of this row's stored content (rowHashOf), written with the row. Caches key descriptor bytes on it and
   * compare it only with itself; it is never recomputed from code to check a row (issue 11 defect 5).
   */
  @Column({ name: 'row_hash', type: 'varchar', length: 64 })
  rowHash!: string;

  /** JSON array of IngestNote: what the ingest gate repaired in the definition (issue 11 defect 8), for admins. */
  @Column({ name: 'ingest_notes', type: 'text', default: '[]' })
  ingestNotes!: string;

  /** INGEST_GATE_VERSION of the gate that made this row; another value is derived again at start. */
  @Column({ name: 'gate_version', type: 'varchar', length: 16, default: '' })
  gateVersion!: string;

  /** For MCP tools, the upstream definition hash the row was projected from (lets projection skip unchanged tools). */
  @Column({ name: 'definition_hash', type: 'varchar', length: 64, nullable: true })
  definitionHash!: string | null;

  @Column({ name: 'updated_at', type: 'varchar', length: 32 })
  updatedAt!: string;
}
