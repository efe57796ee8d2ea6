import { createHash } from 'node:crypto';
import { type SearchDocument, fieldTexts } from './fields';
import type { SearchIndex, SearchResult, VisibleSetRef } from './index';
import { LRUCache } from 'lru-cache';
import { type ParsedQuery, parseQuery } from './query';
import { type ScoredTool, TopK, better } from './topk';

/**
 * The optional embedding stage (issue 18): an operator-configured OpenAI-compatible embeddings endpoint (nothing is
 * downloaded, no model runs in process), one vector per tool keyed by the hash of the text it was computed from
 * (recomputed only when that text changes), cosine similarity over the caller's visible tools only, and reciprocal
 * rank fusion with the lexical ranking.
 *
 * Why RRF (Cormack, Clarke, Büttcher, SIGIR 2009) and not a weighted score sum: BM25 scores are unbounded and grow
 * with query length (a 40-term task scores 10x a 4-term one), cosines live in [-1, 1] and their spread depends on
 * the model; a weighted sum needs a per-model, per-corpus normalisation fitted on labelled queries, which 94 queries
 * cannot fit without overfitting. RRF uses ranks only, has one constant (60, from the paper, not tuned here), and
 * is what hybrid search in Elasticsearch, OpenSearch and Vespa defaults to.
 */
export interface EmbeddingConfig {
  /** Base URL of the API, e.g. `http://127.0.0.1:8080/v1`; requests go to `${baseUrl}/embeddings`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as a Bearer token; kept in a private field of the client, never in a message. */
  readonly apiKey?: string;
  /** Per request unless the call names its own. Default 5,000 ms. */
  readonly timeoutMs?: number;
  /** Inputs per request. Default 64 (OpenAI accepts 2,048; local servers often far fewer). */
  readonly batchSize?: number;
}

export class EmbeddingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

/** Bounds on what the endpoint may answer (a hostile or broken endpoint must not exhaust memory). */
const MAX_RESPONSE_BYTES = 64 * 1024 ** 2;
const MAX_DIMENSIONS = 8192;

export class EmbeddingClient {
  requests = 0;
  readonly model: string;
  private readonly url: string;
  private readonly timeoutMs: number;
  readonly batchSize: number;
  /** Private (not enumerable, not printed by inspect or JSON): the key is never part of what the client shows. */
  readonly #authorization: string | null;

