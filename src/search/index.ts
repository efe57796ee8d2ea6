import { createHash } from 'node:crypto';
import { FIELDS, FIELD_COUNT, type SearchDocument, fieldTexts } from './fields';
import { Partition, type Posting, type Touched } from './partition';
import { type ParsedQuery, parseQuery } from './query';
import { DEFAULT_RANKING, type RankingParams, TF_BITS, checkParams, idf } from './ranking';

if (TF_BITS !== 4) throw new Error('rank() unpacks 4-bit term frequencies');
import { tokenize } from './text';
import { type ScoredTool, TopK } from './topk';

/**
 * The tool-search index (issue 18): maintained at ingest (upsert / remove when a tool's text changes), queried with a
 * caller's visible set, never rebuilt per request.
 *
 * Visibility comes before ranking. `rank` takes the caller's visible set (what CatalogCache resolved for the
 * caller: sorted toolIds, keyed by the visible-set hash) and every statistic of the score is computed over that set
 * only: the document count N, each term's document frequency (the visible entries of its postings, counted in the
 * same pass that scores them) and the average field lengths (summed over the visible slots when the view is built).
 * So tools the caller may not see change neither its scores, nor its order, nor its match count, and the index does
 * not even read them when they belong to another tenant (partition.ts).
 *
 * Why not minisearch (installed): its BM25 statistics (document count, term frequencies, average lengths) are global
 * to the index, and its `filter` runs after scoring, so another tenant's tools would change a caller's IDF and
 * order; per-visible-set minisearch instances would multiply memory by the number of distinct visible sets; and it
 * has field boosts but no per-field frequency cap. Nor is it better on quality: with the same tokens and boosts it
 * scores Recall@5 36.03 / nDCG@10 35.46 on the dev set against 37.43 / 37.22 here (bench/toolsearch.ts --variants).
 */
export interface VisibleSetRef {
  /** A stable key of the set's content (CatalogCache's visible-set hash), or null to build the view uncached. */
  readonly key: string | null;
  /** The caller's visible toolIds (any order; ids not in the index are ignored). */
  readonly ids: readonly string[];
}

export interface SearchResult {
  /** The best `k` visible tools with a positive score, best first; ties by toolId. */
  readonly hits: readonly ScoredTool[];
  /** Visible tools matching at least one query term (what a `total` on the wire would say). */
  readonly matched: number;
  /** Visible tools that are indexed (the N of the IDF). */
  readonly visible: number;
  readonly query: ParsedQuery;
}

interface Located {
  readonly partition: Partition;
  slot: number;
  readonly hash: string;
}

/** A visible set resolved against the partitions it touches: one bitset and the field-length sums per partition. */
interface PartView {
  readonly partition: Partition;
  readonly epoch: number;
  readonly bits: Uint32Array;
  readonly n: number;
  readonly lenSums: Float64Array;
  /**
   * Per visible slot and field: w_f / (1 - b_f + b_f * len / avgLen_f), the BM25F field factor of this view (the
   * averages are the visible set's, so it is per view, not per index). 28 bytes per visible tool; it turns the
   * scoring loop's divisions into multiplications.
   */
  normW: Float32Array;
}

interface View {
  readonly parts: readonly PartView[];
  readonly n: number;
  readonly avgLen: Float64Array;
  bytes: number;
  /**
   * Per term met by a query of this view: its visible document frequency and the largest BM25F pseudo-frequency of
   * its visible postings (computed once per view and term, on first use). Both are the visible set's, like every
   * other statistic: they depend on nothing a caller cannot see.
   */
  readonly terms: Map<string, TermStats>;
  /** Whether the view is in the cache (its term stats then count against the cache's bytes). */
  cached: boolean;
}

interface TermStats {
  readonly df: number;
  readonly maxTf: number;
}

/** Bytes of one cached TermStats (Map entry, object, key share). */
const TERM_STATS_BYTES = 96;
/**
 * Relative slack on a term's tight bound: w * maxTf / (maxTf + k1) rounded, against (w * tf) / (tf + k1) as
 * scoreTerm rounds it, may differ by an ulp; a bound 1e-9 high is still far tighter than w.
 */
