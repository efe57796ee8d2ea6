import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The config file last applied to this database (issue 19): one row. Replicas sharing the database compare
 * their file's hash with it before applying at start, so two replicas started with different files never
 * undo each other. `entries` keeps, per declared entry, the hash of what the file said (and of its
 * classification), so an apply can tell "the file changed this entry" from "the API changed this resource".
 */
@Entity({ name: 'config_application' })
export class ConfigApplicationEntity {
  @PrimaryColumn({ type: 'integer' })
  id!: number;

  /** sha256 of the canonical JSON of the file's content (formatting and comments do not count). */
  @Column({ type: 'varchar', length: 64 })
  hash!: string;

  @Column({ type: 'varchar', length: 1024 })
  file!: string;

  /** JSON: { extensions: { [name]: { hash, classificationHash } }, mcpServers: { [name]: { hash } } }. */
  @Column({ type: 'text' })
  entries!: string;

  @Column({ name: 'applied_at', type: 'varchar', length: 32 })
  appliedAt!: string;

  /** host name and pid of the process that applied it, and whether it was start-up or `config apply`. */
  @Column({ name: 'applied_by', type: 'varchar', length: 256 })
  appliedBy!: string;
}
