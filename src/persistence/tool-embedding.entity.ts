import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A tool's vector for the optional embedding stage of tool search (issue 18), kept beside the tool row so that a
 * restart, or another replica, re-embeds nothing. Keyed by toolId; `text_hash` is the SHA-256 of the model name and
 * the exact text embedded, so a vector is recomputed only when that text (or the configured model) changes. No
 * foreign key: a snapshot swap may replace a tool row with an identical one, and its vector must survive that; the
 * search maintenance pass deletes the vectors of tools that are gone.
 */
@Entity({ name: 'tool_embedding' })
export class ToolEmbeddingEntity {
  @PrimaryColumn({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  @Column({ type: 'varchar', length: 200 })
  model!: string;

  @Column({ name: 'text_hash', type: 'varchar', length: 64 })
  textHash!: string;

  @Column({ type: 'integer' })
  dimensions!: number;

  /** Float32 little-endian, base64: one portable text column on SQLite and PostgreSQL. */
  @Column({ type: 'text' })
  vector!: string;

  @Column({ name: 'updated_at', type: 'varchar', length: 32 })
  updatedAt!: string;
}
