import { CatalogError, CatalogErrorCode } from './catalog.errors';
import { classify } from './classification';
import { profileProseIsClean, scrubCompactView } from './credential-compact-scan';
import { type CredentialFinding, scrubSchema, scrubText } from './credential-scrub';
import { containsCredential } from './credentials';
import type { Classification, JsonObject } from './descriptor';
import { type IngestBounds, DEFAULT_INGEST_BOUNDS, jsonDepth } from './ingest-bounds';
import { compactFor, profilesTextFor } from './compact-view';
import { compact } from './compact';
import { definitionHash } from './definition-hash';
import { schemaProblem } from './json-schema-check';
import { isValidToolId } from './tool-id';
import type { IngestNote, ToolDefinition, ToolRecord } from './tool-record';

/**
 * The version of what this gate does to a definition (bounds, repairs, credential removal). Served rows are
 * derived from definitions by it, so a row made by another version is derived again at start
 * (services/derived-refresh.ts), and test/pins/derivation-version.pin.test.ts fails when the gate's output on
 * its corpus changes without a new version here. History: '' (before issue 11), '2' (issue 11: typeless roots
 * repaired, decoded credential forms), '3' (issue 13: a row's contentHash is the one definition hash,
 * catalog/definition-hash.ts, of the definition as given, no longer a hash of the gate's output).
 */
export const INGEST_GATE_VERSION = '3';

export interface PreparedTool {
  readonly record: ToolRecord;
  /** Credential material removed on the way in: to be logged (place and kind only), never served. */
  readonly findings: readonly CredentialFinding[];
}

/** A tool that passed the ingest gate: everything but the host's classification, which withDecision adds. */
export interface GatedTool {
  readonly unclassified: Omit<ToolRecord, 'classification' | 'classified'>;
  /** Credential material removed on the way in: to be logged (place and kind only), never served. */
  readonly findings: readonly CredentialFinding[];
}

/**
 * The single ingest gate every source goes through. Checks bounds and shape, removes credential material
 * (TC-DESC-4), applies the host's classification (TC-DESC-5/6) and produces the stored record. Refusal is a
 * CatalogError(INVARIANT_VIOLATION or BAD_USER_INPUT) whose message names the problem.
 */
export function prepareTool(
  def: ToolDefinition,
  hostDecision: Classification | null,
  bounds: IngestBounds = DEFAULT_INGEST_BOUNDS,
): PreparedTool {
  return withDecision(gateTool(def, bounds), hostDecision);
}

/**
 * The gate alone (all of prepareTool but the classification). An MCP sync gates each listed tool once, when it
 * examines the listing, and hands the result to the projection, which only adds each tool's decision.
 */
export function gateTool(def: ToolDefinition, bounds: IngestBounds = DEFAULT_INGEST_BOUNDS): GatedTool {
  const findings: CredentialFinding[] = [];
  if (!isValidToolId(def.toolId)) refuse(`toolId ${JSON.stringify(def.toolId)} is not a valid tool id`);
  const name = requireText(def.name, 'name', bounds.maxNameLength, true);
  if (containsCredential(name)) refuse('name contains credential material');
  const title = def.title === undefined || def.title === null ? null : scrubText(requireText(def.title, 'title', bounds.maxTitleLength, false), '/title', findings);
  const description = scrubText(
    def.description === undefined || def.description === null ? '' : requireText(def.description, 'description', bounds.maxDescriptionLength, false),
    '/description',
    findings,
  );
  const notes: IngestNote[] = [];
  const inputSchema = scrubSchema(objectRoot(requireSchema(def.inputSchema, 'inputSchema', bounds), notes), '/inputSchema', findings);
  const outputSchema =
    def.outputSchema === undefined || def.outputSchema === null
      ? null
      : scrubSchema(requireSchema(def.outputSchema, 'outputSchema', bounds), '/outputSchema', findings);
  const inputSchemaText = JSON.stringify(inputSchema);
  const outputSchemaText = outputSchema === null ? null : JSON.stringify(outputSchema);
  const claimsText = def.claims === undefined || def.claims === null ? null : boundedJson(def.claims, bounds);
  const compactForm = compactFor(inputSchemaText);
  const compactSchemaText = scrubCompactView(compactForm.schemaText, findings); // scanned as served (TC-DESC-4)
  // issue 16: the per-provider profiles, computed here once per (schema hash, compactor version, profile), each scanned as served
  const profileFindings: CredentialFinding[] = [];
  const compactProfilesText = profilesTextFor(def.toolId, compactForm, compactSchemaText, {
    scrub: (text) => scrubCompactView(text, profileFindings),
    isClean: profileProseIsClean,
  });
  // the profiles repeat the neutral view's prose: a finding is logged once per place and kind, not once per profile
  const seen = new Set(findings.map(findingKey));
  for (const f of profileFindings) if (!seen.has(findingKey(f))) (seen.add(findingKey(f)), findings.push(f));
  return {
    unclassified: {
      toolId: def.toolId,
      source: def.source,
      origin: def.origin,
      tenantId: def.tenantId ?? null,
      name,
      title,
      description,
      inputSchemaText,
      outputSchemaText,
      claimsText,
      contentHash: definitionHash(def), // of the definition as given (issue 13), not of what the gate made of it
      compactSchemaText,
      compactNotesText: JSON.stringify(compactForm.notes),
      compactKey: compactForm.key,
      compactProfilesText,
      ingestNotesText: JSON.stringify(notes),
      gateVersion: INGEST_GATE_VERSION,
    },
    findings,
  };
}

