import { sha256Hex } from '../shared/sha256';
import type { Egress, ReplayPolicy, SafetyTier, ToolSource } from '../catalog/descriptor';
import type { ToolRecord } from '../catalog/tool-record';
import { toolTierRank } from './grant-match';
import { ToolEntity } from './tool.entity';

export function toRecord(e: ToolEntity): ToolRecord {
  return {
    toolId: e.toolId,
    source: e.source as ToolSource,
    origin: e.origin,
    tenantId: e.tenantId,
    name: e.name,
    title: e.title,
    description: e.description,
    inputSchemaText: e.inputSchema,
    outputSchemaText: e.outputSchema,
    classification: { safetyTier: e.safetyTier as SafetyTier, replayPolicy: e.replayPolicy as ReplayPolicy, egress: e.egress as Egress },
    classified: Boolean(e.classified),
    claimsText: e.claims,
    contentHash: e.contentHash,
    compactSchemaText: e.compactSchema,
    compactNotesText: e.compactNotes,
    compactKey: e.compactKey,
    compactProfilesText: e.compactProfiles,
    ingestNotesText: e.ingestNotes,
    gateVersion: e.gateVersion,
  };
}

/**
 * A stamp of a row's stored content: every stored field a descriptor is made of. Written with the row and only
 * ever compared with the stored value (issue 11 defect 5). It is not the hash of the served bytes: those come from
 * the running code, and the ETag is computed from them (src/cache/catalog-cache.ts), so a new serializer can
 * never make stored state disagree with the code.
 */
function rowHashOf(r: ToolRecord): string {
  const c = r.classification;
  return sha256Hex(JSON.stringify([r.toolId, r.source, r.origin, r.tenantId, r.name, r.title, r.description, r.inputSchemaText, r.outputSchemaText, c.safetyTier, c.replayPolicy, c.egress, r.classified, r.compactSchemaText, r.compactProfilesText]));
}

export function toEntity(r: ToolRecord, updatedAt: string, definitionHash: string | null = null): ToolEntity {
  const e = new ToolEntity();
  e.toolId = r.toolId;
  e.source = r.source;
  e.origin = r.origin;
  e.tenantId = r.tenantId;
  e.name = r.name;
  e.title = r.title;
  e.description = r.description;
  e.inputSchema = r.inputSchemaText;
  e.outputSchema = r.outputSchemaText;
  e.safetyTier = r.classification.safetyTier;
  e.tierRank = toolTierRank(r.classification.safetyTier);
  e.replayPolicy = r.classification.replayPolicy;
  e.egress = r.classification.egress;
  e.classified = r.classified;
  e.claims = r.claimsText;
  e.contentHash = r.contentHash;
  e.compactSchema = r.compactSchemaText;
  e.compactNotes = r.compactNotesText;
  e.compactKey = r.compactKey;
  e.compactProfiles = r.compactProfilesText;
  e.rowHash = rowHashOf(r);
  e.ingestNotes = r.ingestNotesText;
  e.gateVersion = r.gateVersion;
  e.definitionHash = definitionHash;
  e.updatedAt = updatedAt;
  return e;
}
