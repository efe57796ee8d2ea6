/**
 * Tool search (issue 18), offline: the ranking core scored on the LiveMCPBench development set, next to the
 * published baselines, with latency and index cost, and the 100,000-tool scale check (bench/toolsearch-scale.ts).
 * In process, no HTTP: the HTTP path is wired by the REST layer and scored by the main bench later; this file's
 * `toolSearchSection` is what it calls.
 *
 *   node --expose-gc dist/bench/toolsearch.js [--no-scale] [--scale-tools=N] [--variants] [--embeddings] [--per-query]
 *
 * Overfitting guard: constants are checked on split A (queries whose id hashes even) only; split B is reported as
 * held out. --variants prints the alternatives that were measured (stemmers, no compounds, minisearch, fields off).
 */
import { performance } from 'node:perf_hooks';
import MiniSearch from 'minisearch';
import { FIELDS, type FieldName, type SearchDocument, fieldTexts } from '../src/search/fields';
import { SearchIndex } from '../src/search/index';
import { parseQuery } from '../src/search/query';
import { DEFAULT_RANKING, type RankingParams } from '../src/search/ranking';
import { tokenize } from '../src/search/text';
import { markdownTable, summarize } from './stats';
import { type DevQuery, type DevSet, loadDevSet } from './toolsearch-devset';
import { type QueryMetrics, type Summary, metricsOf, summarise } from './toolsearch-metrics';

/** The published figures (../shared/toolsearch/livemcpbench/README.md, toolrank docs/benchmarks.md). */
export const PUBLISHED = {
  bm25: { label: 'BM25 (bm25s, published)', r5: 31.68, r10: 39.04, ndcg5: 29.01, ndcg10: 32.08, comp10: 22.34 },
  qwen3: { label: 'Qwen3-Embedding-8B (published)', r5: 50.82, r10: 61.09, ndcg5: 49.3, ndcg10: 53.74, comp10: 37.23 },
} as const;

/** Depth of the run scored (toolrank and ToolRet keep the top 100). */
const RUN_DEPTH = 100;

export type Ranker = (q: DevQuery) => string[];

export interface Evaluation {
  readonly all: Summary;
  readonly a: Summary;
  readonly b: Summary;
  readonly perQuery: ReadonlyArray<{ q: DevQuery; m: QueryMetrics; top: string[] }>;
}

export function evaluate(set: DevSet, rank: Ranker): Evaluation {
  const perQuery = set.queries.map((q) => {
    const top = rank(q);
    return { q, m: metricsOf(top, q.gold), top };
  });
  const of = (split?: 'A' | 'B') => summarise(perQuery.filter((r) => !split || r.q.split === split).map((r) => r.m));
  return { all: of(), a: of('A'), b: of('B'), perQuery };
}

export function indexOf(docs: readonly SearchDocument[], params: RankingParams = DEFAULT_RANKING): SearchIndex {
  const index = new SearchIndex(params);
  for (const d of docs) index.upsert(d);
  return index;
}

export function toolcatRanker(index: SearchIndex, ids: readonly string[]): Ranker {
  const visible = { key: 'bench', ids };
  return (q) => index.rank(visible, q.text, RUN_DEPTH).hits.map((h) => h.toolId);
}

/**
 * minisearch 7.2 over the same fields and tokens, its BM25+ with our field weights as boosts. Its statistics are
 * global to the index: a stand-in for "use the library" on quality only (the visibility constraint rules it out).
 */
export function minisearchRanker(docs: readonly SearchDocument[], params: RankingParams = DEFAULT_RANKING): Ranker {
  const fields = FIELDS.filter((f) => params.weights[f] > 0);
  const ms = new MiniSearch<Record<string, string>>({
    idField: 'toolId',
    fields: [...fields],
    tokenize: (text) => tokenize(text, params.tokenize),
    processTerm: (t) => t,
    searchOptions: { boost: Object.fromEntries(fields.map((f) => [f, params.weights[f]])) as Record<FieldName, number>, combineWith: 'OR' },
  });
  ms.addAll(docs.map((d) => ({ toolId: d.toolId, ...fieldTexts(d) })));
  return (q) => {
    const terms = parseQuery(q.text, params.tokenize).terms;
    return ms.search({ queries: [...terms], combineWith: 'OR' }).slice(0, RUN_DEPTH).map((r) => String(r.id));
  };
}

function row(label: string, s: Pick<Summary, 'r5' | 'r10' | 'ndcg5' | 'ndcg10' | 'comp10'> & Partial<Summary>): string[] {
  const f = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '' : v.toFixed(2));
  return [label, f(s.r1), f(s.r5), f(s.r10), f(s.ndcg5), f(s.ndcg10), f(s.comp10), f(s.mrr)];
}

const HEAD = ['ranker', 'Recall@1', 'Recall@5', 'Recall@10', 'nDCG@5', 'nDCG@10', 'Comp@10', 'MRR'];

export function qualityTable(rows: ReadonlyArray<[string, Evaluation]>): string {
  const out: string[][] = [];
  for (const [label, e] of rows) {
    out.push(row(`${label}: all ${e.all.n}`, e.all));
    out.push(row(`${label}: split A ${e.a.n} (tuned on)`, e.a));
    out.push(row(`${label}: split B ${e.b.n} (held out)`, e.b));
  }
  out.push(row(PUBLISHED.bm25.label, PUBLISHED.bm25));
  out.push(row(PUBLISHED.qwen3.label, PUBLISHED.qwen3));
  return markdownTable(HEAD, out);
}

