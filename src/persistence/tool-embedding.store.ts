import type { DataSource } from 'typeorm';

/**
 * Reads and writes of `tool_embedding` (issue 18's optional embedding stage). Maintenance only, off the request
 * path: the query path ranks from the vectors held in memory. Writes run in a transaction, which on SQLite waits
 * (asynchronously) for the snapshot writer's swaps like every other writer (sqlite-immediate.ts); they do not bump
 * the catalog version: a vector changes no served byte.
 */
export interface StoredEmbedding {
  readonly toolId: string;
  readonly textHash: string;
  readonly vector: Float32Array;
}

/** Ids per statement (SQLite's bound-parameter limit is 32,766). */
const BATCH = 500;

function encode(v: Float32Array): string {
  const b = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i], i * 4);
  return b.toString('base64');
}

function decode(s: string, dimensions: number): Float32Array | null {
  const b = Buffer.from(s, 'base64');
  if (b.length !== dimensions * 4) return null; // a damaged row is recomputed, never served
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = b.readFloatLE(i * 4);
  return v;
}

export class ToolEmbeddingStore {
  private readonly pg: boolean;

  constructor(private readonly ds: DataSource) {
    this.pg = ds.options.type === 'postgres';
  }

  private marks(n: number, from = 1): string {
    return Array.from({ length: n }, (_, j) => (this.pg ? `$${from + j}` : '?')).join(', ');
  }

  /** The stored vectors of these tools computed by `model` (others, and damaged rows, are absent). */
  async read(model: string, ids: readonly string[]): Promise<StoredEmbedding[]> {
    const out: StoredEmbedding[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const rows = (await this.ds.query(
        `SELECT tool_id, text_hash, dimensions, vector FROM tool_embedding WHERE model = ${this.pg ? '$1' : '?'} AND tool_id IN (${this.marks(batch.length, 2)})`,
        [model, ...batch],
      )) as Array<{ tool_id: string; text_hash: string; dimensions: number | string; vector: string }>;
      for (const r of rows) {
        const vector = decode(r.vector, Number(r.dimensions));
        if (vector) out.push({ toolId: r.tool_id, textHash: r.text_hash, vector });
      }
    }
    return out;
  }

  async write(model: string, rows: readonly StoredEmbedding[]): Promise<void> {
    if (!rows.length) return;
    const now = new Date().toISOString();
    const p = (n: number): string => (this.pg ? `$${n}` : '?');
    const sql = `INSERT INTO tool_embedding (tool_id, model, text_hash, dimensions, vector, updated_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)})
      ON CONFLICT (tool_id) DO UPDATE SET model = excluded.model, text_hash = excluded.text_hash, dimensions = excluded.dimensions, vector = excluded.vector, updated_at = excluded.updated_at`;
    await this.ds.transaction(async (m) => {
      for (const r of rows) await m.query(sql, [r.toolId, model, r.textHash, r.vector.length, encode(r.vector), now]);
    });
  }

  /**
   * Deletes the vectors of tools no longer in the catalog (run after removals: also catches those removed while this
   * process was down, or by another replica). One anti-join over two primary keys.
   */
  async pruneOrphans(): Promise<void> {
    await this.ds.transaction((m) => m.query('DELETE FROM tool_embedding WHERE NOT EXISTS (SELECT 1 FROM tool t WHERE t.tool_id = tool_embedding.tool_id)'));
  }

  /** Rows stored (tests, bench). */
  async count(): Promise<number> {
    const [{ n }] = (await this.ds.query('SELECT COUNT(*) AS n FROM tool_embedding')) as Array<{ n: number | string }>;
    return Number(n);
  }
}
