import { performance } from 'node:perf_hooks';
import { EmbeddingClient, EmbeddingStage } from '../src/search/embeddings';
import { startEmbeddingServer } from '../test/helpers/embedding-server';
import { type Evaluation, evaluate, indexOf } from './toolsearch';
import type { DevSet } from './toolsearch-devset';

/**
 * The embedding stage on the development set with the deterministic hashing-trick server (test/helpers): a sanity
 * check of the path (embedding at ingest, cosine over the visible set, RRF), not a quality figure: hashing-trick
 * vectors are a fuzzy lexical match, not a language model. With a real operator-configured model the same code
 * gives the real figure; set TOOLSEARCH_EMBEDDINGS_URL (and _MODEL, _KEY) to score one.
 */
export async function embeddingRows(set: DevSet): Promise<Array<[string, Evaluation]>> {
  const external = process.env.TOOLSEARCH_EMBEDDINGS_URL;
  const server = external ? null : await startEmbeddingServer();
  try {
    const client = new EmbeddingClient({
      baseUrl: external ?? server!.baseUrl, model: process.env.TOOLSEARCH_EMBEDDINGS_MODEL ?? 'hashing-trick', apiKey: process.env.TOOLSEARCH_EMBEDDINGS_KEY,
      timeoutMs: 60_000,
    });
    const stage = new EmbeddingStage(client, { concurrency: 2 });
    const t0 = performance.now();
    await stage.sync(set.docs);
    const embedMs = performance.now() - t0;
    const index = indexOf(set.docs);
    const visible = { key: 'embeddings', ids: set.docs.map((d) => d.toolId) };
    const vectors = new Map<string, string[]>();
    const fused = new Map<string, string[]>();
    for (const q of set.queries) {
      vectors.set(q.id, stage.vectorRank(visible, await stage.queryVector(q.text), 100).map((h) => h.toolId));
      fused.set(q.id, (await stage.rank(index, visible, q.text, 100)).hits.map((h) => h.toolId));
    }
    const label = external ? `embeddings ${process.env.TOOLSEARCH_EMBEDDINGS_MODEL ?? ''}` : 'hashing-trick vectors (deterministic test server)';
    process.stderr.write(`embedded ${set.docs.length} tools in ${embedMs.toFixed(0)} ms (${client.requests} requests)\n`);
    return [
      [`${label}, alone`, evaluate(set, (q) => vectors.get(q.id)!)],
      [`BM25F + ${label}, RRF`, evaluate(set, (q) => fused.get(q.id)!)],
    ];
  } finally {
    await server?.close();
  }
}
