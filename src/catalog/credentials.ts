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
import { LRUCache } from 'lru-cache';
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
 * The rules' keywords (gitleaks' prefilter: a rule runs only over a view holding one of them), found in one pass per
 * view (issue 12: testing each keyword with its own substring search was a quarter of a sync's CPU). Every keyword of
 * two or more characters is filed under its first two characters (ASCII pairs; any other character counts as 0x7f):
 * the pass looks up each position's pair and tests only the keywords filed there, with startsWith. A keyword is found
 * exactly when `text.includes(keyword)` would be (case-insensitive rules: in the lower-cased text, as before).
 */
interface Keyword {
  readonly id: number;
  readonly text: string;
  readonly ci: boolean;
}
const code = (c: number) => (c < 128 ? c : 127);
const KEYWORDS: Keyword[] = [];
const keywordId = new Map<string, number>();
/** Per rule (same order as RULES): the ids of its keywords, or null when it has none (it always runs). */
const RULE_KEYWORDS: ReadonlyArray<readonly number[] | null> = RULES.map((rule) =>
  rule.keywords
    ? rule.keywords.map((k) => {
      const ci = rule.ci === true;
      const at = `${ci ? 'i' : 's'}${k}`;
      let id = keywordId.get(at);
      if (id === undefined) {
        id = KEYWORDS.length;
        keywordId.set(at, id);
        KEYWORDS.push({ id, text: k, ci });
      }
      return id;
    })
    : null);
/** pair → keywords filed under it, for each case; and the one-character keywords, tested with includes. */
const indexOf = (ci: boolean) => {
  const byPair = new Map<number, Keyword[]>();
  const single: Keyword[] = [];
  for (const k of KEYWORDS) {
    if (k.ci !== ci || k.text.length === 0) continue;
    if (k.text.length < 2) {
      single.push(k);
      continue;
    }
    const pair = (code(k.text.charCodeAt(0)) << 7) | code(k.text.charCodeAt(1));
    byPair.set(pair, [...(byPair.get(pair) ?? []), k]);
  }
  const table: Array<readonly Keyword[] | undefined> = new Array(128 * 128);
  for (const [pair, ks] of byPair) table[pair] = ks;
  return { table, single };
};
const SENSITIVE_INDEX = indexOf(false);
const CI_INDEX = indexOf(true);
/** Which keywords a view holds: `present[id] === stamp` (stamps never repeat, so the array is never cleared). */
const present = new Float64Array(KEYWORDS.length);
let stamp = 0;

function markKeywords(text: string, index: typeof SENSITIVE_INDEX, mark: number): void {
  for (const k of index.single) if (text.includes(k.text)) present[k.id] = mark;
  const { table } = index;
  const last = text.length - 1;
  let prev = last >= 0 ? code(text.charCodeAt(0)) : 0;
  for (let i = 0; i < last; i++) {
    const next = code(text.charCodeAt(i + 1));
    const ks = table[(prev << 7) | next];
    prev = next;
    if (ks === undefined) continue;
    for (const k of ks) if (present[k.id] !== mark && text.startsWith(k.text, i)) present[k.id] = mark;
  }
}

function scanView(view: View, firstPerRule: boolean, onHit: OnHit): boolean {
  let stopped = false;
  // Each case's keywords are looked up once per view, when a rule first needs them.
  let sensitive = 0;
  let insensitive = 0;
  for (let r = 0; r < RULES.length; r++) {
    const rule = RULES[r];
    if (view.formatsOnly && !rule.tokenFormat) continue;
    const ids = RULE_KEYWORDS[r];
    if (ids) {
      let mark: number;
      if (rule.ci === true) {
        if (!insensitive) markKeywords(view.text.toLowerCase(), CI_INDEX, (insensitive = ++stamp));
        mark = insensitive;
      } else {
        if (!sensitive) markKeywords(view.text, SENSITIVE_INDEX, (sensitive = ++stamp));
        mark = sensitive;
      }
      let any = false;
      for (const id of ids) if (present[id] === mark) (any = true);
      if (!any) continue;
    }
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

/**
 * What a scan found in a short text, remembered (issue 12): a tool's walk meets the same texts more than once (the
 * compact view is scanned again as served, and it repeats the standard view's property descriptions, names, types
 * and enum values), and a listing repeats them from tool to tool. The scan is a pure function of the text, so a
 * remembered answer is the answer. Bounded by characters; long texts are always scanned (they rarely repeat).
 */
const MEMO_TEXT_CHARS = 4096;
const kindsMemo = new LRUCache<string, readonly string[]>({ maxSize: 2_000_000, sizeCalculation: (_v, k) => k.length + 64 });

/** The kinds of credential found in `text` (empty when none), in any of its decoded views. Linear in its length. */
export function findCredentialKinds(text: string): string[] {
  const memo = text.length <= MEMO_TEXT_CHARS;
  const known = memo ? kindsMemo.get(text) : undefined;
  if (known) return [...known];
  const kinds = new Set<string>();
  scan(text, true, (kind) => (kinds.add(kind), false));
  const out = [...kinds];
  if (memo) kindsMemo.set(text, Object.freeze([...out]));
  return out;
}

/** Whether `text` holds any credential (the same scan as findCredentialKinds, which it shares the memo with). */
export function containsCredential(text: string): boolean {
  if (text.length <= MEMO_TEXT_CHARS) return findCredentialKinds(text).length > 0;
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
