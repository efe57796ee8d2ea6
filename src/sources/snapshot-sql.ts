/**
 * The SQL of a staged snapshot (issue 12 defect 1), written once for both backends and for both places it runs: the
 * main thread through TypeORM (PostgreSQL; SQLite in memory) and the SQLite writer thread (sqlite-snapshot.worker.ts),
 * which imports this file and better-sqlite3 only. No TypeORM, no domain code: rows in, rows out.
 *
 * A sync no longer writes the catalog in one long transaction. It stages what changed (upstream rows as listed, tool
 * rows as they will be served) in bounded batches, each its own short transaction (on SQLite into TEMP tables of the
 * writer thread's connection, which never take the catalog file's write lock; on PostgreSQL into UNLOGGED staging
 * tables), then publishes it with one swap transaction that only copies staged rows, deletes what went away and
 * records the history (`swapSnapshot`). Readers see the old snapshot until the swap commits and the new one after it;
 * a crash before the swap leaves only staging rows, which nothing reads.
 *
 * The swap is valid only for the state it was planned against: it first advances the source's projection_seq from
 * the value the plan read (`UPDATE … WHERE projection_seq = ?`). Every transaction that projects a source advances it
 * first (source-projection.ts lockSourceProjection), so a classification, approval or source update that committed
 * while the sync was planning makes the swap report `stale` and the sync plans again; one that comes later waits for
 * the swap (the same row lock on PostgreSQL, the write lock on SQLite) and projects from what the swap published
 * (issue 12 defect 3).
 */
import { BUMP_VERSION, CATALOG_CHANNEL, notifyPayload } from '../persistence/catalog-version-sql';

export type Dialect = 'postgres' | 'sqlite';