/** The measured alternatives (each changes one thing from the default). */
export function variants(): Array<[string, RankingParams]> {
  const d = DEFAULT_RANKING;
  const withFields = (w: Partial<Record<FieldName, number>>): RankingParams => ({ ...d, weights: { ...d.weights, ...w } });
  return [
    ['stemmer none', { ...d, tokenize: { ...d.tokenize, stemmer: 'none' } }],
    ['stemmer porter', { ...d, tokenize: { ...d.tokenize, stemmer: 'porter' } }],
    ['no camelCase compounds', { ...d, tokenize: { ...d.tokenize, compounds: false } }],
    ['no tf cap (15)', { ...d, tfCap: 15 }],
    ['all weights 1', withFields({ name: 1, title: 1, description: 1, params: 1, paramText: 1, source: 1, metadata: 1 })],
    ['without params', withFields({ params: 0, paramText: 0 })],
    ['without source', withFields({ source: 0 })],
    ['k1 0.9', { ...d, k1: 0.9 }],
    ['k1 2.0', { ...d, k1: 2.0 }],
  ];
}

export interface LatencyFigures {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly buildMs: number;
  readonly indexBytes: number;
}

export function latencyOf(set: DevSet, reps = 5): LatencyFigures {
  const t0 = performance.now();
  const index = indexOf(set.docs);
  const buildMs = performance.now() - t0;
  const visible = { key: 'latency', ids: set.docs.map((d) => d.toolId) };
  for (const q of set.queries) index.rank(visible, q.text, 10); // warm
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) {
    for (const q of set.queries) {
      const s = performance.now();
      index.rank(visible, q.text, 10);
      samples.push(performance.now() - s);
    }
  }
  const l = summarize(samples);
  return { p50: l.p50, p99: l.p99, max: l.max, buildMs, indexBytes: index.stats().bytes };
}

export interface ToolSearchOptions {
  readonly variants?: boolean;
  readonly perQuery?: boolean;
  readonly scale?: boolean;
  readonly scaleTools?: number;
  readonly embeddings?: boolean;
}

/** The section's Markdown (what `npm run bench` prints). */
export async function toolSearchSection(o: ToolSearchOptions = {}): Promise<string> {
  const set = loadDevSet();
  const ids = set.docs.map((d) => d.toolId);
  const out: string[] = ['## Tool search (issue 18): LiveMCPBench development set, in process', ''];
  const main = evaluate(set, toolcatRanker(indexOf(set.docs), ids));
  const rows: Array<[string, Evaluation]> = [['toolcat BM25F (default)', main]];
  if (o.variants) {
    for (const [label, p] of variants()) rows.push([label, evaluate(set, toolcatRanker(indexOf(set.docs, p), ids))]);
    rows.push(['minisearch 7.2 (same tokens, global stats)', evaluate(set, minisearchRanker(set.docs))]);
  }
  if (o.embeddings) {
    const { embeddingRows } = await import('./toolsearch-embeddings');
    rows.push(...(await embeddingRows(set)));
  }
  out.push(qualityTable(rows), '');
  out.push(
    `${set.docs.length} tools, ${set.queries.length} queries (split A ${main.a.n}, split B ${main.b.n}); metrics as ToolRet computes them ` +
      '(bench/toolsearch-metrics.ts), top 100 over the whole corpus, in percent.',
    '',
  );
  const lat = latencyOf(set);
  out.push(
    markdownTable(
      ['tools', 'index build', 'index bytes', 'q p50', 'q p99', 'q max'],
      [[String(set.docs.length), `${lat.buildMs.toFixed(1)} ms`, `${(lat.indexBytes / 1024).toFixed(0)} KiB`, `${lat.p50.toFixed(3)} ms`, `${lat.p99.toFixed(3)} ms`, `${lat.max.toFixed(3)} ms`]],
    ),
    '',
  );
  if (o.perQuery) {
    out.push(
      markdownTable(
        ['query', 'split', 'gold', 'R@5', 'R@10', 'first gold rank', 'text'],
        main.perQuery.map(({ q, m }) => [q.id.slice(0, 8), q.split, String(q.gold.size), (100 * m.recall[5]).toFixed(0), (100 * m.recall[10]).toFixed(0), m.mrr ? String(Math.round(1 / m.mrr)) : '-', q.text.slice(0, 80).replace(/\|/g, '/').replace(/\s+/g, ' ')]),
      ),
      '',
    );
  }
  if (o.scale !== false) {
    const { scaleSection } = await import('./toolsearch-scale');
    out.push(scaleSection(set, o.scaleTools ?? 100_000), '');
  }
  return out.join('\n');
}

if (require.main === module) {
  const args = new Set(process.argv.slice(2));
  const scaleArg = process.argv.find((a) => a.startsWith('--scale-tools='));
  toolSearchSection({
    variants: args.has('--variants'), perQuery: args.has('--per-query'), scale: !args.has('--no-scale'), embeddings: args.has('--embeddings'),
    scaleTools: scaleArg ? Number(scaleArg.split('=')[1]) : undefined,
  }).then(
    (md) => process.stdout.write(`${md}\n`),
    (e) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
