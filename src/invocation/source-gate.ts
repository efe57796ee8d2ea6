import { UpstreamError, type UpstreamErrorKind } from './upstream';

/**
 * Bounds and isolation per source for tool calls (issue 14 item 6): a concurrency limit with a bounded queue, and a
 * circuit breaker for a source that keeps failing. Each source has its own state: one source's full queue or open
 * breaker never refuses a call to another. In memory, per replica; an entry exists only while it says something
 * (calls active or queued, failures counted), so memory is bounded by the sources in use.
 */
export interface SourceGateLimits {
  readonly maxConcurrentPerSource: number;
  readonly maxQueuedPerSource: number;
  /** Consecutive failures (unavailable, timeout, protocol) that open the breaker. */
  readonly breakerFailureThreshold: number;
  /** How long an open breaker refuses calls before it lets one probe through (half-open). */
  readonly breakerOpenMs: number;
}

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface SourceGateState {
  readonly active: number;
  readonly queued: number;
  readonly breaker: BreakerState;
  readonly consecutiveFailures: number;
}

/** Failures of the source itself. A tool error (an isError result) is a success here; cancelled, too-large, overloaded are no evidence either way. */
// What counts as the source failing. A timeout does not: how long a call runs is partly the caller's to decide (a
// tool's own duration argument), so counting timeouts let one tenant open the circuit for everyone (red-team pass on
// issue 14). A hanging source is contained by the call timeout, the concurrency limit and the queue bound instead.
const BREAKER_KINDS: ReadonlySet<UpstreamErrorKind> = new Set(['unavailable', 'protocol']);

interface Waiter {
  readonly party: string | undefined;
  readonly start: () => void;
  readonly cancel: () => void;
}

interface Entry {
  active: number;
  readonly queue: Waiter[];
  consecutiveFailures: number;
  /** When the breaker (last) opened; null while closed. */
  openedAt: number | null;
  /** The half-open probe is taken (admitted, queued or running). */
  probing: boolean;
  /** Smoothed duration of a call (ms), for Retry-After when the queue is full. */
  avgMs: number;
  /** Running calls per party (tenant). */
  readonly activeBy: Map<string, number>;
}

type Outcome = 'success' | 'failure' | 'neutral';

