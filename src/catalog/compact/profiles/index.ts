/**
 * The per-provider profiles of the compact view (issue 16): declared rule tables (gemini.ts, openai.ts,
 * anthropic.ts) applied to the neutral compactor's output. Pure and total: a profile never throws and never
 * falls back further than the neutral schema (openai `strict: false`); a rule it cannot repair is reported.
 */
import { TEXT } from '../notes';
import type { CompactNote, JsonObject } from '../types';
import { ANTHROPIC } from './anthropic';
import { GEMINI } from './gemini';
import { OPENAI, strictObstacle } from './openai';
import { rewrite, violations, type NodeRule, type ProfileName, type ProfileTable, type Violation } from './rule-table';

export { PROFILE_NAMES, isProfileName, type ProfileName, type Violation } from './rule-table';
export { functionNameFor, toolIdForFunctionName } from './function-name';
export { argumentsFromProfile } from './arguments';

export const PROFILE_TABLES: Readonly<Record<ProfileName, ProfileTable>> = { gemini: GEMINI, openai: OPENAI, anthropic: ANTHROPIC };

export interface ProfileResult {
  readonly schema: JsonObject;
  /** openai only: whether the schema is served for `strict: true` */
  readonly strict?: boolean;
  /** what the profile relaxed, in the neutral view's note model (path = pointer into the compact schema) */
  readonly notes: CompactNote[];
  /** every string of `schema` the neutral schema does not hold (the descriptions notes were appended to) */
  readonly texts: readonly string[];
}

function residualNotes(left: readonly Violation[]): CompactNote[] {
  return left.map((v) => ({ path: v.path, origin: v.path, rule: v.rule, action: 'relaxed', text: TEXT.profileResidual(v.message) }));
}

/** The rules a profile's output must meet (the per-profile checker): openai's depend on `strict`. */
function profileRules(profile: ProfileName, strict?: boolean): readonly NodeRule[] {
  return profile === 'openai' && strict === true ? OPENAI.strictRules : PROFILE_TABLES[profile].nodeRules;
}

export function profileViolations(profile: ProfileName, schema: JsonObject, strict?: boolean): Violation[] {
  return violations(schema, profileRules(profile, strict));
}

export function applyProfile(profile: ProfileName, neutral: JsonObject): ProfileResult {
  if (profile === 'openai') {
    const obstacle = strictObstacle(neutral);
    if (obstacle === undefined) {
      const r = rewrite(neutral, OPENAI.strictRules);
      const left = violations(r.schema, OPENAI.strictRules);
      // strict is claimed only for a schema that meets every strict rule; anything else is served non-strict
      if (left.length === 0) return { schema: r.schema, strict: true, notes: r.notes, texts: r.texts };
      return notStrict(neutral, left[0].message);
    }
    return notStrict(neutral, obstacle);
  }
  const rules = PROFILE_TABLES[profile].nodeRules;
  const r = rewrite(neutral, rules);
  // a fix makes its own check pass (the tests hold every fix to it): only the rules without a fix can be left
  return { schema: r.schema, texts: r.texts, notes: [...r.notes, ...residualNotes(violations(r.schema, rules.filter((x) => x.fix === undefined)))] };
}

function notStrict(neutral: JsonObject, reason: string): ProfileResult {
  const notes: CompactNote[] = [{ path: '', origin: '', rule: 'openai.strict', action: 'relaxed', text: TEXT.notStrict(reason) }];
  return { schema: neutral, strict: false, texts: [], notes: [...notes, ...residualNotes(violations(neutral, OPENAI.nodeRules.filter((x) => x.fix === undefined)))] };
}
