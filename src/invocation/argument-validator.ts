import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { Piscina } from 'piscina';
import type { CheckAnswer, CheckTask } from './argument-check.worker';
import { type ArgumentFacts, type FactsRequest, argumentFacts, isSmall } from './argument-facts';
import { type CheckedRole, type Compiled, type ValidationOutcome, analyseSchema, compileSchema, outcomeOf, scanValue, schemaName } from './schema-check';
import { sha256Base64url } from '../shared/sha256';
import { SourceGate } from './source-gate';
import { UpstreamError } from './upstream';

export type { ValidationOutcome } from './schema-check';

/**
 * Arguments checked against the tool's own inputSchema, in its own dialect, before anything is forwarded (issue 14
 * item 3), and structuredContent against the outputSchema. The schema is the served standard view's: the upstream's
 * definition as received, minus credential annotations (defaults, examples) that constrain nothing, plus
 * `type: object` on a typeless root.
 *
 * A check is bounded in time (red-team finding: `pattern: "^(a+)+$"` against 31 bytes took 3.9 s on the event loop,
 * `uniqueItems` over 20,000 objects 4.6 s, freezing every tenant's reads). Each schema is analysed once
 * (schema-check.ts, analyseSchema); a schema that cannot cost more than its size times the value's, checking a value
 * of at most `inlineBytes`, with their product at most `inlineWork`, is checked inline (most calls). Any other check
 * runs in a small pool of niced worker threads (argument-check.worker.ts) and is given `budgetMs` once it starts: a
 * check still running then is aborted, piscina terminates its thread (a backtracking regex cannot be interrupted
 * otherwise) and the answer is `uncheckable`, nothing sent.
 *
 * The pool is shared by every tenant, so each holds a bounded share of it, as of a source (source-gate.ts, the same
 * SourceGate with the tenant as its party): at most half the threads and half the queue, a freed thread going first
 * to a tenant under its share. One tenant's flood of costly checks fills its own share only; past it the answer is
 * `uncheckable` with `retryAfterSeconds` (429 + Retry-After), and other tenants' checks still run (red-team pass on
 * issue 14, finding 1: tenant B's check of "abc" answered 502 on 10 of 10 calls while tenant A flooded ^(a+)+$).
 * A value larger than `inlineNodes` values or `inlineBytes` is never walked on the event loop: its scan, and a call's
 * facts (argument-facts.ts), are made in the worker too (finding 2), behind the same shares.
 */
export const DEFAULT_VALIDATION_BUDGET_MS = 250;

export interface ArgumentValidatorOptions {
  /** CPU time a check may take in a worker before it is abandoned (and its thread terminated). */
  readonly budgetMs: number;
  readonly threads: number;
  /** Checks waiting for a thread, over all calls (a tenant holds half); one more answers uncheckable at once. */
  readonly queue: number;
  readonly niceIncrement: number;
  readonly idleTimeoutMs: number;
  /** Values larger than this (about their JSON length) are checked in a worker, whatever the schema. */
  readonly inlineBytes: number;
  /** The most (expanded schema objects) x (value size) checked inline. */
  readonly inlineWork: number;
  /** Values with more values (nodes) than this are walked in a worker only, whatever the schema. */
  readonly inlineNodes: number;
}

const DEFAULTS: ArgumentValidatorOptions = Object.freeze({
  budgetMs: DEFAULT_VALIDATION_BUDGET_MS,
  threads: Math.max(1, Math.min(2, availableParallelism())),
  queue: 8,
  niceIncrement: process.platform === 'linux' ? 10 : 0,
  idleTimeoutMs: 30_000,
  inlineBytes: 64 * 1024,
  inlineWork: 1 << 15,
  inlineNodes: 4096,
});

/** A thread's start, or a wait in the queue, beyond the budget: past this the check is abandoned all the same. */
const START_ALLOWANCE_MS = 2_000;

interface SchemaEntry {
  readonly key: string;
  readonly text: string;
  readonly costly: string | null;
  readonly nodes: number;
  /** Compiled on the main thread on first inline use only. */
  compiled?: Compiled;
}

export class ArgumentValidator {
  private readonly schemas = new LRUCache<string, SchemaEntry>({ max: 1000 });
  /**
   * A frozen schema's key in `schemas`, by the object itself (held only as long as the schema is). The key, not the
   * entry: the bounded `schemas` stays the only holder of compiled validators (schema-check.ts).
   */
  private readonly keyOf = new WeakMap<object, string>();
  private pool: Piscina<CheckTask, CheckAnswer> | null = null;
  readonly options: ArgumentValidatorOptions;
  /** For tests and metrics: how checks were made (inline, in a worker, abandoned at the budget or a full queue). */
  readonly stats = { inline: 0, worker: 0, overBudget: 0 };
  private readonly gate: SourceGate;
  lastPath: 'inline' | 'worker' | null = null;

