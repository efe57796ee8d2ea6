import { In, type EntityManager } from 'typeorm';
import { CatalogError } from '../catalog/catalog.errors';
import { redactText } from '../catalog/credential-redaction';
import { classify } from '../catalog/classification';
import { prepareTool } from '../catalog/ingest';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import type { ClassificationEntity } from '../persistence/classification.entity';
import { ToolEntity } from '../persistence/tool.entity';
import { toEntity, toRecord } from '../persistence/tool-record.mapper';
import { nowIso } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { toDefinition } from './snapshot';
import { contentIsCurrent, decisionFor, rowIsCurrent, toolRowOf } from './snapshot-plan';
import { type Dialect, SnapshotSql, type ToolRow } from './snapshot-sql';
import { typeormRunner } from './snapshot-store';

/** Review state of an MCP tool: `pending` when its definition changed after the host classified it. */
export type ReviewState = 'none' | 'pending';

export function reviewStateOf(decision: Pick<ClassificationEntity, 'approvedHash'> | undefined, definitionHash: string): ReviewState {
  return decision && decision.approvedHash !== null && decision.approvedHash !== definitionHash ? 'pending' : 'none';
}

function sqlIn(m: EntityManager): SnapshotSql {
  const dialect: Dialect = m.connection.options.type === 'postgres' ? 'postgres' : 'sqlite';
  return new SnapshotSql(typeormRunner(m.connection, dialect, m.queryRunner));
}

/** The source an MCP toolId belongs to (`mcp.<source>.<name>`: source names hold no dot), or null. */
export function sourceOfToolId(toolId: string): string | null {
  const m = /^mcp\.([a-z0-9][a-z0-9-]{0,31})\./.exec(toolId);
  return m ? m[1] : null;
}

/**
 * Takes the per-source projection lock (SnapshotSql.lockSource) in the caller's transaction. Issue 12 defect 3: call
 * it FIRST in every transaction that projects a source, before reading anything the projection depends on
 * (decisions, upstream rows, source settings), so that what it reads is what the previous holder committed and no
 * staged sync planned before it can publish over it. A second call in the same transaction is harmless. false: the
 * source does not exist (any more).
 */
export async function lockSourceProjection(m: EntityManager, sourceName: string): Promise<boolean> {
  return sqlIn(m).lockSource(sourceName);
}

/**
 * Rebuilds the served tools of one MCP source from its stored upstream tools, the host's decisions and the source's
 * drift policy (issue 4, drift review), inside the caller's transaction (whose first statement should have been
 * lockSourceProjection; this takes it too). A decision applies only to the definition it was made for: a changed
 * tool is served as unclassified (`write`, TC-DESC-6) under `keep-serving`, or not at all under `withhold`, until an
 * admin approves it. Quarantined tools are never served. Writes only what changed; bumps the catalog version when
 * anything did.
 *
 * Issue 12: what it reads is small. Stamps (ids, hashes, versions, the decision columns) decide what must be
 * written; a row whose definition and gate version are current is derived from the stored row (a decision or tenant
 * change needs no gating), and only a row that must be derived anew reads its stored listing and passes the gate.
 * `only`: the tools a decision touched (classify, unclassify, approve): everything else is left as it is, so a
 * reclassification of one tool costs one tool whatever the size of its source. Whole listings are projected by the
 * staged snapshot (SourceSnapshotService), never here. A stored tool the current gate refuses is not served, and `log`
 * says which and why (issue 13: never skipped silently).
 */
