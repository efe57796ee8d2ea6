import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A tool as an MCP server listed it, kept verbatim; quarantined ones carry their reason and are never served. */
@Entity({ name: 'upstream_tool' })
export class UpstreamToolEntity {
  /** sha256(source, name) */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  key!: string;

  @Index('idx_upstream_source')
  @Column({ name: 'source_name', type: 'varchar', length: 32 })
  sourceName!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 200, nullable: true })
  toolId!: string | null;

  @Column({ name: 'raw', type: 'text' })
  raw!: string;

  @Column({ name: 'definition_hash', type: 'varchar', length: 64 })
  definitionHash!: string;

  @Column({ name: 'quarantine_reason', type: 'text', nullable: true })
  quarantineReason!: string | null;

  @Column({ name: 'first_seen_at', type: 'varchar', length: 32 })
  firstSeenAt!: string;

  @Column({ name: 'last_seen_at', type: 'varchar', length: 32 })
  lastSeenAt!: string;
}