  constructor(options: Partial<ArgumentValidatorOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
    const o = this.options;
    // No breaker: a check never fails as a source does (the threshold is never reached).
    this.gate = new SourceGate({ maxConcurrentPerSource: Math.max(1, o.threads), maxQueuedPerSource: Math.max(0, o.queue), breakerFailureThreshold: Number.MAX_SAFE_INTEGER, breakerOpenMs: 1 });
  }

  /** Whether a value of about `valueSize` JSON characters is checked against this schema in a worker. */
  static needsWorker(schema: Readonly<Record<string, unknown>>, valueSize: number, options: Partial<ArgumentValidatorOptions> = {}): boolean {
    const { costly, nodes } = analyseSchema(JSON.parse(JSON.stringify(schema)));
    return offThread({ costly, nodes }, valueSize, { ...DEFAULTS, ...options });
  }

  /** Checks a value; `party` (the caller's tenant) holds a bounded share of the worker pool. */
  async validate(schema: Readonly<Record<string, unknown>>, value: unknown, role: CheckedRole = 'arguments', party?: string): Promise<ValidationOutcome> {
    const entry = this.entry(schema);
    if (!this.small(value)) return this.inWorker(entry, value, role, party, {});
    const scanned = scanValue(value);
    if (scanned.nonFinite.length > 0) return { ok: false, problems: scanned.nonFinite };
    return this.checked(entry, value, role, party, scanned.size);
  }

  /**
   * A call's arguments: their facts (argument-facts.ts), then, asked for, the check. Small arguments: the facts
   * inline, the check as validate() makes it. Large ones: one task in the worker pool makes both, the facts told
   * before the check starts (so a check abandoned at its budget still leaves the request hash); `facts` is null when
   * the task never started (the tenant's share full, a thread lost), and the outcome says why. `bytesAtMost`: a bound
   * on the value's JSON size known already (the request body's size): it decides small or large without a walk, since
   * even the bounded walk lists a wide object's keys at once (~19 ms for 60,000 keys, measured).
   */
  async prepare(schema: Readonly<Record<string, unknown>>, value: unknown, req: FactsRequest, party?: string, bytesAtMost?: number): Promise<Prepared> {
    const entry = this.entry(schema);
    if (bytesAtMost !== undefined ? bytesAtMost <= this.options.inlineBytes : this.small(value)) {
      const facts = argumentFacts(value, req);
      if (facts.tooDeep) return { facts, outcome: () => Promise.resolve({ ok: true }) };
      return { facts, outcome: () => (facts.nonFinite.length > 0 ? Promise.resolve({ ok: false, problems: facts.nonFinite }) : this.checked(entry, value, 'arguments', party, facts.size)) };
    }
    let told: (f: ArgumentFacts | null) => void = () => undefined;
    const facts = new Promise<ArgumentFacts | null>((resolve) => (told = resolve));
    const outcome = this.inWorker(entry, value, 'arguments', party, { facts: req, onFacts: told });
    void outcome.then(() => told(null));
    return { facts: await facts, outcome: () => outcome };
  }

  private small(value: unknown): boolean {
    return isSmall(value, this.options.inlineNodes, this.options.inlineBytes);
  }

  private checked(entry: SchemaEntry, value: unknown, role: CheckedRole, party: string | undefined, size: number): Promise<ValidationOutcome> {
    if (!offThread(entry, size, this.options)) {
      this.stats.inline++;
      this.lastPath = 'inline';
      entry.compiled ??= compileSchema(entry.text);
      return Promise.resolve(outcomeOf(entry.compiled, value, role));
    }
    return this.inWorker(entry, value, role, party, { scanned: true });
  }