const BOUND_SLACK = 1 + 1e-9;

/** kthBest costs one pass over the scored tools; a few tries per query bound that cost. */
const MAX_PRUNE_ATTEMPTS = 4;

/**
 * One term's postings in one partition, added to the accumulator (a small function of typed arrays, so the engine
 * optimises it on its own: inlined in rank() it ran 3x slower). tf is the BM25F pseudo-frequency sum_f capped_tf_f *
 * normW_f; the contribution weight * tf / (tf + k1) saturates once over all fields.
 */
function scoreTerm(
  data: Int32Array, n: number, bits: Uint32Array, normW: Float32Array, acc: Float64Array, list: Touched, weight: number, k1: number,
  state: { maxAcc: number; scored: number },
): void {
  let maxAcc = state.maxAcc;
  let scored = 0;
  for (let i = 0; i < n; i++) {
    const slot = data[2 * i];
    if ((bits[slot >>> 5] & (1 << (slot & 31))) === 0) continue;
    const prior = acc[slot];
    let packed = data[2 * i + 1];
    let tf = 0;
    for (let f = 0, base = slot * FIELDS_N; packed !== 0; f++, packed >>>= 4) {
      const c = packed & 15;
      if (c !== 0) tf += c * normW[base + f];
    }
    if (tf <= 0) continue; // a term only in zero-weight fields
    if (prior === 0) {
      list.push(slot);
      scored++;
    }
    const next = prior + (weight * tf) / (tf + k1);
    acc[slot] = next;
    if (next > maxAcc) maxAcc = next;
  }
  state.maxAcc = maxAcc;
  state.scored += scored;
}

/**
 * One term's postings once pruning began: a tool no earlier term scored (not in `cand`) can no longer reach the top
 * k, so it is only counted as matched (first time: `seen`); the candidates get the term's contribution exactly as
 * scoreTerm would give it. Both bitsets are 2 bits a slot (L1-resident at 100,000 tools): the accumulator, 64 bits a
 * slot, is read for candidates only. Long task texts at scale spend most postings here (common terms score last).
 */
function scorePrunedTerm(
  data: Int32Array, n: number, bits: Uint32Array, normW: Float32Array, acc: Float64Array, list: Touched, weight: number, k1: number,
  seen: Uint32Array, cand: Uint32Array, state: { maxAcc: number },
): void {
  let maxAcc = state.maxAcc;
  for (let i = 0; i < n; i++) {
    const slot = data[2 * i];
    const w = slot >>> 5;
    const m = 1 << (slot & 31);
    if ((bits[w] & m) === 0) continue;
    if ((seen[w] & m) === 0) {
      seen[w] |= m;
      list.push(slot);
      continue;
    }
    if ((cand[w] & m) === 0) continue;
    let packed = data[2 * i + 1];
    let tf = 0;
    for (let f = 0, base = slot * FIELDS_N; packed !== 0; f++, packed >>>= 4) {
      const c = packed & 15;
      if (c !== 0) tf += c * normW[base + f];
    }
    if (tf <= 0) continue;
    const next = acc[slot] + (weight * tf) / (tf + k1);
    acc[slot] = next;
    if (next > maxAcc) maxAcc = next;
  }
  state.maxAcc = maxAcc;
}

/** Pruning begins: every tool scored so far is a candidate (and seen); the rest of the slots are neither. */
function markCandidates(list: Touched, seen: Uint32Array, cand: Uint32Array, cands: Touched): void {
  for (let i = 0; i < list.n; i++) {
    const slot = list.slots[i];
    const m = 1 << (slot & 31);
    seen[slot >>> 5] |= m;
    cand[slot >>> 5] |= m;
    cands.push(slot);
  }
}

/**
 * Drops the candidates whose score so far is under `floor` (the k-th best score minus the bounds of the terms
 * left): they cannot reach the top k, so later terms need not add to them (they stay seen, so `matched` is exact,
 * and their partial scores stay under the final k-th best, so collect() cannot rank them). Each pruned term thus
 * reads the accumulator for fewer tools: the candidates shrink from tens of thousands to about k on long queries.
 */
