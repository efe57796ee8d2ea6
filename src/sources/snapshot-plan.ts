import { COMPACTOR_VERSION } from '../catalog/compact';
import type { Classification } from '../catalog/descriptor';
import { type GatedTool, INGEST_GATE_VERSION, withDecision } from '../catalog/ingest';
import type { ToolEntity } from '../persistence/tool.entity';
import { toEntity } from '../persistence/tool-record.mapper';
import type { DecisionStamp, SourceState, ToolRow, ToolStamp } from './snapshot-sql';

/**
 * What the served row of one MCP tool should be, decided from small stamps only (issue 12: a projection of unchanged
 * tools stays cheap; it never reads stored schemas or listings back). The host's decision applies only to the
 * definition it was made for (drift review): a changed definition is served unclassified under `keep-serving` and
 * not at all under `withhold`.
 */
export function decisionFor(d: DecisionStamp | undefined, definitionHash: string, driftPolicy: string): { served: boolean; decision: Classification | null } {
  const pending = d !== undefined && d.approvedHash !== null && d.approvedHash !== definitionHash;
  if (pending && driftPolicy === 'withhold') return { served: false, decision: null };
  return { served: true, decision: d && !pending ? ({ safetyTier: d.safetyTier, replayPolicy: d.replayPolicy, egress: d.egress } as Classification) : null };
}

/**
 * Whether a stored row already is what this definition, decision, tenant and claims would produce. A row made by
 * another gate or compactor version is derived again (issue 11 defect 5). The compact form is checked by its
 * version suffix: its hash part is a function of the stored input schema, which is a function of the definition and
 * the gate version, both compared here.
 */
export function rowIsCurrent(row: ToolStamp, definitionHash: string, state: Pick<SourceState, 'tenantId'>, decision: Classification | null, claims: string | null): boolean {
  const rowDecision = row.classified ? `${row.safetyTier}|${row.replayPolicy}|${row.egress}` : null;
  const wanted = decision ? `${decision.safetyTier}|${decision.replayPolicy}|${decision.egress}` : null;
  return contentIsCurrent(row, definitionHash) && row.tenantId === state.tenantId && rowDecision === wanted && row.claims === claims;
}

/** Whether a stored row is the current gate's output for this definition (then only decision and tenant may differ). */
export function contentIsCurrent(row: ToolStamp, definitionHash: string): boolean {
  return row.definitionHash === definitionHash && row.gateVersion === INGEST_GATE_VERSION && row.compactKey.endsWith(`:${COMPACTOR_VERSION}`);
}

/** The served entity of a gated tool under a decision, and whether it differs from the stored row's stamp. */
export function servedEntity(gated: GatedTool, decision: Classification | null, definitionHash: string, now: string, old: ToolStamp | undefined): { entity: ToolEntity; differs: boolean } {
  const entity = toEntity(withDecision(gated, decision).record, now, definitionHash);
  const differs = !old || old.rowHash !== entity.rowHash || old.tenantId !== entity.tenantId || old.claims !== entity.claims || old.gateVersion !== entity.gateVersion || old.ingestNotes !== entity.ingestNotes;
  return { entity, differs };
}

export function toolRowOf(e: ToolEntity): ToolRow {
  return {
    tool_id: e.toolId, source: e.source, origin: e.origin, tenant_id: e.tenantId, name: e.name, title: e.title, description: e.description,
    input_schema: e.inputSchema, output_schema: e.outputSchema, safety_tier: e.safetyTier, tier_rank: e.tierRank, replay_policy: e.replayPolicy, egress: e.egress,
    classified: e.classified, claims: e.claims, content_hash: e.contentHash, compact_schema: e.compactSchema, compact_notes: e.compactNotes, compact_key: e.compactKey, compact_profiles: e.compactProfiles,
    row_hash: e.rowHash, ingest_notes: e.ingestNotes, gate_version: e.gateVersion, definition_hash: e.definitionHash, updated_at: e.updatedAt,
  };
}

/** Rough byte size of a staged row, to bound a staging batch. */
export function rowBytes(r: Readonly<Record<string, unknown>>): number {
  let n = 0;
  for (const v of Object.values(r)) n += typeof v === 'string' ? v.length : 8;
  return n;
}