  private entry(schema: Readonly<Record<string, unknown>>): SchemaEntry {
    // A frozen schema cannot change, so its cache key is found by identity, without serialising and hashing it again
    // on every call. Only the invocation core's kept descriptors are frozen here, and deeply (deepFreeze): a schema frozen
    // at its top only, with parts that may still change, must not be passed.
    const frozen = Object.isFrozen(schema);
    const knownKey = frozen ? this.keyOf.get(schema) : undefined;
    const known = knownKey === undefined ? undefined : this.schemas.get(knownKey);
    if (known !== undefined) return known;
    const text = JSON.stringify(schema);
    const key = sha256Base64url(text);
    let entry = this.schemas.get(key);
    if (entry === undefined) {
      const { costly, nodes } = analyseSchema(JSON.parse(text));
      entry = { key, text, costly, nodes };
      this.schemas.set(key, entry);
    }
    if (frozen) this.keyOf.set(schema, key);
    return entry;
  }

  private async inWorker(entry: SchemaEntry, value: unknown, role: CheckedRole, party: string | undefined, how: { scanned?: boolean; facts?: FactsRequest; onFacts?: (f: ArgumentFacts) => void }): Promise<ValidationOutcome> {
    const o = this.options;
    this.stats.worker++;
    this.lastPath = 'worker';
    const overBudget = (): ValidationOutcome => {
      this.stats.overBudget++;
      const what = role === 'arguments' ? 'the arguments' : 'the structuredContent';
      const tail = role === 'arguments' ? '; nothing was sent' : '';
      return { ok: false, uncheckable: `${what} could not be checked against the tool's ${schemaName(role)} within ${o.budgetMs} ms (a pattern or uniqueItems too costly)${tail}` };
    };
    this.pool ??= new Piscina<CheckTask, CheckAnswer>({
      filename: join(__dirname, 'argument-check.worker.js'),
      name: 'checkValue',
      // One thread stays once started: piscina replaces a terminated thread only up to minThreads, and a check
      // queued behind a terminated one would otherwise wait for the next submission (or the backstop).
      minThreads: 1,
      maxThreads: Math.max(1, o.threads),
      // The gate admits at most `threads` tasks; this queue holds them only while a thread (re)starts.
      maxQueue: Math.max(1, o.threads),
      idleTimeout: o.idleTimeoutMs,
      niceIncrement: o.niceIncrement,
      // A value is bounded by the request or result size limit; this bounds what one check may hold for it.
      resourceLimits: { maxOldGenerationSizeMb: 256 },
    });
    const pool = this.pool;
    const abort = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let budget: NodeJS.Timeout | undefined;
    port1.once('message', (facts: ArgumentFacts | 0) => {
      budget = setTimeout(() => abort.abort(), o.budgetMs);
      port1.close();
      if (facts !== 0) how.onFacts?.(facts);
    });
    const backstop = setTimeout(() => abort.abort(), o.budgetMs + START_ALLOWANCE_MS + o.budgetMs * Math.ceil(o.queue / Math.max(1, o.threads)));
    try {
      const task: CheckTask = { key: entry.key, schemaText: entry.text, value, role, started: port2, ...(how.facts ? { facts: how.facts } : how.scanned ? {} : { scan: true }) };
      const answer = await this.gate.run('checker', abort.signal, () => pool.run(task, { transferList: [port2], signal: abort.signal }), party);
      if (answer.facts) how.onFacts?.(answer.facts);
      return answer.outcome;
    } catch (err) {
      if (err instanceof UpstreamError && err.kind === 'overloaded') {
        this.stats.overBudget++;
        const what = role === 'arguments' ? 'the arguments' : 'the structuredContent';
        return { ok: false, uncheckable: `${what} could not be checked now: this caller's share of the checker is full; try again later`, retryAfterSeconds: err.opts.retryAfterSeconds ?? 1 };
      }
      if (abort.signal.aborted || err instanceof UpstreamError || /queue is at limit|no task queue/i.test((err as Error).message)) return overBudget();
      // A thread that died otherwise (its memory limit, say) vouches for nothing either: fail closed.
      return { ok: false, uncheckable: `the tool's ${schemaName(role)} could not be checked (${(err as Error).message.slice(0, 200)})` };
    } finally {
      clearTimeout(budget);
      clearTimeout(backstop);
      port1.close();
    }
  }

  /** Ends the worker threads (shutdown); a later check starts them again. */
  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    await p?.destroy();
  }
}

export interface Prepared {
  /** Null when the worker never made them: the outcome says why. */
  readonly facts: ArgumentFacts | null;
  readonly outcome: () => Promise<ValidationOutcome>;
}

function offThread(schema: { readonly costly: string | null; readonly nodes: number }, valueSize: number, o: ArgumentValidatorOptions): boolean {
  return schema.costly !== null || valueSize > o.inlineBytes || schema.nodes * Math.max(1, valueSize) > o.inlineWork;
}
