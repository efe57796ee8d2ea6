/**
 * Retrieval metrics as ToolRet computes them (toolret/eval.py: pytrec_eval `recall.k`, `ndcg_cut.k`, `recip_rank`,
 * and Comprehensiveness@k = recall@k == 1; the published LiveMCPBench baselines use this code): binary relevance,
 * Recall@k = |gold ∩ top-k| / |gold|, nDCG@k = DCG@k / IDCG@k with gain 1 and discount 1 / log2(rank + 1), the ideal
 * ranking putting all |gold| first; MRR = 1 / rank of the first gold tool in the run (0 if none), means over queries.
 * One difference in method, not in formula: pytrec_eval re-sorts a run by score and breaks ties by document id in
 * descending order; here the ranked list is scored as returned (ties by toolId ascending, the order the API serves).
 */
const KS = [1, 5, 10] as const;

export interface QueryMetrics {
  readonly recall: Record<number, number>;
  readonly ndcg10: number;
  readonly ndcg5: number;
  readonly comp10: number;
  readonly mrr: number;
}

export function metricsOf(ranked: readonly string[], gold: ReadonlySet<string>): QueryMetrics {
  const recall: Record<number, number> = {};
  for (const k of KS) recall[k] = ranked.slice(0, k).filter((id) => gold.has(id)).length / gold.size;
  const dcg = (k: number) => ranked.slice(0, k).reduce((s, id, i) => s + (gold.has(id) ? 1 / Math.log2(i + 2) : 0), 0);
  const idcg = (k: number) => {
    let s = 0;
    for (let i = 0; i < Math.min(k, gold.size); i++) s += 1 / Math.log2(i + 2);
    return s;
  };
  const first = ranked.findIndex((id) => gold.has(id));
  return {
    recall, ndcg10: dcg(10) / idcg(10), ndcg5: dcg(5) / idcg(5), comp10: recall[10] === 1 ? 1 : 0, mrr: first < 0 ? 0 : 1 / (first + 1),
  };
}

export interface Summary {
  readonly n: number;
  readonly r1: number;
  readonly r5: number;
  readonly r10: number;
  readonly ndcg5: number;
  readonly ndcg10: number;
  readonly comp10: number;
  readonly mrr: number;
}

/** Means in percent (the published tables' unit). */
export function summarise(rows: readonly QueryMetrics[]): Summary {
  const mean = (f: (m: QueryMetrics) => number) => (rows.length ? (100 * rows.reduce((s, m) => s + f(m), 0)) / rows.length : NaN);
  return {
    n: rows.length, r1: mean((m) => m.recall[1]), r5: mean((m) => m.recall[5]), r10: mean((m) => m.recall[10]),
    ndcg5: mean((m) => m.ndcg5), ndcg10: mean((m) => m.ndcg10), comp10: mean((m) => m.comp10), mrr: mean((m) => m.mrr),
  };
}
