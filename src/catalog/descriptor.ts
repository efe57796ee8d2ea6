/**
 * Wire vocabulary of the tool catalog (RFC 0078/0112, schemas/v2). Values are spelled exactly as on the
 * wire; the value sets of replayPolicy and egress are ours (the spec names the fields, not the values)
 * and are documented in README.md and schemas/v2/tool-descriptor.schema.json.
 */
export const SafetyTier = { Pure: 'pure', Read: 'read', Write: 'write', Exec: 'exec' } as const;
export type SafetyTier = (typeof SafetyTier)[keyof typeof SafetyTier];
export const SAFETY_TIERS: readonly SafetyTier[] = ['pure', 'read', 'write', 'exec'];

/** deterministic: same input, same output, no side effects; idempotent: repeating has no further effect. */
export const ReplayPolicy = { Deterministic: 'deterministic', Idempotent: 'idempotent', NonIdempotent: 'non-idempotent' } as const;
export type ReplayPolicy = (typeof ReplayPolicy)[keyof typeof ReplayPolicy];
export const REPLAY_POLICIES: readonly ReplayPolicy[] = ['deterministic', 'idempotent', 'non-idempotent'];

/** none: no network; restricted: only host-approved destinations; open: arbitrary destinations. */
export const Egress = { None: 'none', Restricted: 'restricted', Open: 'open' } as const;
export type Egress = (typeof Egress)[keyof typeof Egress];
export const EGRESS_VALUES: readonly Egress[] = ['none', 'restricted', 'open'];

export const ToolSource = { Mcp: 'mcp', HostExtension: 'host-extension' } as const;
export type ToolSource = (typeof ToolSource)[keyof typeof ToolSource];
const TOOL_SOURCES: readonly ToolSource[] = ['mcp', 'host-extension'];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

export interface Classification {
  readonly safetyTier: SafetyTier;
  readonly replayPolicy: ReplayPolicy;
  readonly egress: Egress;
}

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** The standard view (schemas/v2/tool-descriptor.schema.json). Key order here is the wire order. */
export interface ToolDescriptor extends Classification {
  readonly toolId: string;
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly source: ToolSource;
  readonly inputSchema: JsonObject;
  readonly outputSchema?: JsonObject;
  readonly annotations: ToolAnnotations;
}

/** The compact view (schemas/v2/compact-tool-descriptor.schema.json). */
export interface CompactToolDescriptor extends Classification {
  readonly toolId: string;
  readonly name: string;
  /** with a provider profile only (issue 16): the name to declare the function under, valid for that provider */
  readonly functionName?: string;
  /** profile openai only: whether inputSchema is meant for `strict: true` */
  readonly strict?: boolean;
  readonly description: string;
  readonly source: ToolSource;
  readonly inputSchema: JsonObject;
  readonly annotations: ToolAnnotations;
}

/** Rank used to compare tiers (a grant's "highest safetyTier"): pure < read < write < exec. */
export function tierRank(tier: SafetyTier): number {
  return SAFETY_TIERS.indexOf(tier);
}

export function isSafetyTier(v: unknown): v is SafetyTier {
  return typeof v === 'string' && (SAFETY_TIERS as readonly string[]).includes(v);
}
export function isReplayPolicy(v: unknown): v is ReplayPolicy {
  return typeof v === 'string' && (REPLAY_POLICIES as readonly string[]).includes(v);
}
export function isEgress(v: unknown): v is Egress {
  return typeof v === 'string' && (EGRESS_VALUES as readonly string[]).includes(v);
}
export function isToolSource(v: unknown): v is ToolSource {
  return typeof v === 'string' && (TOOL_SOURCES as readonly string[]).includes(v);
}