export async function projectSource(
  m: EntityManager,
  sourceName: string,
  log: Logger,
  opts: { only?: readonly string[] } = {},
): Promise<{ served: number; changed: boolean }> {
  const sql = sqlIn(m);
  const exists = await sql.lockSource(sourceName);
  const state = exists ? await sql.sourceState(sourceName) : null;
  const only = opts.only;
  const rows = new Map((only ? await sql.toolStampsOf(sourceName, only) : await sql.toolStamps(sourceName)).map((r) => [r.toolId, r]));
  if (!state) {
    // No source any more: every tool it served goes.
    await sql.deleteTools(sourceName, [...rows.keys()]);
    if (rows.size) await bumpCatalogVersion(m);
    return { served: 0, changed: rows.size > 0 };
  }
  const upstream = (only ? await sql.upstreamStampsOf(sourceName, only) : await sql.upstreamStamps(sourceName)).filter((u) => u.quarantineReason === null && u.toolId);
  const decisions = only ? await sql.decisionsOf(only) : await sql.decisions(sourceName);
  const served = new Set<string>();
  const derive: Array<{ toolId: string; definitionHash: string; decision: ReturnType<typeof decisionFor>['decision'] }> = [];
  const regate: Array<{ key: string; name: string; toolId: string; definitionHash: string; decision: ReturnType<typeof decisionFor>['decision'] }> = [];
  for (const u of upstream) {
    const toolId = u.toolId!;
    const { served: isServed, decision } = decisionFor(decisions.get(toolId), u.definitionHash, state.driftPolicy);
    if (!isServed) continue;
    served.add(toolId);
    const row = rows.get(toolId);
    if (row && rowIsCurrent(row, u.definitionHash, state, decision, row.claims)) continue;
    // Same definition and gate version: the stored row is the gate's output; only decision and tenant change.
    if (row && contentIsCurrent(row, u.definitionHash)) derive.push({ toolId, definitionHash: u.definitionHash, decision });
    else regate.push({ key: u.key, name: u.name, toolId, definitionHash: u.definitionHash, decision });
  }
  const now = nowIso();
  const writes: ToolRow[] = [];
  for (let i = 0; i < derive.length; i += 200) {
    const part = derive.slice(i, i + 200);
    const full = new Map((await m.getRepository(ToolEntity).find({ where: { toolId: In(part.map((d) => d.toolId)) } })).map((e) => [e.toolId, e]));
    for (const d of part) {
      const e = full.get(d.toolId);
      if (!e) continue;
      const record = { ...toRecord(e), tenantId: state.tenantId, classification: classify('mcp', d.decision), classified: d.decision !== null };
      writes.push(toolRowOf(toEntity(record, now, d.definitionHash)));
    }
  }
  for (let i = 0; i < regate.length; i += 50) {
    const part = regate.slice(i, i + 50);
    const raws = await sql.rawOf(part.map((r) => r.key));
    for (const r of part) {
      const raw = raws.get(r.key);
      if (raw === undefined) continue;
      try {
        const prepared = prepareTool(toDefinition(sourceName, state.tenantId, r.toolId, JSON.parse(raw) as Record<string, unknown>), r.decision);
        writes.push(toolRowOf(toEntity(prepared.record, now, r.definitionHash)));
      } catch (err) {
        if (!(err instanceof CatalogError)) throw err;
        // Checked at snapshot time, so the stored listing passed an older gate: the current one refuses it, and the
        // tool is not served. Names and the gate's message may quote what it refused: both are redacted (issue 11).
        served.delete(r.toolId);
        log.warn(
          { source: sourceName, tool: redactText(r.name), toolId: redactText(r.toolId), reason: redactText(err.message) },
          'stored MCP tool no longer passes the ingest gate; it is not served',
        );
      }
    }
  }
  const changedRows = writes.filter((w) => {
    const old = rows.get(String(w.tool_id));
    return !old || old.rowHash !== w.row_hash || old.tenantId !== w.tenant_id || old.claims !== w.claims || old.gateVersion !== w.gate_version || old.ingestNotes !== w.ingest_notes;
  });
  const stale = [...rows.keys()].filter((id) => !served.has(id));
  await sql.upsertTools(changedRows);
  await sql.deleteTools(sourceName, stale);
  const changed = changedRows.length > 0 || stale.length > 0;
  const count = await sql.servedCount(sourceName);
  await sql.setToolCount(sourceName, count);
  if (changed) await bumpCatalogVersion(m);
  return { served: count, changed };
}
