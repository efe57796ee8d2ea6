import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { COMPACTOR_VERSION, type CompactNote, type JsonObject, type ProfileName, PROFILE_NAMES, applyProfile, compact, functionNameFor } from './compact';

/**
 * The compact form of one input schema, computed once per schema version (issue 3): keyed by the hash of
 * the stored schema text and the compactor version, never per request. A small memo avoids compacting the
 * same schema twice while a listing is checked and then projected.
 */
export interface CompactForm {
  readonly key: string;
  readonly schemaText: string;
  readonly notes: readonly CompactNote[];
}

function compactKeyOf(inputSchemaText: string): string {
  return `${createHash('sha256').update(inputSchemaText).digest('hex').slice(0, 48)}:${COMPACTOR_VERSION}`;
}

const memo = new LRUCache<string, CompactForm>({ max: 2000 });

export function compactFor(inputSchemaText: string): CompactForm {
  const key = compactKeyOf(inputSchemaText);
  const hit = memo.get(key);
  if (hit) return hit;
  const result = compact(JSON.parse(inputSchemaText));
  const form: CompactForm = { key, schemaText: JSON.stringify(result.schema), notes: result.notes };
  memo.set(key, form);
  return form;
}

/**
 * One profile's form of a compact view (issue 16): the profile's inputSchema text, openai's `strict`, and what the
 * profile relaxed. Computed from the neutral form, once per (schema hash, compactor version, profile): the memo key
 * is the neutral form's key plus the profile, and ingest stores the result with the row (never per request).
 */
interface ProfileForm {
  readonly schemaText: string;
  /** the strings of schemaText the neutral text does not hold (ProfileResult.texts) */
  readonly texts: readonly string[];
  readonly strict?: boolean;
  readonly notes: readonly CompactNote[];
}

const profileMemo = new LRUCache<string, ProfileForm>({ max: 6000 });

function profileFormFor(form: CompactForm, profile: ProfileName): ProfileForm {
  const key = `${form.key}:${profile}`;
  const hit = profileMemo.get(key);
  if (hit) return hit;
  const neutral = JSON.parse(form.schemaText) as JsonObject;
  const r = applyProfile(profile, neutral);
  // unchanged (anthropic, openai strict:false, an already-clean schema): the neutral text itself, not a re-serialisation
  const schemaText = r.schema === neutral ? form.schemaText : JSON.stringify(r.schema);
  const out: ProfileForm = { schemaText, texts: r.texts, ...(r.strict !== undefined ? { strict: r.strict } : {}), notes: r.notes };
  profileMemo.set(key, out);
  return out;
}

/** What a row stores per profile (ToolRecord.compactProfilesText): the served fields and the profile's notes. */
interface StoredProfile {
  readonly functionName: string;
  readonly schema: string;
  readonly strict?: boolean;
  readonly notes: readonly CompactNote[];
}

export type StoredProfiles = Readonly<Partial<Record<ProfileName, StoredProfile>>>;

/**
 * Every profile of one tool, as stored text, scanned as served (TC-DESC-4) at the cost of what is new in it:
 *   - a profile that serves the neutral text unchanged gets the neutral view's served text (`neutralServed`);
 *   - when the neutral text was clean, a profile's only new strings are the descriptions it appended notes to
 *     (ProfileResult.texts: keywords removed, types narrowed, null added hold no new string), so those are what
 *     `isClean` checks; only when one of them is not, or the neutral text itself needed scrubbing, is the whole
 *     profile text scanned with `scrub` (the same scan as the neutral view's, which may redact or refuse).
 * This keeps ingest's cost per tool close to one scan, whatever the number of profiles (issue 12's big listings).
 */
export function profilesTextFor(
  toolId: string,
  form: CompactForm,
  neutralServed: string,
  scan: { readonly scrub: (schemaText: string) => string; readonly isClean: (text: string) => boolean },
): string {
  const out: Partial<Record<ProfileName, StoredProfile>> = {};
  const neutralClean = neutralServed === form.schemaText;
  for (const p of PROFILE_NAMES) {
    const f = profileFormFor(form, p);
    const schema =
      f.schemaText === form.schemaText ? neutralServed : neutralClean && f.texts.every(scan.isClean) ? f.schemaText : scan.scrub(f.schemaText);
    out[p] = { functionName: functionNameFor(p, toolId), schema, ...(f.strict !== undefined ? { strict: f.strict } : {}), notes: f.notes };
  }
  return JSON.stringify(out);
}
