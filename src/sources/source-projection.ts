import { In, type EntityManager } from 'typeorm';
import type { Classification } from '../catalog/descriptor';
import { compactKeyOf } from '../catalog/compact-view';
import { type GatedTool, INGEST_GATE_VERSION, prepareTool, withDecision } from '../catalog/ingest';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { ClassificationEntity } from '../persistence/classification.entity';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import { ToolEntity } from '../persistence/tool.entity';
import { toEntity } from '../persistence/tool-record.mapper';
import { UpstreamToolEntity } from '../persistence/upstream-tool.entity';
import { nowIso } from '../shared/clock';
import { toDefinition } from './snapshot';

/** Review state of an MCP tool: `pending` when its definition changed after the host classified it. */
export type ReviewState = 'none' | 'pending';

export function reviewStateOf(decision: ClassificationEntity | undefined, definitionHash: string): ReviewState {
  return decision && decision.approvedHash !== null && decision.approvedHash !== definitionHash ? 'pending' : 'none';
}

/** A tool of the listing a snapshot is applying, as the ingest gate left it (see gateTool). */
export interface GatedListing {
  /** The listing's JSON text of the tool: reused only for the upstream row holding exactly this text. */
  readonly rawText: string;
  readonly gated: GatedTool;
}

/**
 * Rebuilds the served tools of one MCP source from its upstream tools, the host's decisions and the
 * source's drift policy (issue 4, drift review). A decision applies only to the definition it was made for:
 * a changed tool is served as unclassified (`write`, TC-DESC-6) under `keep-serving`, or not at all under
 * `withhold`, until an admin approves it. Quarantined tools are never served. Writes only what changed;
 * bumps the catalog version when anything did. Runs inside the caller's transaction. `gatedNow`: the gate's
 * results for the listing being applied (by toolId), so that a sync gates each tool once.
 */
export async function projectSource(m: EntityManager, sourceName: string, gatedNow?: ReadonlyMap<string, GatedListing>): Promise<{ served: number; changed: boolean }> {
  const src = await m.getRepository(McpSourceEntity).findOne({ where: { name: sourceName } });
  const current = await m.getRepository(ToolEntity).find({ where: { origin: sourceName, source: 'mcp' } });
  const currentById = new Map(current.map((t) => [t.toolId, t]));
  const upstream = src ? (await m.getRepository(UpstreamToolEntity).find({ where: { sourceName } })).filter((u) => u.quarantineReason === null && u.toolId) : [];
  const ids = upstream.map((u) => u.toolId!);
  const decisions = new Map<string, ClassificationEntity>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const d of await m.getRepository(ClassificationEntity).find({ where: { toolId: In(ids.slice(i, i + 500)) } })) decisions.set(d.toolId, d);
  }
  const served = new Set<string>();
  const writes: ToolEntity[] = [];
  const now = nowIso();
  for (const u of upstream) {
    const d = decisions.get(u.toolId!);
    const pending = reviewStateOf(d, u.definitionHash) === 'pending';
    if (pending && src!.driftPolicy === 'withhold') continue;
    const decision: Classification | null = d && !pending ? { safetyTier: d.safetyTier, replayPolicy: d.replayPolicy, egress: d.egress } as Classification : null;
    const old = currentById.get(u.toolId!);
    const raw = JSON.parse(u.raw) as Record<string, unknown>;
    if (old && unchanged(old, u.definitionHash, src!.tenantId, decision) && old.claims === (raw.annotations === undefined ? null : JSON.stringify(raw.annotations))) {
      served.add(old.toolId); // same definition, decision and tenant: nothing to recompute
      continue;
    }
    let entity: ToolEntity;
    const known = gatedNow?.get(u.toolId!);
    try {
      // The snapshot being applied already gated this very listing: only the decision is left to apply.
      const prepared = known && known.rawText === u.raw ? withDecision(known.gated, decision) : prepareTool(toDefinition(src!.name, src!.tenantId, u.toolId!, raw), decision);
      entity = toEntity(prepared.record, now, u.definitionHash);
    } catch {
      continue; // checked at snapshot time; a tool that no longer passes the gate is simply not served
    }
    served.add(entity.toolId);
    if (!old || old.rowHash !== entity.rowHash || old.tenantId !== entity.tenantId || old.claims !== entity.claims || old.gateVersion !== entity.gateVersion || old.ingestNotes !== entity.ingestNotes) {
      writes.push(entity);
    }
  }
  const stale = current.filter((t) => !served.has(t.toolId)).map((t) => t.toolId);
  for (let i = 0; i < writes.length; i += 200) await m.getRepository(ToolEntity).save(writes.slice(i, i + 200));
  for (let i = 0; i < stale.length; i += 500) await m.getRepository(ToolEntity).delete({ toolId: In(stale.slice(i, i + 500)) });
  const changed = writes.length > 0 || stale.length > 0;
  if (src && src.toolCount !== served.size) await m.getRepository(McpSourceEntity).update({ name: sourceName }, { toolCount: served.size });
  if (changed) await bumpCatalogVersion(m);
  return { served: served.size, changed };
}

function unchanged(row: ToolEntity, definitionHash: string, tenantId: string | null, decision: Classification | null): boolean {
  const rowDecision = row.classified ? `${row.safetyTier}|${row.replayPolicy}|${row.egress}` : null;
  const wanted = decision ? `${decision.safetyTier}|${decision.replayPolicy}|${decision.egress}` : null;
  // A row made by another gate or compactor version is derived again (issue 11 defect 5: derived state follows the code).
  return (
    row.definitionHash === definitionHash && row.tenantId === tenantId && rowDecision === wanted &&
    row.gateVersion === INGEST_GATE_VERSION && row.compactKey === compactKeyOf(row.inputSchema)
  );
}
