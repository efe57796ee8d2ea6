import { createHash } from 'node:crypto';
import { type SearchDocument, fieldTexts } from './fields';
import type { SearchIndex, SearchResult, VisibleSetRef } from './index';
import { parseQuery } from './query';
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
  readonly apiKey?: string;
  /** Per request; an embedding call never holds a search longer than this. Default 5,000 ms. */
  readonly timeoutMs?: number;
  /** Inputs per request. Default 64 (OpenAI accepts 2,048; local servers often far fewer). */
  readonly batchSize?: number;
  /** Characters of tool text sent per tool. Default 4,000 (~1,000 tokens: the useful part of any description). */
  readonly maxInputChars?: number;
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
  private readonly timeoutMs: number;
  readonly batchSize: number;

  constructor(private readonly config: EmbeddingConfig) {
    if (!/^https?:\/\//.test(config.baseUrl)) throw new EmbeddingError('the embeddings base URL must be http(s)');
    this.timeoutMs = config.timeoutMs ?? 5000;
    this.batchSize = config.batchSize ?? 64;
  }

  /** Unit vectors for `texts`, in order (batched; one failed batch fails the call). */
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) out.push(...(await this.batch(texts.slice(i, i + this.batchSize))));
    return out;
  }

  private async batch(input: readonly string[]): Promise<Float32Array[]> {
    this.requests++;
    let res: Response;
    try {
      res = await fetch(`${this.config.baseUrl.replace(/\/+$/, '')}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}) },
        body: JSON.stringify({ model: this.config.model, input, encoding_format: 'float' }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const timeout = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError');
      throw new EmbeddingError(timeout ? `the embeddings endpoint did not answer within ${this.timeoutMs} ms` : `the embeddings endpoint is unreachable: ${(e as Error).message}`);
    }
    if (!res.ok) throw new EmbeddingError(`the embeddings endpoint answered HTTP ${res.status}`);
    const text = await res.text();
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

function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

interface Stored {
  readonly hash: string;
  readonly vector: Float32Array;
}

/**
 * Vectors per tool, keyed by the hash of their input text. In memory here; `entries()` and `put()` are the seam
 * for keeping them with the tool row (the lead's persistence wiring): a restart then re-embeds nothing.
 */
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

  entries(): IterableIterator<[string, Stored]> {
    return this.vectors.entries();
  }
}

/** Fusion constant of RRF (Cormack et al. 2009): the paper's 60, not tuned. */
export const RRF_K = 60;
/** How deep each ranking is read before fusion (ToolRet and toolrank score the top 100). */
const FUSION_DEPTH = 100;
const QUERY_CACHE_SIZE = 256;

export interface HybridResult extends SearchResult {
  /** false when the embedding endpoint failed and the lexical ranking was served alone. */
  readonly fused: boolean;
  readonly error?: string;
}

export class EmbeddingStage {
  readonly store = new VectorStore();
  private readonly queryCache = new Map<string, Float32Array>();

  constructor(
    readonly client: EmbeddingClient,
    private readonly maxInputChars = 4000,
  ) {}

  /**
   * Brings the vectors of `docs` up to date: only tools whose embedding text changed (or that have none) are sent.
   * Called after ingest / classification, off the request path. Returns how many were embedded.
   */
  async sync(docs: readonly SearchDocument[]): Promise<number> {
    const todo: Array<{ toolId: string; hash: string; text: string }> = [];
    for (const d of docs) {
      const text = embeddingText(d, this.maxInputChars);
      const hash = textHash(text);
      if (this.store.get(d.toolId)?.hash !== hash) todo.push({ toolId: d.toolId, hash, text });
    }
    if (!todo.length) return 0;
    const vectors = await this.client.embed(todo.map((t) => t.text));
    todo.forEach((t, i) => this.store.put(t.toolId, t.hash, vectors[i]));
    return todo.length;
  }

  remove(toolId: string): void {
    this.store.remove(toolId);
  }

  /** Cosine ranking of the visible tools that have a vector (a visible tool without one is simply not ranked here). */
  vectorRank(visible: VisibleSetRef, queryVector: Float32Array, k: number): ScoredTool[] {
    const top = new TopK(k);
    for (const id of new Set(visible.ids)) {
      const s = this.store.get(id);
      if (!s || s.vector.length !== queryVector.length) continue;
      let dot = 0;
      const v = s.vector;
      for (let i = 0; i < v.length; i++) dot += v[i] * queryVector[i];
      if (top.admits(dot, id)) top.offer({ toolId: id, score: dot });
    }
    return top.sorted();
  }

  async queryVector(text: string): Promise<Float32Array> {
    const hit = this.queryCache.get(text);
    if (hit) return hit;
    const [v] = await this.client.embed([text.slice(0, this.maxInputChars)]);
    if (this.queryCache.size >= QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
    this.queryCache.set(text, v);
    return v;
  }

  /**
   * Lexical and vector rankings of the visible tools, fused by RRF. If the endpoint fails, the lexical ranking is
   * served (and `fused` is false): the optional stage never takes search down with it.
   */
  async rank(index: SearchIndex, visible: VisibleSetRef, query: string, k: number): Promise<HybridResult> {
    const parsed = parseQuery(query, index.params.tokenize); // the same validation and errors as lexical search
    const lexical = index.rank(visible, parsed, Math.max(k, FUSION_DEPTH));
    let vector: ScoredTool[];
    try {
      vector = this.vectorRank(visible, await this.queryVector(query), Math.max(k, FUSION_DEPTH));
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
