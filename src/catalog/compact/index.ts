/**
 * The compact view of a tool's `inputSchema` (clause TC-VIEW-3, design/compact-view.md).
 * Pure and total: no I/O, no framework imports, never throws.
 */
export { compact, COMPACTOR_VERSION } from './compact';
export { findBannedKeywords } from './banned';
export { BANNED_KEYWORDS } from './keywords';
export type { CompactNote, CompactResult, JsonObject } from './types';
export {
  applyProfile,
  functionNameFor,
  isProfileName,
  PROFILE_NAMES,
  PROFILE_TABLES,
  profileViolations,
  toolIdForFunctionName,
  type ProfileName,
} from './profiles';
