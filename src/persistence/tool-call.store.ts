import type { DataSource } from 'typeorm';
import type { Pool } from 'pg';
import { constraintViolationOf } from './constraint-errors';
import { logPage } from './log-page';
import { type SqliteConnection, outsideTransactions } from './sqlite-immediate';
import { ToolCallEntity } from './tool-call.entity';
import { errorForViolation } from './write-transaction';

type BeginRow = Omit<ToolCallEntity, 'status' | 'outcome' | 'answer' | 'resultBytes' | 'finishedAt' | 'durationMs'>;
type Finish = { outcome: string; answer: string; resultBytes: number | null; attempts: number; finishedAt: string; durationMs: number };

/**
 * The two writes every call makes (its start and its end) are prepared statements on the driver, not TypeORM's query
 * builder: the builder's insert (metadata walk, then a SELECT for the column defaults) and update were ~15-18% of
 * toolcat's CPU per call (bench scenario i). On PostgreSQL each is one autocommit statement; on SQLite the writes of
 * one event-loop turn share a transaction (below). Either way the start row is durable (and an Idempotency-Key taken,
 * by the unique index) before the call is sent, as before.
 */
const COLUMNS = ['call_id', 'scope', 'tenant_id', 'principal_id', 'principal_kind', 'tool_id', 'safety_tier', 'replay_policy', 'egress', 'idempotency_key', 'request_hash', 'arguments', 'status', 'argument_bytes', 'attempts', 'started_at', 'request_id'];
const placeholders = (pg: boolean, n: number, from = 1) => Array.from({ length: n }, (_, i) => (pg ? `$${i + from}` : '?'));
const beginSql = (pg: boolean) => `INSERT INTO "tool_call" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders(pg, COLUMNS.length).join(', ')})`;
const FINISH_SET = ['outcome', 'answer', 'result_bytes', 'attempts', 'finished_at', 'duration_ms'];
const finishSql = (pg: boolean, releaseKey: boolean) => {
  const p = placeholders(pg, FINISH_SET.length + 1);
  return `UPDATE "tool_call" SET "status" = 'completed', ${FINISH_SET.map((c, i) => `"${c}" = ${p[i]}`).join(', ')}${releaseKey ? ', "idempotency_key" = NULL' : ''} WHERE "call_id" = ${p[FINISH_SET.length]}`;
};
const beginValues = (r: BeginRow) => [r.callId, r.scope, r.tenantId, r.principalId, r.principalKind, r.toolId, r.safetyTier, r.replayPolicy, r.egress, r.idempotencyKey, r.requestHash, r.arguments, 'running', r.argumentBytes, r.attempts, r.startedAt, r.requestId];
const finishValues = (callId: string, d: Finish) => [d.outcome, d.answer, d.resultBytes, d.attempts, d.finishedAt, d.durationMs, callId];

type Write = (statement: 'begin' | 'finish' | 'finish-release', values: unknown[]) => Promise<void>;

function writerOf(ds: DataSource): Write {
  if (ds.options.type === 'postgres') {
    // Named statements: each pooled connection parses and plans them once.
    const text = { begin: beginSql(true), finish: finishSql(true, false), 'finish-release': finishSql(true, true) };
    return async (statement, values) => {
      await ((ds.driver as unknown as { master: Pool }).master.query({ name: `toolcat_call_${statement}`, text: text[statement], values }));
    };
  }
  // SQLite: statements prepared once on the process's one connection (reprepared if the connection changes), and
  // group-committed: the writes asked for within one turn of the event loop are run in one transaction (one WAL
  // commit instead of one each; under concurrent calls they share the table's and indexes' pages). Each write still
  // resolves only after the commit that holds it, so a call's start row is durable before the call is sent.
  type Prepared = { db: SqliteConnection; begin: Stmt; finish: Stmt; 'finish-release': Stmt; txBegin: Stmt; txCommit: Stmt; txRollback: Stmt };
  type Stmt = ReturnType<SqliteConnection['prepare']>;
  type Queued = { statement: 'begin' | 'finish' | 'finish-release'; values: unknown[]; resolve: () => void; reject: (err: unknown) => void };
  let prepared: Prepared | null = null;
  let queue: Queued[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    outsideTransactions(ds, (db) => {
      if (prepared?.db !== db) {
        prepared = { db, begin: db.prepare(beginSql(false)), finish: db.prepare(finishSql(false, false)), 'finish-release': db.prepare(finishSql(false, true)), txBegin: db.prepare('BEGIN IMMEDIATE'), txCommit: db.prepare('COMMIT'), txRollback: db.prepare('ROLLBACK') };
      }
      const p = prepared;
      if (batch.length === 1) {
        const [one] = batch;
        p[one.statement].run(...one.values);
        return [null];
      }
      // A failing statement (an Idempotency-Key's unique index) fails alone: SQLite undoes that statement only and the
      // transaction goes on; a failed COMMIT fails them all (nothing of the batch was written).
      p.txBegin.run();
      const errors: unknown[] = [];
      try {
        for (const q of batch) {
          try {
            p[q.statement].run(...q.values);
            errors.push(null);
          } catch (err) {
            errors.push(err ?? new Error('write failed'));
          }
        }
        p.txCommit.run();
      } catch (err) {
        if (db.inTransaction) p.txRollback.run();
        throw err;
      }
      return errors;
    }).then(
      (errors) => batch.forEach((q, i) => (errors[i] === null ? q.resolve() : q.reject(errors[i]))),
      (err: unknown) => batch.forEach((q) => q.reject(err)),
    );
  };
  return (statement, values) =>
    new Promise<void>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ statement, values, resolve, reject });
    });
}

/** The call log's reads and writes (issue 14). Every read of a caller's call is scoped by its decision-key hash. */
export class ToolCallStore {
  private readonly write: Write;

  constructor(private readonly ds: DataSource) {
    this.write = writerOf(ds);
  }

  /** Records a call as running. With an Idempotency-Key, a concurrent twin makes this throw CONFLICT (unique key). */
  async begin(row: BeginRow): Promise<void> {
    try {
      await this.write('begin', beginValues(row));
    } catch (err) {
      const v = constraintViolationOf(err);
      if (!v) throw err;
      throw errorForViolation(v, { taken: 'A call with this Idempotency-Key is already in progress; retry it after it finished.' }, err);
    }
  }

  /** Records the end of a call; `releaseKey`: nothing reached the upstream, so its Idempotency-Key is free again. */
  async finish(callId: string, done: Finish, releaseKey = false): Promise<void> {
    await this.write(releaseKey ? 'finish-release' : 'finish', finishValues(callId, done));
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
    return this.ds.getRepository(ToolCallEntity).find({ where, order: { startedAt: 'DESC', callId: 'DESC' }, ...logPage(filter.first, filter.offset) });
  }

  /** Calls still marked running that started before `before` (a replica died mid-call): closed as `failed` with `answer`. */
  async closeAbandoned(before: string, finishedAt: string, answer: string): Promise<number> {
    // `status = 'running'` spelled in the statement, not bound: only then may the planner use the partial index of
    // running calls (a bound value is unknown when the statement is prepared), so the sweep never reads finished ones.
    const r = await this.ds
      .createQueryBuilder()
      .update(ToolCallEntity)
      .set({ status: 'completed', outcome: 'failed', finishedAt, answer })
      .where("status = 'running'")
      .andWhere('started_at < :before', { before })
      .execute();
    return r.affected ?? 0;
  }
}
