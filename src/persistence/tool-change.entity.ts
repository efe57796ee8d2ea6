import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Change history of upstream tools: what a server added, changed, removed or sent broken, and approvals. */
@Entity({ name: 'tool_change' })
// Pages newest first: of one source, of one tool, of all (migration BoundedLogPages1764610000000).
@Index('idx_tool_change_source_at', ['sourceName', 'at', 'seq'])
@Index('idx_tool_change_tool_at', ['toolId', 'at', 'seq'])
@Index('idx_tool_change_at', ['at', 'seq'])
export class ToolChangeEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Orders changes within one millisecond of one process; history is ordered by `at`, then `seq`. */
  @Index('idx_tool_change_seq')
  @Column({ type: 'integer' })
  seq!: number;

  @Column({ name: 'source_name', type: 'varchar', length: 32 })
  sourceName!: string;

  @Column({ name: 'tool_name', type: 'text' })
  toolName!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 200, nullable: true })
  toolId!: string | null;

  /** added | changed | removed | quarantined | approved */
  @Column({ type: 'varchar', length: 16 })
  kind!: string;

  @Column({ name: 'old_hash', type: 'varchar', length: 64, nullable: true })
  oldHash!: string | null;

  @Column({ name: 'new_hash', type: 'varchar', length: 64, nullable: true })
  newHash!: string | null;

  @Column({ type: 'text', nullable: true })
  detail!: string | null;

  @Column({ type: 'varchar', length: 32 })
  at!: string;
}
