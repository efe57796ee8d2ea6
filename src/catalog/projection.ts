import { deriveAnnotations } from './annotations';
import type { CompactToolDescriptor, ToolDescriptor } from './descriptor';
import type { ToolRecord } from './tool-record';

/**
 * The only place a ToolDescriptor is built (architecture habit 1). Fields are picked one by one from the
 * record, never spread, so storage-only fields (claims, origin, tenant) cannot reach the wire.
 */
export const View = { Standard: 'standard', Compact: 'compact' } as const;
export type View = (typeof View)[keyof typeof View];

/** TC-VIEW-4: `compact` only when advertised; any other value (or none) is the standard view. */
export function resolveView(requested: unknown, compactViewAdvertised: boolean): View {
  return requested === 'compact' && compactViewAdvertised ? View.Compact : View.Standard;
}

export function toStandard(r: ToolRecord): ToolDescriptor {
  return JSON.parse(serializeStandard(r)) as ToolDescriptor;
}

/**
 * The descriptor's exact wire bytes. The stored schema text is spliced in unchanged, so the bytes served
 * are the bytes stored (and no schema is re-parsed per request). Key order is fixed here (TC-CAT-7).
 */
export function serializeStandard(r: ToolRecord): string {
  const c = r.classification;
  let s = `{"toolId":${JSON.stringify(r.toolId)},"name":${JSON.stringify(r.name)}`;
  if (r.title !== null) s += `,"title":${JSON.stringify(r.title)}`;
  s += `,"description":${JSON.stringify(r.description)},"source":${JSON.stringify(r.source)}`;
  s += `,"safetyTier":"${c.safetyTier}","replayPolicy":"${c.replayPolicy}","egress":"${c.egress}"`;
  s += `,"inputSchema":${r.inputSchemaText}`;
  if (r.outputSchemaText !== null) s += `,"outputSchema":${r.outputSchemaText}`;
  s += `,"annotations":${JSON.stringify(deriveAnnotations(c))}}`;
  return s;
}

/** The compact view's exact bytes (schemas/v2/compact-tool-descriptor.schema.json): no title, no outputSchema. */
export function serializeCompact(r: ToolRecord): string {
  const c = r.classification;
  return (
    `{"toolId":${JSON.stringify(r.toolId)},"name":${JSON.stringify(r.name)},"description":${JSON.stringify(r.description)}` +
    `,"source":${JSON.stringify(r.source)},"safetyTier":"${c.safetyTier}","replayPolicy":"${c.replayPolicy}","egress":"${c.egress}"` +
    `,"inputSchema":${r.compactSchemaText},"annotations":${JSON.stringify(deriveAnnotations(c))}}`
  );
}

export function serializeView(r: ToolRecord, view: View): string {
  return view === View.Compact ? serializeCompact(r) : serializeStandard(r);
}

export function toCompact(r: ToolRecord): CompactToolDescriptor {
  return JSON.parse(serializeCompact(r)) as CompactToolDescriptor;
}