/** What an executor must offer: parameters as `?` (turned into `$n` for PostgreSQL by the runner). */
export interface SqlRunner {
  readonly dialect: Dialect;
  all(sql: string, params?: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  /** Runs a statement and returns the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** One transaction (the write lock taken at its start: BEGIN IMMEDIATE on SQLite). Never yields to other work. */
  transaction<T>(fn: (q: SqlRunner) => Promise<T>): Promise<T>;
}

const TOOL_COLUMNS = [
  'tool_id', 'source', 'origin', 'tenant_id', 'name', 'title', 'description', 'input_schema', 'output_schema', 'safety_tier', 'tier_rank', 'replay_policy',
  'egress', 'classified', 'claims', 'content_hash', 'compact_schema', 'compact_notes', 'compact_key', 'compact_profiles', 'row_hash', 'ingest_notes', 'gate_version',
  'definition_hash', 'updated_at',
] as const;
const UPSTREAM_COLUMNS = ['key', 'source_name', 'name', 'tool_id', 'raw', 'definition_hash', 'quarantine_reason', 'first_seen_at', 'last_seen_at', 'raw_hash'] as const;
const CHANGE_COLUMNS = ['id', 'seq', 'source_name', 'tool_name', 'tool_id', 'kind', 'old_hash', 'new_hash', 'detail', 'at'] as const;

export type ToolRow = Readonly<Record<(typeof TOOL_COLUMNS)[number], unknown>>;
export type UpstreamRow = Readonly<Record<(typeof UPSTREAM_COLUMNS)[number], unknown>>;
export type ChangeRow = Readonly<Record<(typeof CHANGE_COLUMNS)[number], unknown>>;

const STAGE_UPSTREAM = 'ingest_stage_upstream';
const STAGE_TOOL = 'ingest_stage_tool';

/** DDL of the staging tables: UNLOGGED tables on PostgreSQL (migration), TEMP tables of one connection on SQLite. */
export function stagingDdl(dialect: Dialect): string[] {
  const kind = dialect === 'postgres' ? 'UNLOGGED TABLE' : 'TEMP TABLE IF NOT EXISTS';
  const bool = dialect === 'postgres' ? 'boolean' : 'integer';
  return [
    `CREATE ${kind} ${STAGE_UPSTREAM} (sync_id varchar(36) NOT NULL, key varchar(64) NOT NULL, staged_at varchar(32) NOT NULL, source_name varchar(32) NOT NULL, name text NOT NULL,
      tool_id varchar(200), definition_hash varchar(64) NOT NULL, quarantine_reason text, first_seen_at varchar(32) NOT NULL, last_seen_at varchar(32) NOT NULL,
      raw_hash varchar(64), raw text NOT NULL, PRIMARY KEY (sync_id, key))`,
    `CREATE ${kind} ${STAGE_TOOL} (sync_id varchar(36) NOT NULL, tool_id varchar(200) NOT NULL, staged_at varchar(32) NOT NULL, source varchar(32) NOT NULL,
      origin varchar(128) NOT NULL, tenant_id varchar(36), name varchar(128) NOT NULL, title text, description text NOT NULL, input_schema text NOT NULL,
      output_schema text, safety_tier varchar(8) NOT NULL, tier_rank integer NOT NULL, replay_policy varchar(16) NOT NULL, egress varchar(16) NOT NULL,
      classified ${bool} NOT NULL, claims text, content_hash varchar(64) NOT NULL, compact_schema text NOT NULL, compact_notes text NOT NULL,
      compact_key varchar(80) NOT NULL, row_hash varchar(64) NOT NULL, ingest_notes text NOT NULL, gate_version varchar(16) NOT NULL,
      definition_hash varchar(64), updated_at varchar(32) NOT NULL, compact_profiles text NOT NULL, PRIMARY KEY (sync_id, tool_id))`,
  ];
}

/** The source's settings and projection version, as a plan reads them. */
export interface SourceState {
  readonly tenantId: string | null;
  readonly driftPolicy: string;
  readonly seq: number;
  readonly toolCount: number;
  readonly quarantinedCount: number;
}

export interface UpstreamStamp {
  readonly key: string;
  readonly name: string;
  readonly toolId: string | null;
  readonly definitionHash: string;
  readonly quarantineReason: string | null;
  readonly rawHash: string | null;
  readonly firstSeenAt: string;
}

/** The small columns of a served row: enough to decide whether it must be written again (never its content). */
export interface ToolStamp {
  readonly toolId: string;
  readonly tenantId: string | null;
  readonly safetyTier: string;
  readonly replayPolicy: string;
  readonly egress: string;
  readonly classified: boolean;
  readonly claims: string | null;
  readonly rowHash: string;
  readonly ingestNotes: string;
  readonly gateVersion: string;
  readonly compactKey: string;
  readonly definitionHash: string | null;
}

export interface DecisionStamp {
  readonly toolId: string;
  readonly safetyTier: string;
  readonly replayPolicy: string;
  readonly egress: string;
  readonly approvedHash: string | null;
}

/** Everything the swap needs besides the staged rows. All lists were computed against `seq`. */
export interface SwapPlan {
  readonly syncId: string;
  readonly source: string;
  readonly seq: number;
  readonly removedKeys: readonly string[];
  readonly unservedToolIds: readonly string[];
  /** Legacy upstream rows (stored before raw_hash existed) whose raw equals the listing: their hash is filled in. */
  readonly rawHashBackfill: ReadonlyArray<readonly [key: string, rawHash: string]>;
  readonly changes: readonly ChangeRow[];
  readonly quarantined: number;
  /** Whether any served row is written or deleted (then the catalog version is bumped). */
  readonly servedChanged: boolean;
  readonly stagedUpstream: boolean;
  readonly stagedTools: boolean;
}

export interface SwapResult {
  readonly outcome: 'ok' | 'stale';
  readonly served: number;
  /** The catalog version the swap committed, when it bumped it. */
  readonly version?: number;
}

const CHUNK = 400;

/** The reads and writes of a staged snapshot over one runner. Each method is one statement or one short transaction. */
export class SnapshotSql {
  constructor(private readonly q: SqlRunner) {}