function dropHopeless(cands: Touched, acc: Float64Array, cand: Uint32Array, floor: number): void {
  let w = 0;
  for (let i = 0; i < cands.n; i++) {
    const slot = cands.slots[i];
    if (acc[slot] < floor) {
      cand[slot >>> 5] &= ~(1 << (slot & 31));
      continue;
    }
    cands.slots[w++] = slot;
  }
  cands.n = w;
}

/** Relative slack on the candidate floor: a float rounding of the bound sums can never drop a true top-k tool. */
const FLOOR_SLACK = 1e-9;

const FIELDS_N = FIELD_COUNT;

/** Offers one partition's scored tools to the top k and resets its accumulator; returns how many were touched. */
function collect(list: Touched, acc: Float64Array, ids: readonly string[], top: TopK): number {
  let floor = top.floor();
  for (let i = 0; i < list.n; i++) {
    const slot = list.slots[i];
    const score = acc[slot];
    acc[slot] = 0;
    if (score <= 0 || score < floor) continue;
    if (top.admits(score, ids[slot])) {
      top.offer({ toolId: ids[slot], score });
      floor = top.floor();
    }
  }
  return list.n;
}

function isParsed(q: unknown): q is ParsedQuery {
  return typeof q === 'object' && q !== null && Array.isArray((q as ParsedQuery).terms) && Array.isArray((q as ParsedQuery).weights);
}

/** A term's visible document frequency and largest pseudo-frequency in one partition, added to `out`. */
function termStatsOf(data: Int32Array, n: number, bits: Uint32Array, normW: Float32Array, out: { df: number; maxTf: number }): void {
  let df = 0;
  let maxTf = out.maxTf;
  for (let i = 0; i < n; i++) {
    const slot = data[2 * i];
    if ((bits[slot >>> 5] & (1 << (slot & 31))) === 0) continue;
    df++;
    let packed = data[2 * i + 1];
    let tf = 0;
    for (let f = 0, base = slot * FIELDS_N; packed !== 0; f++, packed >>>= 4) {
      const c = packed & 15;
      if (c !== 0) tf += c * normW[base + f];
    }
    if (tf > maxTf) maxTf = tf;
  }
  out.df += df;
  out.maxTf = maxTf;
}

/** The k-th highest positive accumulated score (a min-heap of k numbers), 0 when fewer than k are positive. */
function kthBest(accs: readonly Float64Array[], touched: readonly Touched[], k: number): number {
  const heap = new Float64Array(k);
  let size = 0;
  for (let pi = 0; pi < accs.length; pi++) {
    const acc = accs[pi];
    const list = touched[pi];
    for (let i = 0; i < list.n; i++) {
      const v = acc[list.slots[i]];
      if (v <= 0) continue;
      if (size < k) {
        let j = size++;
        heap[j] = v;
        while (j > 0 && heap[(j - 1) >> 1] > heap[j]) {
          const parent = (j - 1) >> 1;
          [heap[parent], heap[j]] = [heap[j], heap[parent]];
          j = parent;
        }
      } else if (v > heap[0]) {
        heap[0] = v;
        let j = 0;
        for (;;) {
          const l = 2 * j + 1;
          const r = l + 1;
          let m = j;
          if (l < k && heap[l] < heap[m]) m = l;
          if (r < k && heap[r] < heap[m]) m = r;
          if (m === j) break;
          [heap[m], heap[j]] = [heap[j], heap[m]];
          j = m;
        }
      }
    }
  }
  return size < k ? 0 : heap[0];
}

/** Cached views (per visible-set key), bounded in count and bytes (a view of 100,000 tools is ~2.8 MB). */
const MAX_VIEWS = 256;
const MAX_VIEW_BYTES = 64 * 1024 ** 2;

export class SearchIndex {
  readonly params: RankingParams;
  private readonly partitions = new Map<string | null, Partition>();
  private readonly located = new Map<string, Located>();
  private readonly views = new Map<string, View>();
  private viewBytes = 0;

  constructor(params: RankingParams = DEFAULT_RANKING) {
    checkParams(params);
    this.params = params;
  }

  get size(): number {
    return this.located.size;
  }

