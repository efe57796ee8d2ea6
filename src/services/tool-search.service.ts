import type { CachedDocument, CatalogCache } from '../cache/catalog-cache';
import type { CatalogGeneration } from '../cache/catalog-generation';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { Principal } from '../catalog/principal';
import { type View, resolveProfile, resolveView, servedView } from '../catalog/projection';
import { type ParsedQuery, SearchQueryError, parseQuery } from '../search/query';
import type { SearchIndexSync } from './search-index-sync.service';
import type { AnyDescriptor, CatalogDocument } from './catalog-read.service';

/** Results per search when the caller names no limit. */
export const DEFAULT_SEARCH_LIMIT = 10;
/** Most results per search: at or under the tool count model providers accept in one request (128 for one). */
export const MAX_SEARCH_LIMIT = 100;

/** Search before the first full index load has finished (a large catalog at start): 503, retry shortly. */
export class SearchUnavailableError extends Error {
  constructor() {
    super('The tool search index is still loading; retry shortly.');
    this.name = 'SearchUnavailableError';
  }
}

/** One ranked tool: its descriptor in the applied view and its BM25F score (comparable within one answer only). */
interface ToolSearchHit {
  readonly descriptor: AnyDescriptor;
  readonly score: number;
}

export interface ToolSearchResult {
  readonly appliedView: View;
  /** Best first; equal scores by toolId (code-unit order). */
  readonly hits: readonly ToolSearchHit[];
  /** Visible tools that match at least one query term (may exceed hits.length). */
  readonly matched: number;
  /** Whether the query had more distinct terms than are scored (the first ones count). */
  readonly truncated: boolean;
}

export interface SearchAnswer extends CatalogDocument {
  readonly scores: readonly number[];
  readonly matched: number;
  readonly truncated: boolean;
}

/** Anything but whitespace, control and format characters (a query of only those is empty, like a blank one). */
const HAS_TEXT = /[^\s\p{Cc}\p{Cf}]/u;

/**
 * Tool search over the caller's visible tools (issue 18). Visibility comes first and is the catalog's own: the
 * visible set is CatalogCache's, resolved by the same scoped query as GET /tools, and the index ranks only that set
 * (every score statistic is the set's, src/search/index.ts), so another tenant's tools change neither a caller's
 * order, nor its scores, nor `matched`. The answer's bytes are the list's descriptor bytes in relevance order.
 */
export class ToolSearchService {
  constructor(
    private readonly cache: CatalogCache,
    private readonly generation: CatalogGeneration,
    private readonly indexSync: SearchIndexSync,
    private readonly opts: { readonly compactView: boolean },
  ) {}

  /**
   * The caller's `limit` best tools for a task text, as descriptors with scores: the one entry point of other faces
   * (the MCP face's find_tools). Throws CatalogError BAD_USER_INPUT (details.reason: query_empty, query_too_long,
   * query_not_text, limit_out_of_range) and SearchUnavailableError.
   */
  async searchVisible(p: Principal, query: unknown, limit?: unknown, view?: unknown, profile?: unknown): Promise<ToolSearchResult> {
    const doc = await this.searchDocument(p, query, limit, view, profile);
    const parsed = JSON.parse(doc.body.toString()) as AnyDescriptor[] | { tools: AnyDescriptor[] };
    const descriptors = Array.isArray(parsed) ? parsed : parsed.tools;
    return { appliedView: doc.appliedView, hits: descriptors.map((descriptor, i) => ({ descriptor, score: doc.scores[i] })), matched: doc.matched, truncated: doc.truncated };
  }

  /** The exact body of GET /tools?q= (the list's shape in the applied view, relevance order) with its ETag. */
  async searchDocument(p: Principal, query: unknown, limit: unknown, view: unknown, profile?: unknown): Promise<SearchAnswer> {
    const k = checkLimit(limit);
    const q = checkQuery(query, this.indexSync.index.params.tokenize);
    const appliedView = resolveView(view, this.opts.compactView);
    // Issue 16: the compact view's provider profiles apply to search results as to the list.
    const appliedProfile = resolveProfile(appliedView, profile);
    if (!this.indexSync.ready) throw new SearchUnavailableError();
    for (let attempt = 0; ; attempt++) {
      await this.indexSync.catchUp();
      const set = await this.cache.visibleSetOf(p);
      const visible = { key: set.key, ids: set.ids };
      // The optional embedding stage fuses a cosine ranking of the same visible set (lexical alone if it fails).
      const embeddings = this.indexSync.embeddings;
      const result = embeddings ? await embeddings.rank(this.indexSync.index, visible, q, query as string, k) : this.indexSync.index.rank(visible, q, k);
      // The ETag's seed: what the bytes depend on besides the descriptors (equivalent spellings share the terms).
      const seed = JSON.stringify([q.terms, q.weights, k, 'fused' in result && result.fused]);
      const doc: CachedDocument | null = await this.cache.orderedDocument(set, servedView(appliedView, appliedProfile), result.hits.map((h) => h.toolId), seed);
      if (doc) return { appliedView, appliedProfile, ...doc, scores: result.hits.map((h) => h.score), matched: result.matched, truncated: q.truncated };
      // The catalog changed between the visible set and the bytes: start over on fresh data (as CatalogCache.list).
      if (attempt >= 3) throw new Error('the catalog kept changing while a search was answered');
      this.generation.advance();
    }
  }
}

function checkLimit(limit: unknown): number {
  if (limit === undefined || limit === null) return DEFAULT_SEARCH_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new CatalogError(CatalogErrorCode.InvalidArgument, `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}`, { level: 'info', details: { reason: 'limit_out_of_range' } });
  }
  return limit;
}

function checkQuery(query: unknown, opts: Parameters<typeof parseQuery>[1]): ParsedQuery {
  try {
    const q = parseQuery(query, opts);
    if (!HAS_TEXT.test(query as string)) throw new SearchQueryError('query_empty', 'the search query is empty');
    return q;
  } catch (err) {
    if (err instanceof SearchQueryError) throw new CatalogError(CatalogErrorCode.InvalidArgument, err.message, { level: 'info', details: { reason: err.code } });
    throw err;
  }
}
