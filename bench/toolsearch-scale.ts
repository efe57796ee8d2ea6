import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { SearchDocument } from '../src/search/fields';
import { SearchIndex } from '../src/search/index';
import { parseQuery } from '../src/search/query';
import { markdownTable, summarize } from './stats';
import type { DevSet } from './toolsearch-devset';

/**
 * The 100,000-tool check of issue 18: synthetic tools recombined from the development set (a name from the parts of
 * two tools' names, the description of one followed by the first sentence of another, the parameters of a third,
 * 1,000 sources), so the vocabulary, lengths and term distribution are those of real MCP tools rather than random
 * words. Queries are the 94 real task texts. Reported: build time (every tool upserted as ingest would), index
 * memory (heap + array buffers after gc, with --expose-gc; the index's own estimate otherwise), and query latency
 * warm (after one pass over the queries) for a caller who sees every tool and one who sees 10% of them.
 */
export function syntheticTools(set: DevSet, n: number, seed = 18): SearchDocument[] {
  const docs = set.docs;
  const pick = (i: number, salt: string) => docs[createHash('sha256').update(`${seed}:${salt}:${i}`).digest().readUInt32BE(0) % docs.length];
  const out: SearchDocument[] = [];
  for (let i = 0; i < n; i++) {
    const a = pick(i, 'a');
    const b = pick(i, 'b');
    const c = pick(i, 'c');
    const aParts = a.name.split(/[_\-.]/);
    const bParts = b.name.split(/[_\-.]/);
    const name = [...aParts.slice(0, Math.ceil(aParts.length / 2)), ...bParts.slice(Math.floor(bParts.length / 2))].join('_');
    const firstSentence = (b.description ?? '').split(/(?<=[.!?。])\s*/)[0] ?? '';
    out.push({
      toolId: `mcp.syn${i % 1000}.${name}-${i}`, tenantId: null, name, description: `${a.description ?? ''} ${firstSentence}`.trim(),
      inputSchema: c.inputSchema, source: `${a.source}-${i % 1000}`,
    });
  }
  return out;
}

function heapBytes(): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return null;
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface ScaleFigures {
  readonly tools: number;
  readonly buildMs: number;
  readonly heapBytes: number | null;
  readonly indexBytes: number;
  readonly terms: number;
  readonly postings: number;
  readonly rows: ReadonlyArray<{ visible: number; viewMs: number; p50: number; p99: number; max: number; cpuP99: number; meanMatched: number }>;
}

function measureScale(set: DevSet, n: number, reps = 3): ScaleFigures {
  const docs = syntheticTools(set, n);
  const before = heapBytes();
  const t0 = performance.now();
  const index = new SearchIndex();
  for (const d of docs) index.upsert(d);
  const buildMs = performance.now() - t0;
  const after = heapBytes();
  const stats = index.stats();
  const queries = set.queries.map((q) => parseQuery(q.text, index.params.tokenize));
  const rows = [1, 10].map((every) => {
    const ids = docs.filter((_, i) => i % every === 0).map((d) => d.toolId);
    const visible = { key: `scale-${every}`, ids };
    const v0 = performance.now();
    index.rank(visible, queries[0], 10); // builds the cached view once (per visible set and catalog change)
    const cold = performance.now() - v0;
    for (const q of queries) index.rank(visible, q, 10);
    const w0 = performance.now();
    index.rank(visible, queries[0], 10);
    const viewMs = cold - (performance.now() - w0);
    const samples: number[] = [];
    const cpu: number[] = [];
    let matched = 0;
    for (let r = 0; r < reps; r++) {
      for (const q of queries) {
        const c = process.cpuUsage();
        const s = performance.now();
        const res = index.rank(visible, q, 10);
        samples.push(performance.now() - s);
        const used = process.cpuUsage(c);
        cpu.push((used.user + used.system) / 1000);
        matched += res.matched;
      }
    }
    const l = summarize(samples);
    const c = summarize(cpu);
    return { visible: ids.length, viewMs, p50: l.p50, p99: l.p99, max: l.max, cpuP99: c.p99, meanMatched: matched / samples.length };
  });
  return {
    tools: n, buildMs, heapBytes: before !== null && after !== null ? after - before : null, indexBytes: stats.bytes, terms: stats.terms,
    postings: stats.postings, rows,
  };
}

export function scaleSection(set: DevSet, n: number): string {
  const f = measureScale(set, n);
  const mib = (b: number | null) => (b === null ? 'n/a (run with --expose-gc)' : `${(b / 1024 ** 2).toFixed(1)} MiB`);
  return [
    `### Scale: ${f.tools.toLocaleString('en')} synthetic tools (recombined from the development set)`,
    '',
    markdownTable(
      ['tools', 'build (all upserts)', 'per tool', 'heap + buffers', 'index estimate', 'terms', 'postings'],
      [[f.tools.toLocaleString('en'), `${(f.buildMs / 1000).toFixed(2)} s`, `${((1000 * f.buildMs) / f.tools).toFixed(0)} µs`, mib(f.heapBytes), mib(f.indexBytes), f.terms.toLocaleString('en'), f.postings.toLocaleString('en')]],
    ),
    '',
    markdownTable(
      ['visible tools', 'view build (once per visible set)', 'q p50 warm', 'q p99 warm', 'q max', 'q p99 CPU time', 'mean matches'],
      f.rows.map((r) => [r.visible.toLocaleString('en'), `${r.viewMs.toFixed(1)} ms`, `${r.p50.toFixed(2)} ms`, `${r.p99.toFixed(2)} ms`, `${r.max.toFixed(2)} ms`, `${r.cpuP99.toFixed(2)} ms`, r.meanMatched.toFixed(0)]),
    ),
    '',
    `Queries: the ${set.queries.length} development-set task texts, 3 warm passes each, top 10, in process (no HTTP). ` +
      `Load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} on ${os.cpus().length} cores (shared machine: wall times include other processes; CPU time does not).`,
  ].join('\n');
}
