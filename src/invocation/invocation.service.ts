import type { SpanHooks } from '../ops/tracing-hooks';
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import type { CatalogGeneration } from '../cache/catalog-generation';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { ToolDescriptor } from '../catalog/descriptor';
import { type Principal, decisionKey } from '../catalog/principal';
import type { CallSettings } from '../config/call-settings';
import type { ToolCallEntity } from '../persistence/tool-call.entity';
import type { ToolCallStore } from '../persistence/tool-call.store';
import type { CatalogReadService } from '../services/catalog-read.service';
import { nowIso } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { ArgumentValidator, type ValidationOutcome } from './argument-validator';
import { CallEvents } from './call-events';
import { type CallAnswer, answerOfError, answerOfResult, errorOfAnswer, errorOfUpstream, outcomeOfUpstream } from './call-answer';
import { targetOf } from './call-target';
import { type UpstreamResult, type Upstream, UpstreamError } from './upstream';
import { sha256Hex } from '../shared/sha256';

/** What a caller gets back for a call that produced a result (MCP CallToolResult plus ids). */
export interface ToolCallResult {
  readonly callId: string;
  readonly toolId: string;
  readonly isError: boolean;
  readonly content: readonly unknown[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

export type CallEvent =
  | { readonly type: 'opened'; readonly callId: string; readonly at: string }
  | { readonly type: 'progress'; readonly callId: string; readonly progress: number; readonly total?: number; readonly message?: string }
  | { readonly type: 'result'; readonly result: ToolCallResult }
  | { readonly type: 'error'; readonly callId: string; readonly code: string; readonly message: string; readonly details?: Readonly<Record<string, unknown>> }
  | { readonly type: 'closed'; readonly callId: string; readonly at: string };

/** A started call: its events as they happen (opened … closed) and its end. */
export interface CallHandle {
  readonly callId: string;
  readonly toolId: string;
  /** true: an Idempotency-Key replay; the recorded answer, nothing was called. */
  readonly replayed: boolean;
  events(): AsyncIterableIterator<CallEvent>;
  /** The result, or a CatalogError with the call's code (upstream timeout, overloaded source, …). */
  readonly done: Promise<ToolCallResult>;
  /** The caller went away: the upstream call is cancelled. */
  cancel(): void;
  /** The caller reads only the end (JSON): progress events are not kept. */
  discardProgress(): void;
}

export interface CallFinished {
  readonly toolId: string;
  readonly source: string;
  readonly outcome: string;
  readonly durationMs: number;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,256}$/;
/**
 * Parsed descriptors kept by the decision's ETag: at most this much heap. A heavy tool's 22 KB descriptor cost ~27 µs
 * to parse and its inputSchema ~19 µs to key for the validator on every call (measured, Node 20); kept, a call pays
 * that once per descriptor version.
 */
const PARSED_DESCRIPTOR_HEAP_BYTES = 16 * 1024 * 1024;
/**
 * Heap per byte of descriptor JSON, charged so the bound holds for any descriptor an upstream can list: parsed, the
 * fixtures' descriptors took 1.0-1.3x their bytes, but a schema of empty objects (`"enum": [{}, {}, …]`) 21x (measured,
 * Node 20). Charged 24x, the memo holds ~700 KB of descriptor JSON, several hundred typical tools.
 */
const PARSED_HEAP_PER_BYTE = 24;
/** A call whose decision is at least this old when it leaves its source's queue is decided again before it is sent. */
const REDECIDE_AFTER_MS = 50;

/**
 * The invocation core (issue 14): a call is allowed exactly when the caller's own GET /tools/{toolId} would answer
 * 200 at that moment, because it asks that very question (CatalogReadService.get, the one read path) after reading
 * the stored catalog version, so a reclassification, revocation or grant change made on any replica applies to the
 * next call. Then: arguments checked against the tool's inputSchema, the Idempotency-Key honoured, the call sent
 * where it goes (Upstream), transport failures retried only for tools the host classified deterministic or
 * idempotent, structuredContent checked against the outputSchema, and every call recorded.
 */
export class InvocationService {
  /** Readable for tests and metrics (its stats). */
  readonly validator = new ArgumentValidator();
  private readonly running = new Set<CallEvents>();
  /**
   * The decision's descriptor, parsed once per version of its bytes. Keyed by the ETag of GET /tools/{toolId} (a
   * SHA-256 of the exact standard-view bytes), so a changed descriptor (reclassified, re-synced with a new schema) is
   * a new key: the cache can never answer for bytes it was not parsed from. Deep-frozen: every call shares it.
   */
  private readonly parsed = new LRUCache<string, ToolDescriptor>({ maxSize: PARSED_DESCRIPTOR_HEAP_BYTES });

  constructor(
    private readonly deps: {
      readonly ds: DataSource;
      readonly generation: CatalogGeneration;
      readonly catalog: CatalogReadService;
      readonly upstream: Upstream;
      readonly store: ToolCallStore;
      readonly settings: CallSettings;
      readonly log: Logger;
      readonly onFinished?: (f: CallFinished) => void;
      /** Is this principal still active (not revoked)? Asked again when a queued call is about to be sent. */
      readonly principalActive?: (p: Principal) => Promise<boolean>;
      /** For tests: time without a wall clock. */
      readonly now?: () => number;
      /** Issue 19: a span per call (absent when tracing is off). */
      readonly trace?: SpanHooks | null;
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /**
   * Starts a call, or answers null when the tool is unknown or not visible to the caller (the catalog's own 404,
   * same bytes). Refusals decided before anything is sent throw CatalogError: INVALID_ARGUMENTS,
   * IDEMPOTENCY_KEY_REUSED, CONFLICT (the key's call is still running), BAD_USER_INPUT.
   */
  /** `opts.argumentBytesAtMost`: a bound on the arguments' JSON size known already (the request body's size). */
  async start(p: Principal, toolId: unknown, args: unknown, opts: { idempotencyKey?: string | null; requestId?: string | null; argumentBytesAtMost?: number } = {}): Promise<CallHandle | null> {
    const key = opts.idempotencyKey ?? null;
    if (key !== null && !IDEMPOTENCY_KEY.test(key)) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Idempotency-Key must be 1-256 printable ASCII characters.');
    const argumentsValue = args === undefined || args === null ? {} : args;
    if (typeof argumentsValue !== 'object' || Array.isArray(argumentsValue)) {
      throw invalidArguments([{ pointer: '', message: 'arguments must be a JSON object' }]);
    }
    const descriptor = await this.decide(p, toolId);
    if (!descriptor) return null;
    const scope = scopeOf(p);
    // Depth, the request hash, the recorded copy, the scan and the check: for large arguments all made in the
    // checker's worker pool, under the tenant's share of it, never on the event loop (argument-facts.ts; red-team
    // pass on issue 14, finding 2). So the depth refusal now follows the visibility decision (a 404 comes first).
    const maxDepth = this.deps.settings.maxArgumentDepth;
    const prepared = await this.validator.prepare(descriptor.inputSchema, argumentsValue, { toolId: descriptor.toolId, maxDepth, record: this.deps.settings.recordArguments }, p.tenantId, opts.argumentBytesAtMost);
    const facts = prepared.facts;
    const rowOf = (startedAt: number, of: { idempotencyKey: string | null; requestHash: string; arguments: string | null; argumentBytes: number }) => ({
      callId: randomUUID(), scope, tenantId: p.tenantId, principalId: p.id, principalKind: p.kind, toolId: descriptor.toolId,
      safetyTier: descriptor.safetyTier, replayPolicy: descriptor.replayPolicy, egress: descriptor.egress, ...of, attempts: 0,
      startedAt: new Date(startedAt).toISOString(), requestId: opts.requestId ?? null,
    });
    if (facts === null) {
      // The worker never made them (the tenant's share of the checker full, a thread lost): nothing was tried. The
      // refusal is recorded all the same (item 7), without a request hash (never made) or an Idempotency-Key (never
      // taken), its size the request body's (a bound: the arguments were never measured).
      const err = uncheckedError(await prepared.outcome());
      const startedAt = this.now();
      const row = rowOf(startedAt, { idempotencyKey: null, requestHash: '', arguments: null, argumentBytes: opts.argumentBytesAtMost ?? 0 });
      await this.deps.store.begin(row);
      await this.record(row, startedAt, err.code === CatalogErrorCode.SourceOverloaded ? 'overloaded' : 'protocol', answerOfError(err), null, 0);
      throw err;
    }
    if (facts.tooDeep) throw invalidArguments([{ pointer: '', message: `arguments are nested deeper than ${maxDepth} levels` }]);
    const requestHash = facts.requestHash;
    if (key !== null) {
      const prior = await this.deps.store.byKey(scope, key, new Date(this.now() - this.deps.settings.idempotencySeconds * 1000).toISOString());
      if (prior) return this.replay(prior, requestHash);
    }
    const checked = await prepared.outcome();
    const startedAt = this.now();
    const row = rowOf(startedAt, { idempotencyKey: key, requestHash, arguments: facts.recorded, argumentBytes: facts.argumentBytes });
    if (!checked.ok) {
      // Nothing is forwarded; the refusal is recorded like any other call (issue 14 item 7).
      const err = 'problems' in checked ? invalidArguments(checked.problems) : uncheckedError(checked);
      const busy = 'retryAfterSeconds' in checked && checked.retryAfterSeconds !== undefined;
      await this.deps.store.begin(row);
      // A full share tried nothing: recorded as overloaded and, like a source's full queue, the key is released.
      await this.record(row, startedAt, 'problems' in checked ? 'invalid-arguments' : busy ? 'overloaded' : 'protocol', answerOfError(err), null, 0, busy);
      throw err;
    }
    await this.deps.store.begin(row);
    return this.run(p, row, descriptor, argumentsValue as Record<string, unknown>, startedAt);
  }

  /** A past call of this caller, as its answer (status and body), or null: anyone else's is as unknown as none. */
  async past(p: Principal, toolId: string, callId: string): Promise<{ status: string; outcome: string | null; answer: CallAnswer | null; row: ToolCallEntity } | null> {
    const row = await this.deps.store.mine(scopeOf(p), toolId, callId);
    return row ? { status: row.status, outcome: row.outcome, answer: row.answer === null ? null : (JSON.parse(row.answer) as CallAnswer), row } : null;
  }

  /**
   * Asked again when a call leaves its source's queue (it may have waited up to its timeout): the principal must still
   * be active and the tool still visible to it, on the catalog as stored now. Otherwise nothing is sent.
   */
  private async stillAllowed(p: Principal, toolId: string): Promise<void> {
    const active = this.deps.principalActive ? await this.deps.principalActive(p) : true;
    if (!active || !(await this.decide(p, toolId))) throw new UpstreamError('revoked', 'the tool is no longer available to this caller');
  }

  /** The decision, exactly as GET /tools/{toolId} makes it, on the catalog as stored now (every replica's changes). */
  private async decide(p: Principal, toolId: unknown): Promise<ToolDescriptor | null> {
    await this.deps.generation.poll(this.deps.ds);
    const doc = await this.deps.catalog.toolDocument(p, toolId, 'standard');
    if (!doc) return null;
    let descriptor = this.parsed.get(doc.etag);
    if (descriptor === undefined) {
      descriptor = deepFreeze(JSON.parse(doc.body.toString()) as ToolDescriptor);
      // A descriptor larger than the whole bound is parsed for this call only.
      this.parsed.set(doc.etag, descriptor, { size: Math.max(1, doc.body.bytes.length * PARSED_HEAP_PER_BYTE) });
    }
    return descriptor;
  }

  /**
   * Calls still marked running long after any replica would have ended them (the replica died mid-call) are closed:
   * outcome failed, an answer saying whether the tool ran is unknown. Their Idempotency-Key keeps that answer, so a
   * retry with the key is told so instead of waiting on 409 for the whole window, and a non-idempotent tool is
   * never sent twice. Safe on many replicas: a live replica's calls end within the call timeout.
   */
  async closeAbandoned(): Promise<number> {
    const graceMs = 60_000;
    const before = new Date(this.now() - this.deps.settings.timeoutMs - graceMs).toISOString();
    const answer = answerOfError(new CatalogError(CatalogErrorCode.UpstreamUnavailable, 'The replica handling this call stopped before it finished; whether the tool ran is unknown.'));
    const n = await this.deps.store.closeAbandoned(before, nowIso(), JSON.stringify(answer));
    if (n > 0) this.deps.log.warn({ calls: n }, 'closed calls abandoned by a replica that stopped mid-call');
    return n;
  }

  /** Cancels what is still running (shutdown). */
  async stop(): Promise<void> {
    for (const c of this.running) c.cancel();
    await this.deps.upstream.close();
    await this.validator.close();
  }

  private replay(prior: ToolCallEntity, requestHash: string): CallHandle {
    if (prior.requestHash !== requestHash) {
      throw new CatalogError(CatalogErrorCode.IdempotencyKeyReused, 'This Idempotency-Key was used for another tool or other arguments; use a new key for a new call.');
    }
    if (prior.status !== 'completed' || prior.answer === null) {
      throw new CatalogError(CatalogErrorCode.Conflict, 'The call with this Idempotency-Key is still running; ask again when it finished.');
    }
    const answer = JSON.parse(prior.answer) as CallAnswer;
    const events = new CallEvents(prior.callId);
    events.push({ type: 'opened', callId: prior.callId, at: nowIso() });
    const done = 'result' in answer ? Promise.resolve(answer.result) : Promise.reject(errorOfAnswer(answer));
    done.then(
      (result) => events.push({ type: 'result', result }),
      (err: CatalogError) => events.push({ type: 'error', callId: prior.callId, code: err.code, message: err.message, details: err.opts.details }),
    ).finally(() => events.close({ type: 'closed', callId: prior.callId, at: nowIso() }));
    done.catch(() => undefined); // the caller observes it through the handle
    return { callId: prior.callId, toolId: prior.toolId, replayed: true, events: () => events.iterate(), done, cancel: () => undefined, discardProgress: () => events.discardProgress() };
  }

  private run(p: Principal, row: { callId: string; toolId: string; replayPolicy: string }, descriptor: ToolDescriptor, args: Record<string, unknown>, startedAt: number): CallHandle {
    const { settings } = this.deps;
    const events = new CallEvents(row.callId);
    const controller = new AbortController();
    events.onCancel(() => controller.abort(new UpstreamError('cancelled', 'the caller went away')));
    this.running.add(events);
    events.push({ type: 'opened', callId: row.callId, at: nowIso() });
    const target = targetOf(descriptor.toolId);
    const deadline = startedAt + settings.timeoutMs;
    const timer = setTimeout(() => controller.abort(new UpstreamError('timeout', `no answer within ${settings.timeoutMs} ms`)), settings.timeoutMs);
    timer.unref();
    let attempts = 0;
    const attempt = async (): Promise<UpstreamResult> => {
      // Replay safety from the host's classification (issue 14 item 5): a non-idempotent tool is sent once, ever.
      const retriable = row.replayPolicy === 'deterministic' || row.replayPolicy === 'idempotent';
      for (;;) {
        attempts++;
        try {
          return await this.deps.upstream.call(target, {
            callId: row.callId,
            arguments: args,
            signal: controller.signal,
            timeoutMs: Math.max(1, deadline - this.now()),
            maxResultBytes: settings.maxResultBytes,
            onProgress: (pr) => events.push({ type: 'progress', callId: row.callId, ...boundedProgress(pr) }),
            // Asked again only for a call that waited (its decision is older than REDECIDE_AFTER_MS): one admitted at
            // once goes out on the decision just made, without three more reads on the hot path.
            beforeSend: () => (this.now() - startedAt >= REDECIDE_AFTER_MS ? this.stillAllowed(p, descriptor.toolId) : Promise.resolve()),
            party: p.tenantId,
            caller: { tenantId: p.tenantId, principalKind: p.kind, principalId: p.id },
          });
        } catch (err) {
          const upstreamError = controller.signal.aborted && controller.signal.reason instanceof UpstreamError ? controller.signal.reason : err;
          const again = retriable && upstreamError instanceof UpstreamError && upstreamError.opts.retryable === true && attempts <= settings.retries && !controller.signal.aborted;
          if (!again) throw upstreamError;
          await backoff(settings.retryBackoffMs * 2 ** (attempts - 1), controller.signal);
        }
      }
    };
    const fail = async (err: unknown): Promise<never> => {
      const failure = err instanceof UpstreamError ? errorOfUpstream(err) : err instanceof CatalogError ? err : new CatalogError(CatalogErrorCode.UpstreamUnavailable, 'The call failed.', { cause: err });
      if (!(err instanceof UpstreamError) && !(err instanceof CatalogError)) this.deps.log.error({ err, callId: row.callId }, 'call failed unexpectedly');
      const outcome = err instanceof UpstreamError ? outcomeOfUpstream(err.kind) : 'failed';
      // Nothing reached the upstream (its queue was full, its circuit open, the connection refused, the decision
      // changed while it waited): the Idempotency-Key is released, so the same call with the same key can be made
      // again instead of replaying a refusal for the whole window (red-team pass on issue 14).
      const undelivered = err instanceof UpstreamError && (err.kind === 'overloaded' || err.kind === 'circuit-open' || err.kind === 'revoked' || err.kind === 'not-implemented' || err.opts.retryable === true);
      await this.record(row, startedAt, outcome, answerOfError(failure), null, attempts, undelivered);
      events.push({ type: 'error', callId: row.callId, code: failure.code, message: failure.message, details: failure.opts.details });
      throw failure;
    };
    const traced = this.deps.trace ? () => this.deps.trace!.inSpan('tools/call', { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': row.toolId, 'toolcat.call_id': row.callId }, attempt) : attempt;
    const done = traced().then(
      async (result) => {
        let checked: { result: ToolCallResult; outcome: string };
        let answer: CallAnswer & { bytes: number };
        try {
          checked = await this.checkOutput(descriptor, row.callId, result, p.tenantId);
          answer = answerOfResult(checked.result);
        } catch (err) {
          // A result that cannot even be measured (nested past the stack, say) is the upstream's protocol error.
          this.deps.log.warn({ callId: row.callId, toolId: row.toolId, err: (err as Error).name }, 'a tool result could not be processed');
          return fail(new UpstreamError('protocol', "the tool's result could not be processed (nested too deeply?)"));
        }
        await this.record(row, startedAt, checked.outcome, answer, answer.bytes, attempts, false);
        events.push({ type: 'result', result: checked.result });
        return checked.result;
      },
      fail,
    ).finally(() => {
      clearTimeout(timer);
      this.running.delete(events);
      events.close({ type: 'closed', callId: row.callId, at: nowIso() });
    });
    done.catch(() => undefined); // observed through the handle
    return { callId: row.callId, toolId: row.toolId, replayed: false, events: () => events.iterate(), done, cancel: () => events.cancel(), discardProgress: () => events.discardProgress() };
  }

  /**
   * A tool with an outputSchema promises structuredContent that matches it (MCP); one that does not is reported to
   * the caller as a tool error, never passed off as valid (issue 14 item 3), and counted (outcome output-invalid).
   */
  private async checkOutput(descriptor: ToolDescriptor, callId: string, r: UpstreamResult, party: string): Promise<{ result: ToolCallResult; outcome: string }> {
    const base = { callId, toolId: descriptor.toolId };
    if (descriptor.outputSchema && !r.isError) {
      const checked = r.structuredContent === undefined ? { ok: false as const, problems: [{ pointer: '', message: 'no structuredContent, though the tool declares an outputSchema' }] } : await this.validator.validate(descriptor.outputSchema, r.structuredContent, 'structuredContent', party);
      if (!checked.ok) {
        const why = 'problems' in checked ? checked.problems.map((x) => `${x.pointer || '/'} ${x.message}`).join('; ') : checked.uncheckable;
        return { outcome: 'output-invalid', result: { ...base, isError: true, content: [{ type: 'text', text: `toolcat: the tool's structuredContent does not match its outputSchema (${why.slice(0, 500)}); the result is withheld.` }] } };
      }
    }
    const result: ToolCallResult = { ...base, isError: r.isError, content: r.content, ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}) };
    return { outcome: r.isError ? 'tool-error' : 'ok', result };
  }

  private async record(row: { callId: string; toolId: string }, startedAt: number, outcome: string, answer: CallAnswer, resultBytes: number | null, attempts: number, releaseKey = false): Promise<void> {
    const durationMs = Math.max(0, this.now() - startedAt);
    try {
      await this.deps.store.finish(row.callId, { outcome, answer: JSON.stringify(answer), resultBytes, attempts, finishedAt: nowIso(), durationMs }, releaseKey);
    } catch (err) {
      // The caller still gets its answer; the log says the call log missed one.
      this.deps.log.error({ err, callId: row.callId }, 'could not record the end of a call');
    }
    const target = targetOf(row.toolId);
    this.deps.onFinished?.({ toolId: row.toolId, source: target.kind === 'mcp' ? target.source : 'host-extension', outcome, durationMs });
  }
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
  }
  return v;
}

/** Whose calls these are: a hash of everything the caller's decision depends on (issue 11 defect 1). */
function scopeOf(p: Principal): string {
  return sha256Hex(decisionKey(p));
}

/** A check that could not be made: 429 with Retry-After when the caller's share of the checker was full, else 502. */
function uncheckedError(checked: ValidationOutcome): CatalogError {
  if (!('uncheckable' in checked)) return new CatalogError(CatalogErrorCode.UpstreamUnavailable, 'The arguments could not be checked.');
  if (checked.retryAfterSeconds !== undefined) return new CatalogError(CatalogErrorCode.SourceOverloaded, checked.uncheckable, { details: { retryAfterSeconds: checked.retryAfterSeconds } });
  return new CatalogError(CatalogErrorCode.UpstreamUnavailable, checked.uncheckable);
}

function invalidArguments(problems: ReadonlyArray<{ pointer: string; message: string }>): CatalogError {
  return new CatalogError(CatalogErrorCode.InvalidArguments, `The arguments do not match the tool's inputSchema: ${problems.length} problem${problems.length === 1 ? '' : 's'}.`, { details: { problems } });
}

/** Progress as passed on: a message bounded in length, so a chatty upstream's progress cannot grow memory per event. */
const MAX_PROGRESS_MESSAGE = 1000;
function boundedProgress(p: { progress: number; total?: number; message?: string }): { progress: number; total?: number; message?: string } {
  return { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(typeof p.message === 'string' ? { message: p.message.slice(0, MAX_PROGRESS_MESSAGE) } : {}) };
}

function backoff(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
