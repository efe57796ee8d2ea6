import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Write-only connection secrets of a source, in their own table: no query of the GraphQL schema reads it,
 * and nothing that builds a descriptor or an admin view imports it.
 */
@Entity({ name: 'mcp_source_secret' })
export class McpSourceSecretEntity {
  @PrimaryColumn({ name: 'source_name', type: 'varchar', length: 32 })
  sourceName!: string;

  /** JSON: { NAME: { value } | { fromEnv } } */
  @Column({ type: 'text' })
  env!: string;

  @Column({ type: 'text', nullable: true })
  url!: string | null;

  /** JSON: { Header-Name: { value } | { fromEnv } } */
  @Column({ type: 'text' })
  headers!: string;
}