  async sourceState(source: string): Promise<SourceState | null> {
    const rows = await this.q.all('SELECT tenant_id, drift_policy, projection_seq, tool_count, quarantined_count FROM mcp_source WHERE name = ?', [source]);
    if (!rows.length) return null;
    const r = rows[0];
    return {
      tenantId: (r.tenant_id as string | null) ?? null, driftPolicy: String(r.drift_policy), seq: Number(r.projection_seq), toolCount: Number(r.tool_count), quarantinedCount: Number(r.quarantined_count),
    };
  }

  /** Upstream rows of a source without `raw`, read in key order a chunk at a time (each statement stays short). */
  async upstreamStamps(source: string): Promise<UpstreamStamp[]> {
    const out: UpstreamStamp[] = [];
    for (let after = ''; ; ) {
      const rows = await this.q.all(
        `SELECT key, name, tool_id, definition_hash, quarantine_reason, raw_hash, first_seen_at FROM upstream_tool WHERE source_name = ? AND key > ? ORDER BY key LIMIT ${CHUNK}`,
        [source, after],
      );
      for (const r of rows) {
        out.push({
          key: String(r.key), name: String(r.name), toolId: (r.tool_id as string | null) ?? null, definitionHash: String(r.definition_hash),
          quarantineReason: (r.quarantine_reason as string | null) ?? null, rawHash: (r.raw_hash as string | null) ?? null, firstSeenAt: String(r.first_seen_at),
        });
      }
      if (rows.length < CHUNK) return out;
      after = String(rows[rows.length - 1].key);
    }
  }

  /** Stored listing of a source (raw texts) in key order from `after`: what derived refresh projects again. */
  async storedListing(source: string, after: string, limit: number): Promise<Array<{ key: string; raw: string }>> {
    const rows = await this.q.all(`SELECT key, raw FROM upstream_tool WHERE source_name = ? AND key > ? ORDER BY key LIMIT ${Math.max(1, Math.floor(limit))}`, [source, after]);
    return rows.map((r) => ({ key: String(r.key), raw: String(r.raw) }));
  }

  async rawOf(keys: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < keys.length; i += CHUNK) {
      const part = keys.slice(i, i + CHUNK);
      for (const r of await this.q.all(`SELECT key, raw FROM upstream_tool WHERE key IN (${marks(part.length)})`, part)) out.set(String(r.key), String(r.raw));
    }
    return out;
  }

  /** Served rows of a source: only the small columns (in tool_id order, a chunk at a time). */
  async toolStamps(source: string): Promise<ToolStamp[]> {
    const out: ToolStamp[] = [];
    for (let after = ''; ; ) {
      const rows = await this.q.all(
        `SELECT tool_id, tenant_id, safety_tier, replay_policy, egress, classified, claims, row_hash, ingest_notes, gate_version, compact_key, definition_hash
           FROM tool WHERE origin = ? AND source = 'mcp' AND tool_id > ? ORDER BY tool_id LIMIT ${CHUNK}`,
        [source, after],
      );
      for (const r of rows) out.push(toolStampOf(r));
      if (rows.length < CHUNK) return out;
      after = String(rows[rows.length - 1].tool_id);
    }
  }

  /** The host's decisions for a source's tools (toolIds `mcp.<source>.…`: a key range of the primary key). */
  async decisions(source: string): Promise<Map<string, DecisionStamp>> {
    // Byte order on PostgreSQL too (a linguistic collation would not bound the range by the literal prefix).
    const col = this.q.dialect === 'postgres' ? 'tool_id COLLATE "C"' : 'tool_id';
    const rows = await this.q.all(
      `SELECT tool_id, safety_tier, replay_policy, egress, approved_hash FROM tool_classification WHERE ${col} >= ? AND ${col} < ?`,
      [`mcp.${source}.`, `mcp.${source}/`],
    );
    return new Map(rows.map((r) => [String(r.tool_id), {
      toolId: String(r.tool_id), safetyTier: String(r.safety_tier), replayPolicy: String(r.replay_policy), egress: String(r.egress), approvedHash: (r.approved_hash as string | null) ?? null,
    }]));
  }