  constructor(config: EmbeddingConfig) {
    if (!/^https?:\/\//.test(config.baseUrl)) throw new EmbeddingError('the embeddings base URL must be http(s)');
    this.url = `${config.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.model = config.model;
    this.timeoutMs = config.timeoutMs ?? 5000;
    this.batchSize = config.batchSize ?? 64;
    this.#authorization = config.apiKey ? `Bearer ${config.apiKey}` : null;
  }

  /** Unit vectors for `texts`, in order (batched, one batch at a time; one failed batch fails the call). */
  async embed(texts: readonly string[], timeoutMs = this.timeoutMs): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) out.push(...(await this.batch(texts.slice(i, i + this.batchSize), timeoutMs)));
    return out;
  }

  /** One request: at most `batchSize` inputs. `stop` aborts it early (shutdown). */
  async batch(input: readonly string[], timeoutMs = this.timeoutMs, stop?: AbortSignal): Promise<Float32Array[]> {
    this.requests++;
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.#authorization ? { authorization: this.#authorization } : {}) },
        body: JSON.stringify({ model: this.model, input, encoding_format: 'float' }),
        signal: stop ? AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]) : AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      // The cause's code (ECONNREFUSED…), not its message: nothing the endpoint or the request carried ends up here.
      const code = (e as { cause?: { code?: unknown } }).cause?.code;
      throw new EmbeddingError(timeout ? `the embeddings endpoint did not answer within ${timeoutMs} ms` : `the embeddings endpoint is unreachable${typeof code === 'string' ? ` (${code})` : ''}`);
    }
    if (!res.ok) throw new EmbeddingError(`the embeddings endpoint answered HTTP ${res.status}`);
    let text: string;
    try {
      text = await res.text();
    } catch {
      throw new EmbeddingError(`the embeddings endpoint did not finish its answer within ${timeoutMs} ms`);
    }
    if (text.length > MAX_RESPONSE_BYTES) throw new EmbeddingError('the embeddings response is too large');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new EmbeddingError('the embeddings response is not JSON');
    }
    const data = (body as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== input.length) throw new EmbeddingError('the embeddings response does not have one vector per input');
    const out: Float32Array[] = new Array(input.length);
    let dims = -1;
    for (const [i, item] of data.entries()) {
      const emb = (item as { embedding?: unknown }).embedding;
      const index = (item as { index?: unknown }).index ?? i;
      if (!Array.isArray(emb) || typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= input.length || out[index]) {
        throw new EmbeddingError('the embeddings response has a malformed item');
      }
      if (emb.length === 0 || emb.length > MAX_DIMENSIONS || (dims >= 0 && emb.length !== dims)) throw new EmbeddingError('the embeddings response has vectors of inconsistent size');
      dims = emb.length;
      if (!emb.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new EmbeddingError('the embeddings response has a non-numeric vector');
      out[index] = normalise(Float32Array.from(emb as number[]));
    }
    return out;
  }
}

function normalise(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

/** What a tool's vector is computed from: name, title, description and parameter names (not parameter prose). */
function embeddingText(doc: SearchDocument, maxChars = 4000): string {
  const t = fieldTexts(doc);
  const parts = [t.name.replace(/[_\-.]+/g, ' '), t.title, t.description, t.params ? `parameters: ${t.params}` : ''];
  return parts.filter(Boolean).join('\n').slice(0, maxChars);
}

/** The vector's key: the model and the exact text (another model's vector is never compared with this one's). */
function textHash(model: string, text: string): string {
  return createHash('sha256').update(model).update('\u0000').update(text).digest('hex');
}

interface Stored {
  readonly hash: string;
  readonly vector: Float32Array;
}

/** Vectors per tool in memory, keyed by the hash of their input text (the query path reads these; the rows persist them). */
class VectorStore {
  private readonly vectors = new Map<string, Stored>();

  get size(): number {
    return this.vectors.size;
  }

  get(toolId: string): Stored | undefined {
    return this.vectors.get(toolId);
  }

  put(toolId: string, hash: string, vector: Float32Array): void {
    this.vectors.set(toolId, { hash, vector });
  }

  remove(toolId: string): boolean {
    return this.vectors.delete(toolId);
  }

  /** Bytes of the vectors (Float32) and their keys, roughly (stats). */
  bytes(): number {
    let b = 0;
    for (const [id, s] of this.vectors) b += s.vector.byteLength + 2 * id.length + 64 + 120;
    return b;
  }
}

/** Fusion constant of RRF (Cormack et al. 2009): the paper's 60, not tuned. */
export const RRF_K = 60;
/** How deep each ranking is read before fusion (ToolRet and toolrank score the top 100). */
const FUSION_DEPTH = 100;
const QUERY_CACHE_SIZE = 256;

export interface HybridResult extends SearchResult {
  /** false when the embedding endpoint failed (or is resting after a failure) and the lexical ranking was served alone. */
  readonly fused: boolean;
  readonly error?: string;
}

export interface EmbeddingStageOptions {
  /** Characters of a tool's text, or a query, sent. Default 4,000 (~1,000 tokens: the useful part of any description). */
  readonly maxInputChars?: number;
  /** Bound on embedding one query (the request path). Default: the client's timeout. */
  readonly queryTimeoutMs?: number;
  /** After a failed query embedding, how long queries skip the endpoint (answered lexically at once). Default 0. */
  readonly retryAfterMs?: number;
  /** Requests in flight at once when embedding tools (embedTexts). Default 1. */
  readonly concurrency?: number;
  /** Injected clock (ms) for the retry pause. */
  readonly now?: () => number;
}

/** A tool's text to embed and its key. */
export interface EmbeddingInput {
  readonly toolId: string;
  readonly hash: string;
  readonly text: string;
}

export class EmbeddingStage {
  readonly store = new VectorStore();
  private readonly queryCache = new LRUCache<string, Float32Array>({ max: QUERY_CACHE_SIZE });
  private readonly maxInputChars: number;
  private readonly queryTimeoutMs: number | undefined;
  private readonly retryAfterMs: number;
  private readonly concurrency: number;
  private readonly now: () => number;
  private restingUntil = -Infinity;

  constructor(
    readonly client: EmbeddingClient,
    opts: EmbeddingStageOptions = {},
  ) {
    this.maxInputChars = opts.maxInputChars ?? 4000;
    this.queryTimeoutMs = opts.queryTimeoutMs;
    this.retryAfterMs = opts.retryAfterMs ?? 0;
    this.concurrency = opts.concurrency ?? 1;
    this.now = opts.now ?? Date.now;
  }

  /** What would be embedded of this tool, and its key. */
  inputOf(doc: SearchDocument): EmbeddingInput {
    const text = embeddingText(doc, this.maxInputChars);
    return { toolId: doc.toolId, hash: textHash(this.client.model, text), text };
  }

  /** Whether the vector held for this tool was computed from this input. */
  holds(input: EmbeddingInput): boolean {
    return this.store.get(input.toolId)?.hash === input.hash;
  }

  put(toolId: string, hash: string, vector: Float32Array): void {
    this.store.put(toolId, hash, vector);
  }

  /**
   * Vectors of `inputs`, in order: batches of the client's size, at most `concurrency` requests in flight. Any failed
   * batch fails the call (the caller keeps the inputs pending and retries later).
   */
  async embedInputs(inputs: readonly EmbeddingInput[], stop?: AbortSignal): Promise<Float32Array[]> {
    const size = this.client.batchSize;
    const batches: Array<readonly EmbeddingInput[]> = [];
    for (let i = 0; i < inputs.length; i += size) batches.push(inputs.slice(i, i + size));
    const out: Float32Array[][] = new Array(batches.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length) {
        const i = next++;
        out[i] = await this.client.batch(batches[i].map((b) => b.text), undefined, stop);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, worker));
    return out.flat();
  }

  /**
   * Brings the vectors of `docs` up to date in memory: only tools whose embedding text changed (or that have none) are
   * sent. Returns how many were embedded. (The product's maintenance, with persistence, is EmbeddingSync.)
   */
  async sync(docs: readonly SearchDocument[]): Promise<number> {
    const todo = docs.map((d) => this.inputOf(d)).filter((t) => !this.holds(t));
    if (!todo.length) return 0;
    const vectors = await this.embedInputs(todo);
    todo.forEach((t, i) => this.store.put(t.toolId, t.hash, vectors[i]));
    return todo.length;
  }

  remove(toolId: string): void {
    this.store.remove(toolId);
  }

  /** Vectors held and their bytes (stats). */
  stats(): { vectors: number; bytes: number } {
    return { vectors: this.store.size, bytes: this.store.bytes() };
  }

  /**
   * Cosine ranking of the visible tools that have a vector (a visible tool without one is simply not ranked here).
   * Only the caller's visible ids are read: another tenant's vectors never enter.
   */
  vectorRank(visible: VisibleSetRef, queryVector: Float32Array, k: number): ScoredTool[] {
    const top = new TopK(k);
    const ids = visible.ids;
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j];
      const s = this.store.get(id);
      if (!s || s.vector.length !== queryVector.length) continue;
      let dot = 0;
      const v = s.vector;
      for (let i = 0; i < v.length; i++) dot += v[i] * queryVector[i];
      if (top.admits(dot, id)) top.offer({ toolId: id, score: dot });
    }
    return top.sorted();
  }

  /** The query's vector: cached by text (LRU), bounded by the query timeout; throws EmbeddingError. */
  async queryVector(text: string): Promise<Float32Array> {
    const input = text.slice(0, this.maxInputChars);
    const hit = this.queryCache.get(input);
    if (hit) return hit;
    if (this.now() < this.restingUntil) throw new EmbeddingError('the embeddings endpoint failed recently; lexical ranking until it is retried');
    let v: Float32Array;
    try {
      [v] = await this.client.embed([input], this.queryTimeoutMs);
    } catch (e) {
      if (e instanceof EmbeddingError && this.retryAfterMs > 0) this.restingUntil = this.now() + this.retryAfterMs;
      throw e;
    }
    this.queryCache.set(input, v);
    return v;
  }

  /**
   * Lexical and vector rankings of the visible tools, fused by RRF. If the endpoint fails, the lexical ranking is
   * served (and `fused` is false): the optional stage never takes search down with it.
   */
  async rank(index: SearchIndex, visible: VisibleSetRef, query: string, k: number): Promise<HybridResult> {
    return this.rankParsed(index, visible, parseQuery(query, index.params.tokenize), query, k); // the same validation and errors as lexical search
  }

  /** `rank` for an already parsed (and checked) query; `text` is what the query vector is computed from. */
  async rankParsed(index: SearchIndex, visible: VisibleSetRef, parsed: ParsedQuery, text: string, k: number): Promise<HybridResult> {
    const lexical = index.rank(visible, parsed, Math.max(k, FUSION_DEPTH));
    let vector: ScoredTool[];
    try {
      vector = this.vectorRank(visible, await this.queryVector(text), Math.max(k, FUSION_DEPTH));
    } catch (e) {
      if (!(e instanceof EmbeddingError)) throw e;
      return { ...lexical, hits: lexical.hits.slice(0, k), fused: false, error: e.message };
    }
    return { ...lexical, hits: rrf([lexical.hits, vector], k), fused: true };
  }
}

/** Reciprocal rank fusion of rankings (each best first): sum of 1 / (RRF_K + rank); ties by toolId. */
export function rrf(rankings: ReadonlyArray<readonly ScoredTool[]>, k: number): ScoredTool[] {
  const fused = new Map<string, number>();
  for (const ranking of rankings) ranking.forEach((h, i) => fused.set(h.toolId, (fused.get(h.toolId) ?? 0) + 1 / (RRF_K + i + 1)));
  return [...fused].map(([toolId, score]) => ({ toolId, score })).sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0)).slice(0, k);
}
