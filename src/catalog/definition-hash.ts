import { createHash } from 'node:crypto';

/** What defines a tool, as its definer gave it (an MCP server's tools/list entry, a host extension's input). */
export interface DefinitionFields {
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema?: unknown;
  readonly outputSchema?: unknown;
}

/**
 * The one definition hash (issue 13, "one home per rule": ingest's `contentHash` and the snapshots'
 * `definitionHash` used to hash different inputs, and approvals used one for host extensions and the other for MCP
 * tools). Its one meaning: SHA-256 of what the tool's definer defined, as given to the ingest gate, namely title,
 * description, input schema and output schema, as the JSON array `[title, description, inputSchema, outputSchema]`
 * with an absent field as null. Not in it: the name (the toolId is the identity), the classification, MCP
 * annotations (claims only) and anything the gate derives (repairs, credential removal, compaction). So the hash
 * of a definition never changes with a gate or compactor version, and a decision recorded for it
 * (`tool_classification.approved_hash`) holds until the definer changes the tool (drift review).
 *
 * Both kinds use it: `UpstreamTool.definitionHash` (MCP, stored in upstream_tool and tool.definition_hash and
 * compared with fresh values on every sync) and `ToolRecord.contentHash` (every served row, so a host extension's
 * approval too); for one definition they are equal. The value for MCP tools is the one stored before issue 13,
 * so existing MCP approvals stand; host-extension rows stored with the older hash are derived again at start
 * (INGEST_GATE_VERSION '3', services/derived-refresh.ts).
 */
export function definitionHash(def: DefinitionFields): string {
  return createHash('sha256')
    .update(jsonOrMarker([def.title ?? null, def.description ?? null, def.inputSchema ?? null, def.outputSchema ?? null]))
    .digest('hex');
}

/** JSON text of a value; a listed tool that cannot be serialised (a cycle, a BigInt) still gets a hash. */
function jsonOrMarker(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '"<unserialisable>"';
  }
}