export class SourceGate {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly limits: SourceGateLimits,
    private readonly clock: () => number = Date.now,
  ) {
    for (const [k, v] of Object.entries(limits)) {
      if (!Number.isInteger(v) || v < (k === 'maxQueuedPerSource' ? 0 : 1)) throw new Error(`SourceGate: ${k} must be a positive integer`);
    }
  }

  /**
   * Runs fn within the source's concurrency limit. Queue full → UpstreamError('overloaded', …, { retryAfterSeconds });
   * breaker open → UpstreamError('circuit-open', …, { retryAfterSeconds: seconds until half-open }). A queued call
   * whose signal aborts leaves the queue at once (UpstreamError('cancelled')). With a `party` (the caller's tenant),
   * that party holds at most half the slots and half the queue (at least one of each).
   */
  run<T>(source: string, signal: AbortSignal, fn: () => Promise<T>, party?: string): Promise<T> {
    if (signal.aborted) return Promise.reject(new UpstreamError('cancelled', 'the call was cancelled before it started'));
    const e = this.entry(source);
    let probe = false;
    const breaker = this.breakerOf(e);
    if (breaker === 'open') {
      this.forget(source, e);
      const left = Math.max(1, Math.ceil((e.openedAt! + this.limits.breakerOpenMs - this.clock()) / 1000));
      return Promise.reject(new UpstreamError('circuit-open', `source ${source} is failing (${e.consecutiveFailures} failures in a row); calls are refused for ${left} s`, { retryAfterSeconds: left }));
    }
    if (breaker === 'half-open') {
      if (e.probing) {
        this.forget(source, e);
        return Promise.reject(new UpstreamError('circuit-open', `source ${source} is failing; one trial call is under way`, { retryAfterSeconds: 1 }));
      }
      e.probing = true;
      probe = true;
    }
    // Fair shares (red-team pass on issue 14): past half the source's slots a party (tenant) runs only while no other
    // party waits and never into the last quarter (mayStart); it holds at most half the queue; a freed slot goes first
    // to a party under its share. So valid but slow calls of one tenant cannot shut others out of a shared source.
    if (e.active < this.limits.maxConcurrentPerSource && this.mayStart(e, party)) return this.execute(source, e, probe, fn, party);
    if (e.queue.length >= this.limits.maxQueuedPerSource || (party !== undefined && e.queue.filter((w) => w.party === party).length >= this.partyQueue())) {
      if (probe) e.probing = false;
      const retryAfterSeconds = this.retryAfter(e);
      this.forget(source, e);
      return Promise.reject(new UpstreamError('overloaded', `source ${source} has ${e.active} calls running and ${e.queue.length} waiting; try again later`, { retryAfterSeconds }));
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => waiter.cancel();
      const waiter: Waiter = {
        party,
        start: () => {
          signal.removeEventListener('abort', onAbort);
          this.execute(source, e, probe, fn, party).then(resolve, reject);
        },
        cancel: () => {
          const i = e.queue.indexOf(waiter);
          if (i === -1) return;
          e.queue.splice(i, 1);
          signal.removeEventListener('abort', onAbort);
          if (probe) e.probing = false;
          this.forget(source, e);
          reject(new UpstreamError('cancelled', 'the call was cancelled while it waited for the source'));
        },
      };
      e.queue.push(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Admin view of one source. */
  state(source: string): SourceGateState {
    const e = this.entries.get(source);
    if (!e) return { active: 0, queued: 0, breaker: 'closed', consecutiveFailures: 0 };
    return { active: e.active, queued: e.queue.length, breaker: this.breakerOf(e), consecutiveFailures: e.consecutiveFailures };
  }

  /** Sources with an entry (tests: memory stays bounded). */
  get size(): number {
    return this.entries.size;
  }

  private async execute<T>(source: string, e: Entry, probe: boolean, fn: () => Promise<T>, party: string | undefined): Promise<T> {
    e.active++;
    if (party !== undefined) e.activeBy.set(party, this.activeOf(e, party) + 1);
    const started = this.clock();
    let outcome: Outcome = 'neutral';
    try {
      const v = await fn();
      outcome = 'success';
      return v;
    } catch (err) {
      outcome = err instanceof UpstreamError && BREAKER_KINDS.has(err.kind) ? 'failure' : 'neutral';
      throw err;
    } finally {
      e.active--;
      if (party !== undefined) {
        const left = this.activeOf(e, party) - 1;
        if (left > 0) e.activeBy.set(party, left);
        else e.activeBy.delete(party);
      }
      if (outcome !== 'neutral') e.avgMs = e.avgMs === 0 ? this.clock() - started : 0.8 * e.avgMs + 0.2 * (this.clock() - started);
      this.settle(e, outcome, probe);
      this.next(e);
      this.forget(source, e);
    }
  }

  private settle(e: Entry, outcome: Outcome, probe: boolean): void {
    if (probe) e.probing = false;
    if (outcome === 'success') {
      e.consecutiveFailures = 0;
      e.openedAt = null;
    } else if (outcome === 'failure') {
      e.consecutiveFailures++;
      // At the threshold the breaker opens; a failed probe (or any later failure) opens it again from now.
      if (e.consecutiveFailures >= this.limits.breakerFailureThreshold) e.openedAt = this.clock();
    }
  }

  /** Starts waiting calls in order, a party under its share first; work-conserving: a free slot never stays idle. */
  private next(e: Entry): void {
    while (e.active < this.limits.maxConcurrentPerSource && e.queue.length) {
      const under = e.queue.findIndex((w) => this.activeOf(e, w.party) < this.partySlots(w.party));
      const i = under !== -1 ? under : e.queue.findIndex((w) => this.mayStart(e, w.party));
      if (i === -1) return; // the slots left are the reserve for another party
      e.queue.splice(i, 1)[0].start();
    }
  }

  /**
   * Under its share a party always may start; past it only while no other party waits, and never into the last
   * quarter of the slots (at least one), which stays free for a party that comes later.
   */
  private mayStart(e: Entry, party: string | undefined): boolean {
    const mine = this.activeOf(e, party);
    if (mine < this.partySlots(party)) return true;
    const reserve = Math.max(1, Math.floor(this.limits.maxConcurrentPerSource / 4));
    return !this.othersWait(e, party) && mine < this.limits.maxConcurrentPerSource - reserve;
  }

  private othersWait(e: Entry, party: string | undefined): boolean {
    return e.queue.some((w) => w.party !== party);
  }

  private activeOf(e: Entry, party: string | undefined): number {
    return party === undefined ? 0 : (e.activeBy.get(party) ?? 0);
  }

  /** A party's share of the running slots and of the queue: half, and at least one (no share without a party). */
  private partySlots(party: string | undefined): number {
    return party === undefined ? this.limits.maxConcurrentPerSource : Math.max(1, Math.ceil(this.limits.maxConcurrentPerSource / 2));
  }

  private partyQueue(): number {
    return this.limits.maxQueuedPerSource === 0 ? 0 : Math.max(1, Math.ceil(this.limits.maxQueuedPerSource / 2));
  }

  private breakerOf(e: Entry): BreakerState {
    if (e.openedAt === null) return 'closed';
    return this.clock() - e.openedAt < this.limits.breakerOpenMs ? 'open' : 'half-open';
  }

  /** Seconds a refused caller should wait: about the time the calls ahead of it take. */
  private retryAfter(e: Entry): number {
    const ahead = e.active + e.queue.length;
    const ms = (e.avgMs * ahead) / this.limits.maxConcurrentPerSource;
    return Math.min(60, Math.max(1, Math.ceil(ms / 1000)));
  }

  private entry(source: string): Entry {
    let e = this.entries.get(source);
    if (!e) {
      e = { active: 0, queue: [], consecutiveFailures: 0, openedAt: null, probing: false, avgMs: 0, activeBy: new Map() };
      this.entries.set(source, e);
    }
    return e;
  }

  /** An entry that says nothing (idle, no failures counted) is removed. */
  private forget(source: string, e: Entry): void {
    if (e.active === 0 && e.queue.length === 0 && e.consecutiveFailures === 0 && !e.probing && this.entries.get(source) === e) this.entries.delete(source);
  }
}
