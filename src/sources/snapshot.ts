import { sha256Hex } from '../shared/sha256';
import { CatalogError } from '../catalog/catalog.errors';
import { redactCredentials } from '../catalog/credentials';
import type { CredentialFinding } from '../catalog/credential-scrub';
import { definitionHash as definitionHashOf } from '../catalog/definition-hash';
import { type GatedTool, gateTool } from '../catalog/ingest';
import type { IngestBounds } from '../catalog/ingest-bounds';
import type { ToolDefinition } from '../catalog/tool-record';
import { mcpToolId } from './mcp-tool-id';

/**
 * Turns one complete `tools/list` result (all pages) into what the catalog keeps: each valid tool as
 * received, and each invalid one quarantined with its reason. Pure; one bad tool never affects another.
 */
export interface UpstreamTool {
  /** sha256(source, name): stable key even for names that cannot form a toolId. */
  readonly key: string;
  readonly name: string;
  readonly toolId: string | null;
  /** The tool exactly as received (JSON text), bounded by the transport's message limit. Shown to admins redacted. */
  readonly rawText: string;
  /** The one definition hash (catalog/definition-hash.ts, issue 13) of the entry as listed; drift detection compares it. '' for a non-object entry. */
  readonly definitionHash: string;
  /** Why it is not served. Never quotes credential material (issue 11): names and gate messages are redacted. */
  readonly quarantineReason: string | null;
  readonly findings: readonly CredentialFinding[];
  /** The ingest gate's result for a tool that passed it (in memory only: the projection reuses it). */
  readonly gated: GatedTool | null;
}

export function keyOf(sourceName: string, name: string): string {
  return sha256Hex(`${sourceName}\u0000${name}`);
}

export function toDefinition(sourceName: string, tenantId: string | null, toolId: string, raw: Record<string, unknown>): ToolDefinition {
  return {
    source: 'mcp',
    origin: sourceName,
    tenantId,
    toolId,
    name: raw.name,
    title: raw.title ?? undefined,
    description: raw.description ?? undefined,
    inputSchema: raw.inputSchema,
    outputSchema: raw.outputSchema ?? undefined,
    // MCP hints are kept only as claims for admins (TC-DESC-5); classification never reads them.
    claims: raw.annotations ?? undefined,
  };
}

export function buildSnapshot(sourceName: string, tenantId: string | null, rawTools: readonly unknown[], bounds?: IngestBounds): UpstreamTool[] {
  const byName = new Map<string, UpstreamTool[]>();
  const out: UpstreamTool[] = [];
  rawTools.forEach((raw, index) => {
    const t = examine(sourceName, tenantId, raw, index, bounds);
    out.push(t);
    byName.set(t.key, [...(byName.get(t.key) ?? []), t]);
  });
  // A name listed twice with different definitions is ambiguous: every copy is quarantined, so the outcome
  // does not depend on list order (TC-DESC-2). Identical copies collapse into one.
  const result: UpstreamTool[] = [];
  const seen = new Set<string>();
  for (const t of out) {
    if (seen.has(t.key)) continue;
    seen.add(t.key);
    const copies = byName.get(t.key)!;
    const distinct = new Set(copies.map((c) => c.rawText));
    // The reason quotes the name redacted first, then cut (a cut token would no longer look like one).
    const quoted = JSON.stringify(redactCredentials(t.name).slice(0, 100));
    result.push(distinct.size > 1 ? { ...t, gated: null, quarantineReason: `the server listed ${copies.length} different tools named ${quoted}` } : t);
  }
  return result;
}

/**
 * One listed tool from its JSON text, as the ingest workers examine it (issue 12: the text is what crosses the thread
 * boundary, and what is stored). `rawHash` lets a later sync compare listings without reading stored texts back.
 */
export interface ExaminedTool extends Omit<UpstreamTool, 'rawText'> {
  readonly rawHash: string;
}

export function examineText(sourceName: string, tenantId: string | null, rawText: string, index: number, bounds?: IngestBounds): ExaminedTool {
  let raw: unknown;
  try {
    raw = JSON.parse(rawText);
  } catch {
    raw = rawText; // not JSON: examined as the non-object it is
  }
  const { rawText: _text, ...t } = examine(sourceName, tenantId, raw, index, bounds, rawText);
  return { ...t, rawHash: rawHashOf(rawText) };
}

export function rawHashOf(rawText: string): string {
  return sha256Hex(rawText);
}

/** The JSON text a listed tool is stored and examined as. */
export function rawTextOf(raw: unknown): string {
  return safeJson(raw);
}

function examine(sourceName: string, tenantId: string | null, raw: unknown, index: number, bounds?: IngestBounds, text?: string): UpstreamTool {
  const rawText = text ?? safeJson(raw);
  const rec = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  const name = rec && typeof rec.name === 'string' ? rec.name : `#${index}`;
  const base = { key: keyOf(sourceName, name), name: name.slice(0, 512), rawText, findings: [] as CredentialFinding[], gated: null };
  const definitionHash = rec ? definitionHashOf(rec) : '';
  if (!rec) return { ...base, toolId: null, definitionHash, quarantineReason: 'a tools/list entry that is not an object' };
  if (typeof rec.name !== 'string') return { ...base, toolId: null, definitionHash, quarantineReason: 'the tool has no string name' };
  const toolId = mcpToolId(sourceName, rec.name);
  if (!toolId) return { ...base, toolId: null, definitionHash, quarantineReason: 'the name cannot form a toolId (empty, or too long once escaped)' };
  try {
    const gated = gateTool(toDefinition(sourceName, tenantId, toolId, rec), bounds);
    return { ...base, toolId, definitionHash, quarantineReason: null, findings: gated.findings, gated };
  } catch (err) {
    if (!(err instanceof CatalogError)) throw err;
    // A gate message may quote what it refused (a pattern, a property name): it is stored and shown redacted.
    return { ...base, toolId, definitionHash, quarantineReason: redactCredentials(err.message) };
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '"<unserialisable>"';
  }
}