  has(toolId: string): boolean {
    return this.located.has(toolId);
  }

  /** Hash of the indexed text of a tool (what an embedding store keys its vector on), or null. */
  textHash(toolId: string): string | null {
    return this.located.get(toolId)?.hash ?? null;
  }

  /**
   * Adds a tool or replaces its text. A document whose text and owner are unchanged is a no-op (a classification
   * change or a re-sync of an unchanged tool costs one hash), so callers may call it on every sync.
   * Returns true when the index changed.
   */
  upsert(doc: SearchDocument): boolean {
    const texts = fieldTexts(doc);
    const h = createHash('sha256');
    for (const f of FIELDS) h.update(texts[f]).update('\u0000');
    const hash = h.digest('base64url');
    const owner = doc.tenantId ?? null;
    const old = this.located.get(doc.toolId);
    if (old && old.hash === hash && old.partition.owner === owner) return false;
    if (old) this.removeLocated(doc.toolId, old);
    const terms = new Map<string, number>();
    const lens: number[] = [];
    const cap = this.params.tfCap;
    FIELDS.forEach((f, fi) => {
      const tokens = tokenize(texts[f], this.params.tokenize);
      lens.push(tokens.length);
      const shift = fi * TF_BITS;
      const indexed = Math.min(tokens.length, this.params.maxFieldTokens);
      for (let i = 0; i < indexed; i++) {
        const t = tokens[i];
        const packed = terms.get(t) ?? 0;
        const tf = (packed >>> shift) & ((1 << TF_BITS) - 1);
        if (tf < cap) terms.set(t, packed + (1 << shift));
        else if (!terms.has(t)) terms.set(t, packed);
      }
    });
    const partition = this.partitionOf(owner);
    const slot = partition.add(doc.toolId, terms, lens);
    this.located.set(doc.toolId, { partition, slot, hash });
    return true;
  }

  /** Removes a tool (source sync removal, quarantine, tenant deletion). Returns true when it was indexed. */
  remove(toolId: string): boolean {
    const old = this.located.get(toolId);
    if (!old) return false;
    this.removeLocated(toolId, old);
    return true;
  }