  /** Upstream stamps of some of a source's tools (by toolId): a projection scoped to the tools a decision touched. */
  async upstreamStampsOf(source: string, toolIds: readonly string[]): Promise<UpstreamStamp[]> {
    const out: UpstreamStamp[] = [];
    for (let i = 0; i < toolIds.length; i += CHUNK) {
      const part = toolIds.slice(i, i + CHUNK);
      const rows = await this.q.all(
        `SELECT key, name, tool_id, definition_hash, quarantine_reason, raw_hash, first_seen_at FROM upstream_tool WHERE source_name = ? AND tool_id IN (${marks(part.length)})`,
        [source, ...part],
      );
      for (const r of rows) {
        out.push({
          key: String(r.key), name: String(r.name), toolId: (r.tool_id as string | null) ?? null, definitionHash: String(r.definition_hash),
          quarantineReason: (r.quarantine_reason as string | null) ?? null, rawHash: (r.raw_hash as string | null) ?? null, firstSeenAt: String(r.first_seen_at),
        });
      }
    }
    return out;
  }

  async toolStampsOf(source: string, toolIds: readonly string[]): Promise<ToolStamp[]> {
    const out: ToolStamp[] = [];
    for (let i = 0; i < toolIds.length; i += CHUNK) {
      const part = toolIds.slice(i, i + CHUNK);
      const rows = await this.q.all(
        `SELECT tool_id, tenant_id, safety_tier, replay_policy, egress, classified, claims, row_hash, ingest_notes, gate_version, compact_key, definition_hash
           FROM tool WHERE origin = ? AND source = 'mcp' AND tool_id IN (${marks(part.length)})`,
        [source, ...part],
      );
      for (const r of rows) out.push(toolStampOf(r));
    }
    return out;
  }

  async decisionsOf(toolIds: readonly string[]): Promise<Map<string, DecisionStamp>> {
    const out = new Map<string, DecisionStamp>();
    for (let i = 0; i < toolIds.length; i += CHUNK) {
      const part = toolIds.slice(i, i + CHUNK);
      for (const r of await this.q.all(`SELECT tool_id, safety_tier, replay_policy, egress, approved_hash FROM tool_classification WHERE tool_id IN (${marks(part.length)})`, part)) {
        out.set(String(r.tool_id), { toolId: String(r.tool_id), safetyTier: String(r.safety_tier), replayPolicy: String(r.replay_policy), egress: String(r.egress), approvedHash: (r.approved_hash as string | null) ?? null });
      }
    }
    return out;
  }

  /** Writes served rows (insert or replace by toolId), in bounded statements. */
  async upsertTools(rows: readonly ToolRow[]): Promise<void> {
    await insertRows(this.q, 'tool', TOOL_COLUMNS, rows.map((r) => TOOL_COLUMNS.map((c) => r[c])), ['tool_id']);
  }

  async deleteTools(source: string, toolIds: readonly string[]): Promise<void> {
    for (let i = 0; i < toolIds.length; i += CHUNK) {
      const part = toolIds.slice(i, i + CHUNK);
      await this.q.run(`DELETE FROM tool WHERE origin = ? AND source = 'mcp' AND tool_id IN (${marks(part.length)})`, [source, ...part]);
    }
  }

  async servedCount(source: string): Promise<number> {
    return Number((await this.q.all("SELECT count(*) AS n FROM tool WHERE origin = ? AND source = 'mcp'", [source]))[0].n);
  }

  async setToolCount(source: string, count: number): Promise<void> {
    await this.q.run('UPDATE mcp_source SET tool_count = ? WHERE name = ? AND tool_count <> ?', [count, source, count]);
  }

  /**
   * The per-source projection lock (issue 12 defect 3), taken as the first statement of every transaction that
   * projects a source: it advances projection_seq, which on PostgreSQL holds the source row's lock until commit (so
   * projecting transactions of one source run one after the other, each reading what the previous committed) and on
   * SQLite happens inside the write lock BEGIN IMMEDIATE already took. The advanced value is what makes a staged
   * swap planned before it report `stale`. false: no such source.
   */
  async lockSource(source: string): Promise<boolean> {
    return (await this.q.run('UPDATE mcp_source SET projection_seq = projection_seq + 1 WHERE name = ?', [source])) === 1;
  }

