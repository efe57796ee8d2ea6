import type { Classification, ToolSource } from './descriptor';

/**
 * A tool as the catalog stores it, after ingest checks and classification. Schemas are kept as the exact
 * canonical JSON text produced at ingest, so the bytes served are the bytes stored on every driver.
 */
export interface ToolRecord {
  readonly toolId: string;
  readonly source: ToolSource;
  /** Where it came from: `config` or `graphql` for host extensions, the source name for MCP tools. */
  readonly origin: string;
  /** null: global; otherwise the only tenant that may ever see it. */
  readonly tenantId: string | null;
  readonly name: string;
  readonly title: string | null;
  readonly description: string;
  readonly inputSchemaText: string;
  readonly outputSchemaText: string | null;
  readonly classification: Classification;
  /** false: no host decision exists and the fail-closed default applies (TC-DESC-6). */
  readonly classified: boolean;
  /** What the upstream server claimed (MCP annotations). Shown to admins; never read by projection. */
  readonly claimsText: string | null;
  /** The one definition hash (catalog/definition-hash.ts, issue 13) of the definition the gate was given. */
  readonly contentHash: string;
  /** The compact view's inputSchema (TC-VIEW-3) and what compaction relaxed, computed at ingest. */
  readonly compactSchemaText: string;
  readonly compactNotesText: string;
  readonly compactKey: string;
  /**
   * JSON of StoredProfiles (catalog/compact-view.ts, issue 16): per provider profile, the function name, the
   * profile's inputSchema text, openai's `strict`, and the profile's notes. Computed at ingest with the compact view.
   */
  readonly compactProfilesText: string;
  /** JSON array of IngestNote: what the ingest gate repaired (e.g. a typeless root), shown to admins. */
  readonly ingestNotesText: string;
  /** INGEST_GATE_VERSION of the gate that produced this record. */
  readonly gateVersion: string;
}

/** One repair the ingest gate made to an untrusted definition (issue 11 defect 8); admins read these. */
export interface IngestNote {
  /** JSON Pointer into the definition as received (`/inputSchema`). */
  readonly path: string;
  readonly rule: string;
  readonly text: string;
}

/** Untrusted definition of a tool, as a source delivers it. */
export interface ToolDefinition {
  readonly source: ToolSource;
  readonly origin: string;
  readonly tenantId?: string | null;
  readonly toolId: string;
  readonly name: unknown;
  readonly title?: unknown;
  readonly description?: unknown;
  readonly inputSchema: unknown;
  readonly outputSchema?: unknown;
  readonly claims?: unknown;
}