/** A gated tool with the host's decision applied (TC-DESC-5/6: the fail-closed default when there is none). */
export function withDecision(gated: GatedTool, hostDecision: Classification | null): PreparedTool {
  const u = gated.unclassified;
  return { record: { ...u, classification: classify(u.source, hostDecision), classified: hostDecision !== null }, findings: gated.findings };
}

function findingKey(f: CredentialFinding): string {
  return JSON.stringify([f.path, f.action, f.kinds]);
}

function requireText(v: unknown, field: string, max: number, nonEmpty: boolean): string {
  if (typeof v !== 'string') refuse(`${field} must be a string`);
  if (nonEmpty && v.length === 0) refuse(`${field} must not be empty`);
  if (v.length > max) refuse(`${field} is ${v.length} characters long; the limit is ${max}`);
  // eslint-disable-next-line no-control-regex
  if (field === 'name' && /[\u0000-\u001f\u007f]/.test(v)) refuse('name contains control characters');
  return v;
}

function requireSchema(v: unknown, field: string, bounds: IngestBounds): JsonObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse(`${field} must be a JSON object`);
  let text: string;
  try {
    text = JSON.stringify(v);
  } catch {
    refuse(`${field} is not serialisable JSON`);
  }
  if (Buffer.byteLength(text, 'utf8') > bounds.maxSchemaBytes) refuse(`${field} is larger than ${bounds.maxSchemaBytes} bytes`);
  if (jsonDepth(v, bounds.maxSchemaDepth) > bounds.maxSchemaDepth) refuse(`${field} is nested deeper than ${bounds.maxSchemaDepth} levels`);
  const parsed = JSON.parse(text) as JsonObject; // a plain-JSON copy: no getters, prototypes or undefined
  const problem = schemaProblem(parsed);
  if (problem) refuse(`${field} is not a valid JSON Schema: ${problem}`);
  return parsed;
}

/**
 * MCP requires `"type": "object"` at the root of an inputSchema (the SDK's own client rejects anything else), yet
 * real servers send roots without a type (`{"$schema": "…draft-07…"}`). Issue 11 defect 8: such a root is served
 * as an object schema in both views (the compact view is built from the repaired text) and the repair is recorded
 * for admins; a root typed as something else, or a type list without "object", cannot describe tool arguments and
 * the tool is refused. A typeless root is repaired only when it can accept an object (red team F11): the
 * compactor, which resolves `$ref`s and folds `const`/`enum`/`oneOf`/`allOf`, decides, and a root it reports as
 * not an object or as accepting no value (`{$ref → a string}`, `{enum: [1, 2]}`, `{oneOf: [string, number]}`) is
 * refused instead of being served as `type: object`.
 */
function objectRoot(schema: JsonObject, notes: IngestNote[]): JsonObject {
  const t = schema.type;
  if (t === 'object') return schema;
  if (t === undefined) {
    const verdict = compact(schema).notes.find((n) => n.path === '' && n.rule === 'root' && n.action === 'relaxed');
    if (verdict) refuse(`inputSchema must describe an object (its root has no "type" and cannot accept one: ${verdict.text})`);
    notes.push({ path: '/inputSchema', rule: 'root-type-missing', text: 'The inputSchema had no "type"; MCP requires "type": "object" at the root, so it is served as an object schema.' });
    return { ...schema, type: 'object' };
  }
  if (Array.isArray(t) && t.includes('object')) {
    notes.push({ path: '/inputSchema/type', rule: 'root-type-narrowed', text: `The inputSchema root allowed ${JSON.stringify(t)}; MCP requires "type": "object", so only objects are served.` });
    return { ...schema, type: 'object' };
  }
  refuse(`inputSchema must describe an object (MCP requires "type": "object" at the root; it says ${JSON.stringify(t).slice(0, 80)})`);
}

function boundedJson(v: unknown, bounds: IngestBounds): string | null {
  try {
    const text = JSON.stringify(v);
    return text !== undefined && text.length <= bounds.maxSchemaBytes ? text : null;
  } catch {
    return null;
  }
}

function refuse(message: string): never {
  throw new CatalogError(CatalogErrorCode.InvariantViolation, message, { level: 'warn' });
}
