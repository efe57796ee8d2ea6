import { deriveAnnotations } from './annotations';
import type { CompactToolDescriptor, ToolDescriptor } from './descriptor';
import type { ToolRecord } from './tool-record';
import { type ProfileName, isProfileName } from './compact';
import type { StoredProfiles } from './compact-view';

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

/**
 * The view as served: the standard view, the neutral compact view, or a provider profile of it (issue 16).
 * `compact:<profile>` only ever comes from resolveServedView, so caches can key on it as they key on the view.
 */
export type ServedView = View | `compact:${ProfileName}`;

/**
 * Issue 16: a profile applies only to the compact view; an unknown or absent profile is the neutral compact view,
 * and any other view stays the standard view whatever the profile (TC-VIEW-4).
 */
export function resolveProfile(view: View, requested: unknown): ProfileName | null {
  return view === View.Compact && isProfileName(requested) ? requested : null;
}

export function servedView(view: View, profile: ProfileName | null): ServedView {
  return view === View.Compact && profile !== null ? `compact:${profile}` : view;
}

export function isCompactView(v: ServedView): boolean {
  return v !== View.Standard;
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

/**
 * A profile's compact descriptor (issue 16): the compact descriptor with the profile's `functionName` after `name`,
 * openai's `strict` before `inputSchema`, and the profile's inputSchema, all as stored at ingest. A row stored
 * before profiles existed (refreshed at start, services/derived-refresh.ts) has none: it is served neutral.
 */
function serializeProfiled(r: ToolRecord, profile: ProfileName): string {
  const stored = (JSON.parse(r.compactProfilesText) as StoredProfiles)[profile];
  if (stored === undefined) return serializeCompact(r);
  const c = r.classification;
  return (
    `{"toolId":${JSON.stringify(r.toolId)},"name":${JSON.stringify(r.name)},"functionName":${JSON.stringify(stored.functionName)}` +
    `,"description":${JSON.stringify(r.description)},"source":${JSON.stringify(r.source)},"safetyTier":"${c.safetyTier}","replayPolicy":"${c.replayPolicy}"` +
    `,"egress":"${c.egress}"${stored.strict === undefined ? '' : `,"strict":${stored.strict}`},"inputSchema":${stored.schema},"annotations":${JSON.stringify(deriveAnnotations(c))}}`
  );
}

export function serializeView(r: ToolRecord, view: ServedView): string {
  if (view === View.Standard) return serializeStandard(r);
  return view === View.Compact ? serializeCompact(r) : serializeProfiled(r, view.slice('compact:'.length) as ProfileName);
}

export function toCompact(r: ToolRecord): CompactToolDescriptor {
  return JSON.parse(serializeCompact(r)) as CompactToolDescriptor;
}
