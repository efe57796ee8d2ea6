import type { DataSource } from 'typeorm';
import { LessThan } from 'typeorm';
import { ToolCallEntity } from './tool-call.entity';
import { writeTransaction } from './write-transaction';

/** The call log's reads and writes (issue 14). Every read of a caller's call is scoped by its decision-key hash. */
export class ToolCallStore {
  constructor(private readonly ds: DataSource) {}

  /** Records a call as running. With an Idempotency-Key, a concurrent twin makes this throw CONFLICT (unique key). */
  async begin(row: Omit<ToolCallEntity, 'status' | 'outcome' | 'answer' | 'resultBytes' | 'finishedAt' | 'durationMs'>): Promise<void> {
    await writeTransaction(this.ds, { taken: 'A call with this Idempotency-Key is already in progress; retry it after it finished.' }, async (m) => {
      await m.getRepository(ToolCallEntity).insert({ ...row, status: 'running', outcome: null, answer: null, resultBytes: null, finishedAt: null, durationMs: null });
    });
  }

  /** Records the end of a call; `releaseKey`: nothing reached the upstream, so its Idempotency-Key is free again. */
  async finish(callId: string, done: { outcome: string; answer: string; resultBytes: number | null; attempts: number; finishedAt: string; durationMs: number }, releaseKey = false): Promise<void> {
    await this.ds.getRepository(ToolCallEntity).update({ callId }, { status: 'completed', ...done, ...(releaseKey ? { idempotencyKey: null } : {}) });
  }

  /** The call with this key of this caller, if any (and forgets one older than the window). */
  async byKey(scope: string, idempotencyKey: string, notBefore: string): Promise<ToolCallEntity | null> {
    const row = await this.ds.getRepository(ToolCallEntity).findOne({ where: { scope, idempotencyKey } });
    if (row && row.startedAt < notBefore) {
      // Past the window the key is free again: the old call stays in the log, without its key.
      await this.ds.getRepository(ToolCallEntity).update({ callId: row.callId }, { idempotencyKey: null });
      return null;
    }
    return row;
  }

  /** A past call of this caller (scope) for this tool, or null: anyone else's call is as unknown as none. */
  async mine(scope: string, toolId: string, callId: string): Promise<ToolCallEntity | null> {
    return this.ds.getRepository(ToolCallEntity).findOne({ where: { callId, scope, toolId } });
  }

  /** Admin paging, newest first; `tenantId` null for a host admin (every tenant). */
  async page(filter: { tenantId: string | null; toolId?: string | null; outcome?: string | null; first: number; offset: number }): Promise<ToolCallEntity[]> {
    const where: Record<string, unknown> = {};
    if (filter.tenantId) where.tenantId = filter.tenantId;
    if (filter.toolId) where.toolId = filter.toolId;
    if (filter.outcome) where.outcome = filter.outcome;
    return this.ds.getRepository(ToolCallEntity).find({ where, order: { startedAt: 'DESC', callId: 'DESC' }, take: Math.min(Math.max(filter.first, 1), 500), skip: Math.max(filter.offset, 0) });
  }

  /** Calls still marked running that started before `before` (a replica died mid-call): closed as `failed` with `answer`. */
  async closeAbandoned(before: string, finishedAt: string, answer: string): Promise<number> {
    const r = await this.ds.getRepository(ToolCallEntity).update({ status: 'running', startedAt: LessThan(before) }, { status: 'completed', outcome: 'failed', finishedAt, answer });
    return r.affected ?? 0;
  }
}