  /**
   * The caller's top `k` for a task text. `query` is the raw text (validated here: SearchQueryError) or a query
   * parsed once by parseQuery for several calls.
   */
  rank(visible: VisibleSetRef, query: string | ParsedQuery, k: number): SearchResult {
    if (!Number.isInteger(k) || k < 1) throw new RangeError('k must be a positive integer');
    const q = isParsed(query) ? query : parseQuery(query, this.params.tokenize);
    const view = this.viewOf(visible);
    if (q.terms.length === 0 || view.n === 0) return { hits: [], matched: 0, visible: view.n, query: q };
    const { k1 } = this.params;
    const parts = view.parts;
    // Pass 1: each term's document frequency among the visible tools and its largest pseudo-frequency (once per view
    // and term: the view's cache).
    const postings = q.terms.map((t) => parts.map((part) => part.partition.postings.get(t)));
    const ub: number[] = [];
    const tight: number[] = [];
    const idfs: number[] = [];
    q.terms.forEach((term, ti) => {
      const { df, maxTf } = this.termStats(view, term, postings[ti]);
      idfs.push(df ? idf(view.n, df) : 0);
      // A term's contribution is weight * idf * (k1 + 1) * tf / (tf + k1) < weight * idf * (k1 + 1), which orders
      // the terms (so the float sums run in the same order as ever); the bounds MaxScore adds up are the tight ones,
      // with the view's largest tf of the term in place of infinity, so pruning starts terms earlier.
      ub.push(df ? q.weights[ti] * idfs[ti] * (k1 + 1) : 0);
      tight.push(df ? ub[ti] * (maxTf / (maxTf + k1)) * BOUND_SLACK : 0);
    });
    // Pass 2, term at a time in decreasing upper bound (ties in query order), with MaxScore pruning (Turtle and
    // Flood 1995): once the bounds of the terms left add up to less than the current k-th best score, a tool no term
    // has matched yet cannot reach the top k, so the remaining terms only add to tools already scored (and count the
    // others as matches). The top k and their scores are exactly those of scoring every posting; what is saved is
    // the scoring of common terms' long postings, the cost of long task texts at 100,000 tools.
    const order = q.terms.map((_, i) => i).filter((i) => ub[i] > 0).sort((x, y) => ub[y] - ub[x] || x - y);
    const rest = new Float64Array(order.length + 1);
    for (let i = order.length - 1; i >= 0; i--) rest[i] = rest[i + 1] + tight[order[i]];
    const touched = parts.map((part) => part.partition.touched());
    const accs = parts.map((part) => part.partition.accumulator());
    const state = { maxAcc: 0, scored: 0 };
    let marks: Array<{ seen: Uint32Array; cand: Uint32Array }> | null = null;
    let cands: Touched[] = [];
    let attempts = 0;
    for (let oi = 0; oi < order.length; oi++) {
      if (!marks && state.scored >= k && rest[oi] < state.maxAcc && attempts < MAX_PRUNE_ATTEMPTS) {
        attempts++;
        if (rest[oi] < kthBest(accs, touched, k)) {
          marks = parts.map((part) => part.partition.bitsets());
          cands = parts.map((part) => part.partition.candidates());
          for (let pi = 0; pi < parts.length; pi++) markCandidates(touched[pi], marks[pi].seen, marks[pi].cand, cands[pi]);
        }
      }
      const ti = order[oi];
      const weight = q.weights[ti] * idfs[ti] * (k1 + 1);
      for (let pi = 0; pi < parts.length; pi++) {
        const p = postings[ti][pi];
        if (!p) continue;
        if (marks) scorePrunedTerm(p.data, p.n, parts[pi].bits, parts[pi].normW, accs[pi], touched[pi], weight, k1, marks[pi].seen, marks[pi].cand, state);
        else scoreTerm(p.data, p.n, parts[pi].bits, parts[pi].normW, accs[pi], touched[pi], weight, k1, state);
      }
      if (marks && oi + 1 < order.length) {
        let c = 0;
        for (const list of cands) c += list.n;
        if (c > 2 * k) {
          const kth = kthBest(accs, cands, k);
          const floor = kth - rest[oi + 1] - FLOOR_SLACK * kth;
          if (floor > 0) for (let pi = 0; pi < parts.length; pi++) dropHopeless(cands[pi], accs[pi], marks[pi].cand, floor);
        }
      }
    }
    const top = new TopK(k);
    let matched = 0;
    for (let pi = 0; pi < parts.length; pi++) matched += collect(touched[pi], accs[pi], parts[pi].partition.ids, top);
    return { hits: top.sorted(), matched, visible: view.n, query: q };
  }

  /** Approximate retained bytes of the index structures (typed arrays exact, maps and strings estimated). */
  stats(): { tools: number; partitions: number; terms: number; postings: number; deadPostings: number; bytes: number } {
    let terms = 0;
    let postings = 0;
    let dead = 0;
    let bytes = this.located.size * 120;
    for (const p of this.partitions.values()) {
      terms += p.postings.size;
      postings += p.totalPostings;
      dead += p.deadPostings;
      bytes += p.bytes();
    }
    return { tools: this.located.size, partitions: this.partitions.size, terms, postings, deadPostings: dead, bytes };
  }

  private partitionOf(owner: string | null): Partition {
    let p = this.partitions.get(owner);
    if (!p) {
      p = new Partition(owner);
      this.partitions.set(owner, p);
    }
    return p;
  }

  private removeLocated(toolId: string, loc: Located): void {
    loc.partition.remove(loc.slot);
    this.located.delete(toolId);
    if (loc.partition.live === 0) {
      this.partitions.delete(loc.partition.owner);
      return;
    }
    if (!loc.partition.needsCompaction()) return;
    const map = loc.partition.compact();
    for (const id of loc.partition.ids) {
      const l = this.located.get(id)!;
      l.slot = map[l.slot];
    }
  }

