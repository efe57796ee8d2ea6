import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { ExaminedTool } from './snapshot';
import { type GateTask, gateChunk } from './ingest-gate.worker';

/**
 * The bounded pool that runs the ingest gate off the event loop (issue 12 defect 1: ~5-10 ms of CPU per heavy tool,
 * ~2.7 ms since the credential scan finds its keywords in one pass, on the main thread froze every request for the
 * length of a big sync). Sized for the host:
 *   threads        default: the cores (2 on a 2-core host), at most 4. On 2 cores two threads gate a big listing
 *                  about twice as fast as one; the main thread still wins the CPU because of
 *   niceIncrement  default 10 (Linux, @napi-rs/nice): the gate threads run at a lower priority, so request handling
 *                  preempts them whenever it has work, and gating takes whatever CPU is left.
 *   queue          default 2 chunks per thread (one running, one waiting), over all syncs together: what is in
 *                  flight (each chunk ~256 KB of listing text and its results) is bounded by this window, not by
 *                  the listing, and short-lived enough to die young in V8's new space (measured: a window of 4
 *                  chunks per thread kept ~60 MB more garbage alive into the old generation at 5,000 heavy tools).
 * Threads start on first use and end after idleTimeoutMs idle, so a process that never syncs never starts one.
 * The option values come from the composition root (app.ts); a config entry can set them (see the issue 12 note).
 */
export interface IngestPoolOptions {
  readonly threads: number;
  readonly queuePerThread: number;
  readonly niceIncrement: number;
  readonly idleTimeoutMs: number;
  /** Listings smaller than this (bytes of JSON) are examined inline: a thread round trip would cost more. */
  readonly inlineBytes: number;
}

const DEFAULT_INGEST_POOL: IngestPoolOptions = Object.freeze({
  threads: Math.max(1, Math.min(4, availableParallelism())),
  queuePerThread: 2,
  niceIncrement: process.platform === 'linux' ? 10 : 0,
  idleTimeoutMs: 5_000,
  inlineBytes: 64 * 1024,
});

export class IngestPool {
  private pool: Piscina<GateTask, ExaminedTool[]> | null = null;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  readonly options: IngestPoolOptions;

  constructor(options: Partial<IngestPoolOptions> = {}) {
    this.options = { ...DEFAULT_INGEST_POOL, ...options };
  }

  /** How many chunks may be in flight at once, over all syncs together (the queue bound). */
  get window(): number {
    return Math.max(1, this.options.threads * this.options.queuePerThread);
  }

  /**
   * Admits one chunk: resolves once a slot of the window is free, then builds the task (so its listing text is made
   * only when it can be worked on) and resolves to a handle on the running examination (`done`). Every concurrent sync goes through the
   * same window, so 42 sources syncing at start hold no more chunks in memory than one does.
   */
  async submit(build: () => GateTask): Promise<{ readonly done: Promise<ExaminedTool[]> }> {
    if (this.options.threads <= 0) return { done: Promise.resolve(gateChunk(build())) };
    while (this.inFlight >= this.window) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    this.pool ??= new Piscina<GateTask, ExaminedTool[]>({
      filename: join(__dirname, 'ingest-gate.worker.js'),
      name: 'gateChunk',
      minThreads: 0,
      maxThreads: this.options.threads,
      idleTimeout: this.options.idleTimeoutMs,
      niceIncrement: this.options.niceIncrement,
      // A hostile listing is bounded by the transport's message limit; this bounds what one worker may hold for it.
      // The young generation is kept small (issue 12): a chunk's garbage dies young, and V8's default let each thread
      // keep tens of MB of it between scavenges (measured: peak RSS of the 5,000-tool sync ~505-520 → ~450-485 MB).
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 8 },
    });
    let task: GateTask;
    try {
      task = build();
    } catch (err) {
      this.release();
      throw err;
    }
    return { done: this.pool.run(task).finally(() => this.release()) };
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  /** Inline examination for small listings (same pure function as the workers). */
  examineInline(task: GateTask): ExaminedTool[] {
    return gateChunk(task);
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    await p?.destroy();
  }
}
