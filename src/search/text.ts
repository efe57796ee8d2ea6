import { STOP_WORDS } from './stopwords';
import { type StemmerName, stemmerFor } from './stem';

/**
 * Text normalisation and tokenisation, shared by tool text and queries (one function both sides, so a tool and a
 * task that spell a word the same way always meet on one token).
 *
 *   1. NFKC (full-width Latin and digits, ligatures, compatibility forms fold to their plain form).
 *   2. Control and format characters (C0/C1, zero-width, bidi overrides) become separators.
 *   3. Whitespace-free runs longer than MAX_RUN_CHARS are dropped whole: no word, identifier, path or URL a person
 *      writes is that long, but data pasted into a task is (base64 images, hex dumps, minified JSON).
 *   4. A run splits into words on every character that is not a letter, mark or digit: `_ - . / : @ #` ...
 *   5. A word splits on camelCase (`getBaziDetail` -> get, bazi, detail; `HTMLParser` -> html, parser); a word that
 *      split also keeps its joined form (`getbazidetail`), so a task that names a tool outright still matches it.
 *      Letter-digit boundaries do not split (`mp3`, `s3`, `ipv4`, `h264` stay whole).
 *   6. Han, Kana and Hangul have no spaces: each such span becomes overlapping bigrams (a lone character stays a
 *      unigram), the CJK analyser convention of Lucene and Elasticsearch. It needs no dictionary and matches a
 *      Chinese task to a Chinese description; English tasks reach Chinese-described tools through names and
 *      parameter names, which are nearly always English identifiers.
 *   7. Lower case; combining marks are stripped from Latin words (`café` -> cafe), not from scripts whose marks
 *      are letters' vowels (Devanagari, Thai).
 *   8. Stop words (stopwords.ts), pure numbers and tokens longer than MAX_TOKEN_CHARS are dropped; the rest are
 *      stemmed (stem.ts).
 */
export const MAX_RUN_CHARS = 256;
const MAX_TOKEN_CHARS = 32;

export interface TokenizeOptions {
  readonly stemmer: StemmerName;
  /** Keep the joined form of camelCase words (default true). */
  readonly compounds?: boolean;
}

export const DEFAULT_TOKENIZE: TokenizeOptions = { stemmer: 'light', compounds: true };

const CONTROL = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\u2028\u2029]/gu;
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]+/u;
const CJK_SPLIT = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc]+)/u;
const LATIN_WORD = /^[\p{Script=Latin}\p{M}\p{N}]+$/u;
const MARKS = /\p{M}+/gu;
const DIGITS = /^\p{N}+$/u;
/** Lower-to-upper, and an upper run before an upper-lower pair (`HTMLParser` -> HTML|Parser). */
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{N})(?=\p{Lu}\p{Ll})/u;

/** Normalised, stop-word-free, stemmed tokens in text order (duplicates kept: term frequency counts them). */
export function tokenize(text: string, opts: TokenizeOptions = DEFAULT_TOKENIZE): string[] {
  const out: string[] = [];
  const words = wordCache(opts);
  const push = (word: string): void => {
    let tokens = words.get(word);
    if (!tokens) {
      tokens = wordTokens(word, opts);
      if (words.size >= WORD_CACHE_SIZE) words.clear();
      words.set(word, tokens);
    }
    for (let i = 0; i < tokens.length; i++) out.push(tokens[i]);
  };
  if (ASCII_PRINTABLE.test(text)) {
    asciiWords(text, push);
    return out;
  }
  const clean = text.normalize('NFKC').replace(CONTROL, ' ');
  for (const run of clean.split(/\s+/)) {
    if (run.length === 0 || run.length > MAX_RUN_CHARS) continue;
    for (const word of run.match(WORD) ?? []) push(word);
  }
  return out;
}

/** The same split as the general path, by char codes: most tool text is ASCII, and this is ~5x faster. */
function asciiWords(text: string, push: (w: string) => void): void {
  const pending: Array<[number, number]> = [];
  let runStart = 0;
  let wordStart = -1;
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (alnum) {
      if (wordStart < 0) wordStart = i;
      continue;
    }
    if (wordStart >= 0) {
      pending.push([wordStart, i]);
      wordStart = -1;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      if (i - runStart <= MAX_RUN_CHARS) for (const [a, b] of pending) push(text.slice(a, b));
      pending.length = 0;
      runStart = i + 1;
    }
  }
}

/**
 * Words repeat across tools and queries far more than texts do, so a word's tokens are memoised (per options
 * object). Cleared, not evicted, when full: simple, bounded, and a refill costs only the misses.
 */
const WORD_CACHE_SIZE = 100_000;
const ASCII_PRINTABLE = /^[\x20-\x7e\t\n\r]*$/;
const caches = new WeakMap<TokenizeOptions, Map<string, readonly string[]>>();

function wordCache(opts: TokenizeOptions): Map<string, readonly string[]> {
  let c = caches.get(opts);
  if (!c) {
    c = new Map();
    caches.set(opts, c);
  }
  return c;
}

function wordTokens(word: string, opts: TokenizeOptions): string[] {
  const out: string[] = [];
  const stem = stemmerFor(opts.stemmer);
  const compounds = opts.compounds ?? true;
  const emit = (raw: string): void => {
    let t = raw.toLowerCase();
    if (!ASCII_PRINTABLE.test(t) && LATIN_WORD.test(t)) t = t.normalize('NFD').replace(MARKS, '');
    if (t.length === 0 || t.length > MAX_TOKEN_CHARS || DIGITS.test(t) || STOP_WORDS.has(t)) return;
    out.push(stem(t));
  };
  if (CJK.test(word)) {
    for (const part of word.split(CJK_SPLIT)) {
      if (!part) continue;
      if (CJK.test(part)) cjkGrams(part, out);
      else splitWord(part, emit, compounds);
    }
  } else splitWord(word, emit, compounds);
  return out;
}

function splitWord(word: string, emit: (t: string) => void, compounds: boolean): void {
  const parts = HAS_UPPER.test(word) ? word.split(CAMEL).filter(Boolean) : [word];
  for (const p of parts) emit(p);
  if (compounds && parts.length > 1) emit(word);
}

const HAS_UPPER = /\p{Lu}/u;

function cjkGrams(span: string, out: string[]): void {
  const chars = Array.from(span);
  if (chars.length === 1) {
    out.push(chars[0]);
    return;
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
}