  private termStats(view: View, term: string, postings: ReadonlyArray<Posting | undefined>): TermStats {
    const hit = view.terms.get(term);
    if (hit) return hit;
    const out = { df: 0, maxTf: 0 };
    view.parts.forEach((part, pi) => {
      const p = postings[pi];
      if (p) termStatsOf(p.data, p.n, part.bits, part.normW, out);
    });
    view.terms.set(term, out);
    view.bytes += TERM_STATS_BYTES;
    if (view.cached) {
      this.viewBytes += TERM_STATS_BYTES;
      this.evictViews();
    }
    return out;
  }

  private evictViews(): void {
    while (this.views.size > MAX_VIEWS || this.viewBytes > MAX_VIEW_BYTES) {
      const [oldest, v] = this.views.entries().next().value!;
      this.views.delete(oldest);
      v.cached = false;
      this.viewBytes -= v.bytes;
    }
  }

  private viewOf(visible: VisibleSetRef): View {
    if (visible.key !== null) {
      const hit = this.views.get(visible.key);
      if (hit) {
        this.views.delete(visible.key);
        if (hit.parts.every((p) => p.epoch === p.partition.epoch && this.partitions.get(p.partition.owner) === p.partition)) {
          this.views.set(visible.key, hit); // LRU: move to the back
          return hit;
        }
        this.viewBytes -= hit.bytes;
        hit.cached = false;
      }
    }
    const byPartition = new Map<Partition, { bits: Uint32Array; n: number; lenSums: Float64Array }>();
    for (const id of visible.ids) {
      const loc = this.located.get(id);
      if (!loc) continue;
      let v = byPartition.get(loc.partition);
      if (!v) {
        v = { bits: new Uint32Array((loc.partition.ids.length + 31) >>> 5), n: 0, lenSums: new Float64Array(FIELD_COUNT) };
        byPartition.set(loc.partition, v);
      }
      const word = loc.slot >>> 5;
      const bit = 1 << (loc.slot & 31);
      if (v.bits[word] & bit) continue; // an id listed twice counts once
      v.bits[word] |= bit;
      v.n++;
      const lens = loc.partition.lens;
      for (let f = 0; f < FIELD_COUNT; f++) v.lenSums[f] += lens[loc.slot * FIELD_COUNT + f];
    }
    // Partitions in a fixed order (global first, then by owner), so float sums run in the same order every time.
    const parts: PartView[] = [...byPartition.entries()]
      .sort(([a], [b]) => (a.owner === b.owner ? 0 : a.owner === null ? -1 : b.owner === null ? 1 : a.owner < b.owner ? -1 : 1))
      .map(([partition, v]) => ({ partition, epoch: partition.epoch, ...v, normW: new Float32Array(0) }));
    let n = 0;
    const avgLen = new Float64Array(FIELD_COUNT);
    for (const p of parts) {
      n += p.n;
      for (let f = 0; f < FIELD_COUNT; f++) avgLen[f] += p.lenSums[f];
    }
    for (let f = 0; f < FIELD_COUNT; f++) avgLen[f] = n ? avgLen[f] / n : 0;
    const { weights, b } = this.params;
    const w = FIELDS.map((f) => weights[f]);
    const c0 = FIELDS.map((f) => 1 - b[f]);
    const c1 = FIELDS.map((f, i) => (avgLen[i] > 0 ? b[f] / avgLen[i] : 0));
    let bytes = 256;
    for (const p of parts) {
      const lens = p.partition.lens;
      const slots = p.partition.ids.length;
      const normW = new Float32Array(slots * FIELD_COUNT);
      for (let slot = 0; slot < slots; slot++) {
        if ((p.bits[slot >>> 5] & (1 << (slot & 31))) === 0) continue;
        const base = slot * FIELD_COUNT;
        for (let f = 0; f < FIELD_COUNT; f++) normW[base + f] = w[f] / (c0[f] + c1[f] * lens[base + f]);
      }
      p.normW = normW;
      bytes += normW.byteLength + p.bits.byteLength;
    }
    const view: View = { parts, n, avgLen, bytes, terms: new Map(), cached: false };
    if (visible.key !== null && bytes <= MAX_VIEW_BYTES) {
      view.cached = true;
      this.views.set(visible.key, view);
      this.viewBytes += bytes;
      this.evictViews();
    }
    return view;
  }
}

