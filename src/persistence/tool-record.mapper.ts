import type { Egress, ReplayPolicy, SafetyTier, ToolSource } from '../catalog/descriptor';
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
  };
}

export function toEntity(r: ToolRecord, updatedAt: string): ToolEntity {
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
  e.updatedAt = updatedAt;
  return e;
}
