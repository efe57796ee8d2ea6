import { CatalogError, CatalogErrorCode } from './catalog.errors';
import { type CredentialFinding, scrubSchema } from './credential-scrub';
import type { JsonObject } from './descriptor';
import { findCredentialKinds, isPlaceholderValue, looksRandom } from './credentials';

/**
 * The compact view is scanned as it is served (TC-DESC-4, issue 11 red team F1/F6). The compactor inlines every
 * `$ref` and merges `allOf`/`oneOf` branches, joining their descriptions (compact/intersect.ts, union.ts), so a
 * literal reached through a reference sits under its real property name there, and two harmless texts can join
 * into one credential ("Authorization: Bearer" + "k9Fz…"). The compactor may do so (compact/* is unchanged): this
 * scan of its output, with the same scrubber as the standard view, is what guarantees the result. Decision:
 *   - prose redactions found here are applied to the compact form (the standard view holds the parts, none of
 *     which is a credential on its own);
 *   - a literal removal or a refusal found here but not in the standard walk means the standard view carries the
 *     literal somewhere that walk could not attribute (a `$defs` entry the reference pre-pass missed, a merge):
 *     the tool is refused, fail closed, with a reason saying so.
 * Findings are reported under `/compact/inputSchema`.
 */
const COMPACT_PATH = '/compact/inputSchema';

/** The compact schema text as it may be served (the same text when nothing was found); throws to refuse the tool. */
export function scrubCompactView(compactSchemaText: string, findings: CredentialFinding[]): string {
  const found: CredentialFinding[] = [];
  let scrubbed: JsonObject;
  try {
    scrubbed = scrubSchema(JSON.parse(compactSchemaText) as JsonObject, COMPACT_PATH, found);
  } catch (err) {
    if (err instanceof CatalogError) throw refusal(`in the compact view: ${err.message}`);
    throw err;
  }
  const removed = found.filter((f) => f.action === 'removed');
  if (removed.length) {
    const kinds = [...new Set(removed.flatMap((f) => f.kinds))].join(', ');
    throw refusal(
      `credential material (${kinds}) at ${removed.map((f) => f.path).slice(0, 3).join(', ')} in the compact view only: the standard view carries it ` +
        'where its walk could not attribute it (a $defs entry, a merge); the tool is refused (TC-DESC-4)',
    );
  }
  if (found.length === 0) return compactSchemaText;
  findings.push(...found);
  return JSON.stringify(scrubbed);
}

function refusal(message: string): CatalogError {
  return new CatalogError(CatalogErrorCode.InvariantViolation, message, { level: 'warn' });
}

/**
 * Issue 16: whether a description a provider profile wrote (the neutral view's scanned description plus fixed-wording
 * notes holding the node's own enum/default values) needs no scan of the whole profile text. Conservative: no
 * credential kind, and no random-looking word, the two things the prose scan (credential-scrub.ts scrubProse) redacts
 * beyond literals the node already serves as data. Anything else sends the profile text through scrubCompactView.
 */
export function profileProseIsClean(text: string): boolean {
  if (findCredentialKinds(text).length > 0) return false;
  return text.split(/\s+/).every((word) => {
    const core = word.replace(/^[.:!?=*#(),"'-]+|[.:!?=*#(),"'-]+$/g, '');
    return core === '' || /:\/\/|^\/|\/.*\//.test(core) || !looksRandom(core) || isPlaceholderValue(core);
  });
}
