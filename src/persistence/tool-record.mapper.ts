import { createHash } from 'node:crypto';
import type { Egress, ReplayPolicy, SafetyTier, ToolSource } from '../catalog/descriptor';
import { serializeCompact, serializeStandard } from '../catalog/projection';
import type { ToolRecord } from '../catalog/tool-record';
import { tierRank } from '../catalog/descriptor';
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
  };
}

/** Content address of the served bytes of both views. */
export function servedHashOf(r: ToolRecord): string {
  return createHash('sha256').update(serializeStandard(r)).update('\n').update(serializeCompact(r)).digest('hex');
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
  e.tierRank = tierRank(r.classification.safetyTier);
  e.replayPolicy = r.classification.replayPolicy;
  e.egress = r.classification.egress;
  e.classified = r.classified;
  e.claims = r.claimsText;
  e.contentHash = r.contentHash;
  e.compactSchema = r.compactSchemaText;
  e.compactNotes = r.compactNotesText;
  e.compactKey = r.compactKey;
  e.servedHash = servedHashOf(r);
  e.definitionHash = definitionHash;
  e.updatedAt = updatedAt;
  return e;
}
