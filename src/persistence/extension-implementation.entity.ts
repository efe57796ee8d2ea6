import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * How a host extension is called (issue 14): an HTTP endpoint the host runs, with the secret toolcat signs its
 * requests with. The secret is write-only like a source's (a literal or `{ fromEnv }`, resolved at call time) and
 * never read back by any query.
 */
@Entity({ name: 'extension_implementation' })
export class ExtensionImplementationEntity {
  @PrimaryColumn({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  /** http */
  @Column({ type: 'varchar', length: 16 })
  kind!: string;

  @Column({ type: 'text' })
  url!: string;

  /** JSON SecretValue: { "value": … } or { "fromEnv": … }. */
  @Column({ type: 'text' })
  secret!: string;

  @Column({ name: 'timeout_ms', type: 'integer', nullable: true })
  timeoutMs!: number | null;
}
