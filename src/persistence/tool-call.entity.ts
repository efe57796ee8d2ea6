import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One call of a tool through toolcat (issue 14): who, which tool, the host's classification at call time, when,
 * how long, how it ended, sizes, and a hash of the arguments (the arguments themselves only when the operator asks,
 * TOOLCAT_CALL_RECORD_ARGUMENTS). The answer the caller got is kept (bounded by the result limit) so that
 * `GET /tools/{toolId}/calls/{callId}` and an Idempotency-Key replay return it without calling again.
 */
@Entity({ name: 'tool_call' })
@Index('idx_tool_call_idempotency', ['scope', 'idempotencyKey'], { unique: true, where: 'idempotency_key IS NOT NULL' })
// Admin pages, newest first, per filter, and the abandoned-call sweep (migration BoundedLogPages1764610000000).
@Index('idx_tool_call_tenant_started', ['tenantId', 'startedAt', 'callId'])
@Index('idx_tool_call_tenant_tool_started', ['tenantId', 'toolId', 'startedAt', 'callId'])
@Index('idx_tool_call_tenant_outcome_started', ['tenantId', 'outcome', 'startedAt', 'callId'], { where: 'outcome IS NOT NULL' })
@Index('idx_tool_call_tool_started', ['toolId', 'startedAt', 'callId'])
@Index('idx_tool_call_outcome_started', ['outcome', 'startedAt', 'callId'], { where: 'outcome IS NOT NULL' })
@Index('idx_tool_call_running', ['startedAt'], { where: "status = 'running'" })
export class ToolCallEntity {
  @PrimaryColumn({ name: 'call_id', type: 'varchar', length: 36 })
  callId!: string;

  /** SHA-256 of the caller's decision key (tenant, kind, id, role, groups): "the principal who made it". */
  @Column({ type: 'varchar', length: 64 })
  scope!: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 36 })
  tenantId!: string;

  @Column({ name: 'principal_id', type: 'varchar', length: 64 })
  principalId!: string;

  @Column({ name: 'principal_kind', type: 'varchar', length: 16 })
  principalKind!: string;

  @Column({ name: 'tool_id', type: 'varchar', length: 200 })
  toolId!: string;

  @Column({ name: 'safety_tier', type: 'varchar', length: 8 })
  safetyTier!: string;

  @Column({ name: 'replay_policy', type: 'varchar', length: 16 })
  replayPolicy!: string;

  @Column({ type: 'varchar', length: 16 })
  egress!: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 256, nullable: true })
  idempotencyKey!: string | null;

  /** SHA-256 of the canonical JSON of toolId and arguments: what an Idempotency-Key is bound to. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash!: string;

  @Column({ type: 'text', nullable: true })
  arguments!: string | null;

  /** running | completed */
  @Column({ type: 'varchar', length: 16 })
  status!: string;

  /** ok | tool-error | output-invalid | invalid-arguments | timeout | unavailable | overloaded | circuit-open | too-large | protocol | not-implemented | cancelled | failed */
  @Column({ type: 'varchar', length: 24, nullable: true })
  outcome!: string | null;

  /** The JSON the caller got (status and body), once completed. */
  @Column({ type: 'text', nullable: true })
  answer!: string | null;

  @Column({ name: 'argument_bytes', type: 'integer' })
  argumentBytes!: number;

  @Column({ name: 'result_bytes', type: 'integer', nullable: true })
  resultBytes!: number | null;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Index('idx_tool_call_started')
  @Column({ name: 'started_at', type: 'varchar', length: 32 })
  startedAt!: string;

  @Column({ name: 'finished_at', type: 'varchar', length: 32, nullable: true })
  finishedAt!: string | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  @Column({ name: 'request_id', type: 'varchar', length: 128, nullable: true })
  requestId!: string | null;
}
