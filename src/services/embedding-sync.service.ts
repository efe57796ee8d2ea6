import type { EmbeddingSettings } from '../config/search-settings';
import type { ToolEmbeddingStore } from '../persistence/tool-embedding.store';
import { EmbeddingClient, EmbeddingStage, type EmbeddingInput, type HybridResult } from '../search/embeddings';
import type { SearchDocument } from '../search/fields';
import type { SearchIndex, VisibleSetRef } from '../search/index';
import type { ParsedQuery } from '../search/query';
import type { Logger } from '../shared/logger';

/**
 * The optional embedding stage of tool search (issue 18) in the product: vectors kept with the tools
 * (`tool_embedding`), computed off the request path, and fused with the lexical ranking at query time.
 *
 * - Maintenance. SearchIndexSync hands every tool text it (re)indexes to `offer` and every removed id to `forget`.
 *   An offered tool whose embedding text hashes as the vector held does nothing (a classification, a re-sync of an
 *   unchanged tool). The others wait in `pending` (the latest text per tool) for a background pass, which first
 *   reads the stored rows of the pending tools (a restart, or another replica that embedded them already: no
 *   request), then embeds the rest in batches (TOOLCAT_EMBEDDINGS_BATCH_SIZE, at most _CONCURRENCY requests in
 *   flight, each bounded by _TIMEOUT_MS) and writes them. One pass at a time; a failed pass keeps its tools pending
 *   and is retried after TOOLCAT_EMBEDDINGS_RETRY_AFTER_MS. Search never waits for a pass: a tool without a vector
 *   yet is ranked lexically only.
 * - Query. `rank` embeds the query text (LRU cache by text; bounded by _QUERY_TIMEOUT_MS), ranks by cosine the
 *   caller's visible tools only, and fuses by RRF. Any endpoint failure serves the lexical ranking (no error to the
 *   caller), counted in `toolcat_search_embedding_queries_total{outcome="lexical_fallback"}` and logged once per
 *   outage; after a failure the endpoint rests for _RETRY_AFTER_MS, during which queries are lexical at once.
 * - The API key lives in the client's private field; no message here carries the settings.
 */
export interface EmbeddingSyncStats {
  readonly vectors: number;
  readonly vectorBytes: number;
  readonly pending: number;
  /** Tools embedded through the endpoint, and tools whose stored vector was reused, since start. */
  readonly embedded: number;
  readonly reused: number;
  readonly passFailures: number;
  /** Queries answered fused, and lexically because the endpoint failed or rests. */
  readonly fusedQueries: number;
  readonly lexicalFallbacks: number;
}

/** Tools looked up in `tool_embedding` and embedded per step of a pass (a few batches: a step's memory is bounded). */
const STEP = 512;

export class EmbeddingSync {
  readonly stage: EmbeddingStage;
  private readonly pending = new Map<string, EmbeddingInput>();
  /** True at start: vectors of tools removed while no process ran are pruned by the first pass. */
  private removals = true;
  private running: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly abort = new AbortController();
  private retryAt = 0;
  private outage = false;
  private counts = { embedded: 0, reused: 0, passFailures: 0, fusedQueries: 0, lexicalFallbacks: 0 };

  constructor(
    private readonly store: ToolEmbeddingStore,
    private readonly settings: EmbeddingSettings,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    const client = new EmbeddingClient({
      baseUrl: settings.baseUrl, model: settings.model, apiKey: settings.apiKey?.reveal(), timeoutMs: settings.timeoutMs, batchSize: settings.batchSize,
    });
    this.stage = new EmbeddingStage(client, {
      maxInputChars: settings.maxInputChars, queryTimeoutMs: settings.queryTimeoutMs, retryAfterMs: settings.retryAfterMs, concurrency: settings.concurrency, now,
    });
  }

  /** Tools (re)indexed by the lexical maintenance: those whose embedding text changed wait for the next pass. */
  offer(docs: readonly SearchDocument[]): void {
    for (const d of docs) {
      const input = this.stage.inputOf(d);
      if (this.stage.holds(input)) this.pending.delete(d.toolId);
      else this.pending.set(d.toolId, input);
    }
    if (this.pending.size) this.schedule(0);
  }