  /** One bounded batch of staged rows, in its own short transaction (re-staging a key replaces it). */
  async stage(syncId: string, stagedAt: string, upstream: readonly UpstreamRow[], tools: readonly ToolRow[]): Promise<void> {
    await this.q.transaction(async (q) => {
      await insertRows(q, STAGE_UPSTREAM, ['sync_id', 'staged_at', ...UPSTREAM_COLUMNS], upstream.map((r) => [syncId, stagedAt, ...UPSTREAM_COLUMNS.map((c) => r[c])]), ['sync_id', 'key']);
      await insertRows(q, STAGE_TOOL, ['sync_id', 'staged_at', ...TOOL_COLUMNS], tools.map((r) => [syncId, stagedAt, ...TOOL_COLUMNS.map((c) => r[c])]), ['sync_id', 'tool_id']);
    });
  }

  /** Marks staged upstream rows quarantined and drops staged tool rows (names listed twice, found at the end). */
  async quarantineStaged(syncId: string, marked: ReadonlyArray<readonly [key: string, reason: string]>, dropTools: readonly string[]): Promise<void> {
    await this.q.transaction(async (q) => {
      for (const [key, reason] of marked) await q.run(`UPDATE ${STAGE_UPSTREAM} SET quarantine_reason = ? WHERE sync_id = ? AND key = ?`, [reason, syncId, key]);
      for (let i = 0; i < dropTools.length; i += CHUNK) {
        const part = dropTools.slice(i, i + CHUNK);
        await q.run(`DELETE FROM ${STAGE_TOOL} WHERE sync_id = ? AND tool_id IN (${marks(part.length)})`, [syncId, ...part]);
      }
    });
  }

  /**
   * Publishes a staged snapshot: one transaction that first claims the source at the planned projection_seq (or
   * reports `stale` and changes nothing), then copies staged rows, deletes what went away, writes the history and
   * counts, and bumps the catalog version when a served row changed.
   */
  async swap(p: SwapPlan): Promise<SwapResult> {
    return this.q.transaction(async (q) => {
      const claimed = await q.run('UPDATE mcp_source SET projection_seq = projection_seq + 1 WHERE name = ? AND projection_seq = ?', [p.source, p.seq]);
      if (claimed !== 1) return { outcome: 'stale', served: 0 };
      if (p.stagedUpstream) {
        const cols = UPSTREAM_COLUMNS.join(', ');
        await q.run(
          `INSERT INTO upstream_tool (${cols}) SELECT ${cols} FROM ${STAGE_UPSTREAM} WHERE sync_id = ? ON CONFLICT (key) DO UPDATE SET ${UPSTREAM_COLUMNS.filter((c) => c !== 'key').map((c) => `${c} = excluded.${c}`).join(', ')}`,
          [p.syncId],
        );
      }
      for (let i = 0; i < p.removedKeys.length; i += CHUNK) {
        const part = p.removedKeys.slice(i, i + CHUNK);
        await q.run(`DELETE FROM upstream_tool WHERE source_name = ? AND key IN (${marks(part.length)})`, [p.source, ...part]);
      }
      for (const [key, rawHash] of p.rawHashBackfill) await q.run('UPDATE upstream_tool SET raw_hash = ? WHERE key = ? AND raw_hash IS NULL', [rawHash, key]);
      if (p.stagedTools) {
        const cols = TOOL_COLUMNS.join(', ');
        await q.run(
          `INSERT INTO tool (${cols}) SELECT ${cols} FROM ${STAGE_TOOL} WHERE sync_id = ? ON CONFLICT (tool_id) DO UPDATE SET ${TOOL_COLUMNS.filter((c) => c !== 'tool_id').map((c) => `${c} = excluded.${c}`).join(', ')}`,
          [p.syncId],
        );
      }
      for (let i = 0; i < p.unservedToolIds.length; i += CHUNK) {
        const part = p.unservedToolIds.slice(i, i + CHUNK);
        await q.run(`DELETE FROM tool WHERE origin = ? AND source = 'mcp' AND tool_id IN (${marks(part.length)})`, [p.source, ...part]);
      }
      await insertRows(q, 'tool_change', CHANGE_COLUMNS, p.changes.map((c) => CHANGE_COLUMNS.map((k) => c[k])), null);
      const served = Number((await q.all("SELECT count(*) AS n FROM tool WHERE origin = ? AND source = 'mcp'", [p.source]))[0].n);
      await q.run('UPDATE mcp_source SET tool_count = ?, quarantined_count = ? WHERE name = ?', [served, p.quarantined, p.source]);
      const version = p.servedChanged ? await bumpVersion(q) : undefined;
      return { outcome: 'ok', served, ...(version !== undefined ? { version } : {}) };
    });
  }

