/**
 * Credential detection (TC-DESC-4). Recognises the common token formats by shape (credential-rules.ts, with rule
 * data ported from gitleaks), plus values assigned to secret-like names; the names of the kinds (never the
 * matched text) are what callers log. The rule stays: a descriptor never carries anything that matches here.
 *
 * Decoding before matching (issue 11): every rule runs over every view of the text — as is, NFKC-normalised with
 * invisible characters removed and look-alike letters mapped, quoted pieces joined, percent/escape-decoded (while
 * escapes remain), reversed, ROT13'd (token formats only), degrouped, and the base64/base32/hex runs that decode to
 * text — (credential-decode.ts), and a hit in any view maps back to the span of the original that produced it, so
 * a credential hidden in an encoding is redacted (or refused) where it actually sits.
 *
 * Linear time on hostile input (issue 5): each rule is linear (credential-rules.ts), and the views of a text are
 * a bounded constant number of texts no longer than a constant multiple of it (credential-decode.ts).
 *
 * Placeholders are not credentials (credential-shape.ts). Fixed-format tokens (AKIA…, ghp_…) count even when they
 * look fake.
 */
import { MAX_DEPTH, type View, levelViews, resetDecodeWork } from './credential-decode';
import { decodedView } from './credential-decode-runs';
import { RULES, scanRule } from './credential-rules';

export { lastDecodeWork } from './credential-decode';
export {
  SECRET_LIKE_NAME, isPlaceholderValue, isSecretLikeConstraint, isSecretLikeLiteral, looksRandom, shannonEntropy,
} from './credential-shape';

/** A view shorter than this holds no credential any rule recognises (the shortest is a `name=` plus 8). */
const MIN_CANDIDATE = 8;

/** Receives each hit as kind and span of the original text; returns true to stop the scan. */
type OnHit = (kind: string, start: number, end: number) => boolean;

/**
 * Runs every rule over every view of one level, then the level below (decoded runs). `firstPerRule`: one hit
 * settles a rule in a view (enough to name the kinds); otherwise every hit is reported (to redact them all).
 */
function scanLevel(text: string, depth: number, firstPerRule: boolean, onHit: OnHit): boolean {
  const { views, forward } = levelViews(text);
  for (const view of views) if (view.text.length >= MIN_CANDIDATE && scanView(view, firstPerRule, onHit)) return true;
  if (depth >= MAX_DEPTH) return false;
  const decoded = decodedView(forward);
  if (decoded === null) return false;
  return scanLevel(decoded.text, depth + 1, firstPerRule, (kind, s, e) => onHit(kind, ...decoded.toSource(s, e)));
}

/**
 * Which character pairs occur in a text (ASCII pairs; any other character counts as 0x7f): one pass, so a keyword
 * whose first two characters never meet is ruled out without a substring search (most of a hostile text's
 * keywords, most of the rule set's for ordinary text).
 */
/** Below this length a substring search is cheaper than building the table. */
const PAIRS_FROM = 32 * 1024;
const PAIRS = new Uint8Array(128 * 128);
const LOWER_PAIRS = new Uint8Array(128 * 128);
const code = (c: number) => (c < 128 ? c : 127);
function pairsOf(text: string, into: Uint8Array): Uint8Array {
  into.fill(0);
  for (let i = 1; i < text.length; i++) into[(code(text.charCodeAt(i - 1)) << 7) | code(text.charCodeAt(i))] = 1;
  return into;
}

function scanView(view: View, firstPerRule: boolean, onHit: OnHit): boolean {
  let stopped = false;
  let lower: string | undefined;
  // Scans never nest (see scanRule), so the two tables are reused from view to view.
  let pairs: Uint8Array | undefined;
  let lowerPairs: Uint8Array | undefined;
  const has = (k: string, ci: boolean): boolean => {
    const text = ci ? (lower ??= view.text.toLowerCase()) : view.text;
    if (k.length >= 2 && text.length >= PAIRS_FROM) {
      const table = ci ? (lowerPairs ??= pairsOf(text, LOWER_PAIRS)) : (pairs ??= pairsOf(text, PAIRS));
      if (!table[(code(k.charCodeAt(0)) << 7) | code(k.charCodeAt(1))]) return false;
    }
    return text.includes(k);
  };
  for (const rule of RULES) {
    if (view.formatsOnly && !rule.tokenFormat) continue;
    if (rule.keywords && !rule.keywords.some((k) => has(k, rule.ci === true))) continue;
    scanRule(rule, view.text, (h) => {
      const [s, e] = view.toSource(h.start, h.end);
      stopped = onHit(h.kind, s, e);
      return stopped || firstPerRule;
    });
    if (stopped) return true;
  }
  return false;
}

function scan(text: string, firstPerRule: boolean, onHit: OnHit): void {
  resetDecodeWork();
  scanLevel(text, 0, firstPerRule, onHit);
}

/** The kinds of credential found in `text` (empty when none), in any of its decoded views. Linear in its length. */
export function findCredentialKinds(text: string): string[] {
  const kinds = new Set<string>();
  scan(text, true, (kind) => (kinds.add(kind), false));
  return [...kinds];
}

export function containsCredential(text: string): boolean {
  let found = false;
  scan(text, true, () => (found = true));
  return found;
}

/**
 * Replaces every credential-shaped run in `text` with `[redacted]` (only the value where a name or scheme precedes
 * it). A credential found in a decoded view takes its whole original span with it (the encoded run, the
 * zero-width-split token, …).
 */
export function redactCredentials(text: string): string {
  let out = text;
  // Spans are merged and replaced together; a second pass covers what the first one rejoined. Fail closed.
  for (let pass = 0; pass < 3; pass++) {
    // Overlapping spans of different rules and views merge through a difference array: linear, no sort of many hits.
    const depth = new Int32Array(out.length + 1);
    let found = false;
    scan(out, false, (_kind, s, e) => {
      if (e > s) (depth[s]++, depth[e]--, (found = true));
      return false;
    });
    if (!found) return out;
    const parts: string[] = [];
    let open = 0;
    let from = 0;
    for (let i = 0; i <= out.length; i++) {
      if (depth[i] === 0) continue;
      const wasOpen = open > 0;
      open += depth[i];
      if (!wasOpen && open > 0) parts.push(out.slice(from, i), '[redacted]');
      else if (wasOpen && open === 0) from = i;
    }
    parts.push(out.slice(from));
    out = parts.join('');
  }
  return containsCredential(out) ? '[redacted]' : out;
}