  /** Tools gone from the catalog: their vectors leave memory now and the table on the next pass. */
  forget(ids: readonly string[]): void {
    for (const id of ids) {
      this.stage.remove(id);
      this.pending.delete(id);
    }
    if (ids.length) {
      this.removals = true;
      this.schedule(0);
    }
  }

  /** Lexical and vector rankings of the visible set fused; the lexical one alone when the endpoint fails. */
  async rank(index: SearchIndex, visible: VisibleSetRef, parsed: ParsedQuery, text: string, k: number): Promise<HybridResult> {
    const r = await this.stage.rankParsed(index, visible, parsed, text, k);
    if (r.fused) {
      this.counts.fusedQueries++;
      if (this.outage) this.log.info('search: the embeddings endpoint answers again; results are fused again');
      this.outage = false;
    } else {
      this.counts.lexicalFallbacks++;
      if (!this.outage) this.log.warn({ reason: r.error }, 'search: the embeddings endpoint failed; serving the lexical ranking until it answers');
      this.outage = true;
    }
    return r;
  }

  stats(): EmbeddingSyncStats {
    const s = this.stage.stats();
    return { vectors: s.vectors, vectorBytes: s.bytes, pending: this.pending.size, ...this.counts };
  }

  /** Resolves when no pass runs and nothing is pending, or a pass failed (tests, bench). */
  async settled(): Promise<void> {
    for (;;) {
      if (this.running) {
        await this.running;
        continue;
      }
      if (!this.timer || this.stopped || this.retryAt > this.now()) return;
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Stops scheduling, aborts the requests in flight and waits for the pass to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (this.stopped || this.timer || this.running) return;
    const wait = Math.max(delayMs, this.retryAt - this.now(), 0);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.pass().finally(() => {
        this.running = null;
        if (this.pending.size || this.removals) this.schedule(0);
      });
    }, wait);
    this.timer.unref();
  }

  private async pass(): Promise<void> {
    const model = this.settings.model;
    try {
      if (this.removals) {
        this.removals = false;
        await this.store.pruneOrphans();
      }
      while (this.pending.size && !this.stopped) {
        const step = [...this.pending.values()].slice(0, STEP);
        const stored = new Map((await this.store.read(model, step.map((s) => s.toolId))).map((r) => [r.toolId, r]));
        const todo: EmbeddingInput[] = [];
        for (const input of step) {
          const row = stored.get(input.toolId);
          if (row && row.textHash === input.hash) {
            this.settle(input, row.vector);
            this.counts.reused++;
          } else todo.push(input);
        }
        if (!todo.length) continue;
        const vectors = await this.stage.embedInputs(todo, this.abort.signal);
        if (this.stopped) return;
        await this.store.write(model, todo.map((t, i) => ({ toolId: t.toolId, textHash: t.hash, vector: vectors[i] })));
        todo.forEach((t, i) => this.settle(t, vectors[i]));
        this.counts.embedded += todo.length;
        await new Promise((r) => setImmediate(r));
      }
      this.retryAt = 0;
    } catch (err) {
      if (this.stopped) return;
      this.counts.passFailures++;
      this.retryAt = this.now() + Math.max(this.settings.retryAfterMs, 100);
      // The error's message only (EmbeddingError messages carry no URL credentials, header or key; a database error names the statement).
      this.log.warn({ reason: (err as Error).message, pending: this.pending.size }, 'search: tool vectors could not be computed or stored; retried later (search stays lexical for these tools)');
    }
  }

  /** A vector for this input is stored: held in memory, and no longer pending unless the tool's text changed meanwhile. */
  private settle(input: EmbeddingInput, vector: Float32Array): void {
    this.stage.put(input.toolId, input.hash, vector);
    if (this.pending.get(input.toolId)?.hash === input.hash) this.pending.delete(input.toolId);
  }
}