  /** Removes a sync's staging rows, a bounded batch per statement (never one long delete). */
  async discard(syncId: string): Promise<void> {
    for (const table of [STAGE_TOOL, STAGE_UPSTREAM]) {
      const key = table === STAGE_TOOL ? 'tool_id' : 'key';
      for (;;) {
        const rows = await this.q.all(`SELECT ${key} AS k FROM ${table} WHERE sync_id = ? LIMIT ${CHUNK}`, [syncId]);
        if (!rows.length) break;
        const ks = rows.map((r) => String(r.k));
        await this.q.run(`DELETE FROM ${table} WHERE sync_id = ? AND ${key} IN (${marks(ks.length)})`, [syncId, ...ks]);
      }
    }
  }

  /** Staging rows older than `before` (left by a process that died mid-sync). */
  async discardOlderThan(before: string): Promise<void> {
    const ids = await this.q.all(`SELECT DISTINCT sync_id FROM ${STAGE_UPSTREAM} WHERE staged_at < ? UNION SELECT DISTINCT sync_id FROM ${STAGE_TOOL} WHERE staged_at < ?`, [before, before]);
    for (const r of ids) await this.discard(String(r.sync_id));
  }
}

/**
 * UPDATE catalog_state and, on PostgreSQL, NOTIFY the replicas with the version written (as bumpCatalogVersion does
 * inside TypeORM); that version goes back to the process so its generation takes this change once.
 */
async function bumpVersion(q: SqlRunner): Promise<number | undefined> {
  const rows = await q.all(BUMP_VERSION);
  const version = rows.length ? Number(rows[0].version) : undefined;
  if (q.dialect === 'postgres') await q.all('SELECT pg_notify(?, ?)', [CATALOG_CHANNEL, notifyPayload(version)]);
  return version;
}

function toolStampOf(r: Record<string, unknown>): ToolStamp {
  return {
    toolId: String(r.tool_id), tenantId: (r.tenant_id as string | null) ?? null, safetyTier: String(r.safety_tier), replayPolicy: String(r.replay_policy), egress: String(r.egress),
    classified: Boolean(r.classified), claims: (r.claims as string | null) ?? null, rowHash: String(r.row_hash), ingestNotes: String(r.ingest_notes), gateVersion: String(r.gate_version),
    compactKey: String(r.compact_key), definitionHash: (r.definition_hash as string | null) ?? null,
  };
}

function marks(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** Multi-row INSERT in slices that stay under both backends' parameter limits; `conflict`: upsert on that key. */
async function insertRows(q: SqlRunner, table: string, cols: readonly string[], rows: ReadonlyArray<readonly unknown[]>, conflict: readonly string[] | null): Promise<void> {
  const per = Math.max(1, Math.floor(900 / cols.length));
  const set = conflict ? cols.filter((c) => !conflict.includes(c)).map((c) => `${c} = excluded.${c}`).join(', ') : '';
  for (let i = 0; i < rows.length; i += per) {
    const part = rows.slice(i, i + per);
    const values = part.map(() => `(${marks(cols.length)})`).join(', ');
    await q.run(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${values}${conflict ? ` ON CONFLICT (${conflict.join(', ')}) DO UPDATE SET ${set}` : ''}`, part.flat());
  }
}
