/**
 * Decoding before matching (issue 11): the views of a text that credential rules are run over, each able to map
 * a span of its own text back to the span of the original that produced it, so what a decoded form reveals is
 * redacted (or refused) in the original and the agent can never recover it.
 *
 * Views of one level: the text as is; normalised (each character NFKC'd on its own, so fullwidth and styled
 * letters become ASCII, then Latin look-alikes from Cyrillic, Greek and Armenian — `р`, `ο`, `а`, … — mapped to the
 * letter they imitate (red team F7); invisible characters — Unicode Default_Ignorable (zero-width space/joiners,
 * word joiner, BOM, soft hyphen, variation selectors, tag characters…), control characters other than tab/CR/LF,
 * combining marks, lone surrogates, private-use and unassigned code points — removed; quoted pieces joined:
 * `"abc" + "def"`, C-style `"abc" "def"` and array items `["abc","def"]`); unescaped (percent-encoding with UTF-8,
 * `\xHH`, `\uHHHH`, `\u{…}`, `&#NN;`, `&#xHH;`; repeated while escapes remain, at most MAX_UNESCAPE rounds, for
 * multiply encoded text; normalised again after each round); the last of these reversed; ROT13'd (only the
 * token-format rules run there: the generic shapes read the same either way); and degrouped — runs of short
 * groups split by single dashes or spaces (`ghp_A1b2C3-d4E5f6-…`, `g h p _ A 1 …`) joined, where the joined run
 * looks random and most groups are not plain words. Below them, the base64 (also written backwards), base32, hex
 * and separated-hex (`67:68:70`, `0x67,0x68`) runs that decode to text form one more text, scanned the same way
 * one level down (credential-decode-runs.ts), at most MAX_DEPTH levels.
 *
 * Bounded and linear: each level builds a constant number of views of at most 4 times the length of its input
 * (see nfkc; unescaping only shrinks a text) and hands down at most a constant multiple of its length as decoded text
 * (credential-decode-runs.ts); with the depth bound the total is a constant multiple of the input.
 * `lastDecodeWork()` exposes the count for the tests.
 */

import { looksRandom } from './credential-shape';

export interface View {
  readonly text: string;
  /** Only the token-format rules (those keyed on a word) run over this view (the ROT13 one). */
  readonly formatsOnly?: boolean;
  /** The span [start, end) of the original text that produced this view's span [s, e) (e > s). */
  toSource(s: number, e: number): [number, number];
}

export const MAX_DEPTH = 3;
const MAX_UNESCAPE = 4;

export interface DecodeWork {
  /** Decodes attempted (one per run and alignment tried). */
  attempts: number;
  /** Bytes produced by those attempts, including the ones stopped early. */
  bytes: number;
  /** Characters of all views built. */
  viewChars: number;
}
/** Work of the current top-level scan (credentials.ts resets it), shared with credential-decode-runs.ts. */
export const work: DecodeWork = { attempts: 0, bytes: 0, viewChars: 0 };
/** Work done by the last top-level scan. */
export function lastDecodeWork(): DecodeWork {
  return { ...work };
}
export function resetDecodeWork(): void {
  work.attempts = work.bytes = work.viewChars = 0;
}

const identity = (text: string): View => ({ text, toSource: (s, e) => [s, e] });

/** Accumulates a view's text and, per UTF-16 unit, the span of its parent it came from (typed arrays: 1 MB stays cheap). */
class Builder {
  private units = new Uint16Array(256);
  private lo = new Int32Array(256);
  private hi = new Int32Array(256);
  private n = 0;
  push(s: string, lo: number, hi: number): void {
    if (this.n + s.length > this.units.length) this.grow(this.n + s.length);
    for (let k = 0; k < s.length; k++, this.n++) (this.units[this.n] = s.charCodeAt(k), (this.lo[this.n] = lo), (this.hi[this.n] = hi));
  }
  private grow(min: number): void {
    const size = Math.max(min, this.units.length * 2);
    const units = new Uint16Array(size);
    const lo = new Int32Array(size);
    const hi = new Int32Array(size);
    units.set(this.units);
    lo.set(this.lo);
    hi.set(this.hi);
    [this.units, this.lo, this.hi] = [units, lo, hi];
  }
  over(parent: View): View {
    const { lo, hi } = this;
    const text = unitsToString(this.units, this.n);
    work.viewChars += text.length;
    return { text, toSource: (s, e) => parent.toSource(lo[s], hi[e - 1]) };
  }
}

const unitsToString = (units: Uint16Array, n: number) => Buffer.from(units.buffer, units.byteOffset, n * 2).toString('utf16le');

// ---- normalisation -------------------------------------------------------------------------------------------
const JOIN = `["'\`](?:[ \\t]{0,8}[+,][ \\t\\r\\n]{0,8}|[ \\t\\r\\n]{1,8})["'\`]`;
const NEEDS_NORMALISING = new RegExp(`[^\\t\\n\\r\\x20-\\x7e]|${JOIN}`);
// Invisible or meaningless inside a token: Default_Ignorable, controls, combining marks, lone surrogates, private use, unassigned.
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\p{Cc}\p{M}\p{Cs}\p{Co}\p{Cn}]$/u;
const CONCAT = new RegExp(JOIN, 'g');

/** Letters of other scripts that imitate Latin ones (the unambiguous part of Unicode's confusables data), applied after NFKC. */
const CONFUSABLE: Readonly<Record<string, string>> = Object.fromEntries(
  [
    // Cyrillic
    'аa', 'сc', 'ԁd', 'еe', 'һh', 'іi', 'јj', 'ӏl', 'оo', 'рp', 'ԛq', 'ѕs', 'ԝw', 'хx', 'уy',
    'АA', 'ВB', 'СC', 'ЕE', 'НH', 'ІI', 'ЈJ', 'КK', 'МM', 'ОO', 'РP', 'ԚQ', 'ЅS', 'ТT', 'ԜW', 'ХX', 'УY', 'ҮY',
    // Greek
    'αa', 'ιi', 'κk', 'νv', 'οo', 'ρp', 'τt', 'υu', 'χx', 'ϲc', 'ϳj',
    'ΑA', 'ΒB', 'ΕE', 'ΖZ', 'ΗH', 'ΙI', 'ΚK', 'ΜM', 'ΝN', 'ΟO', 'ΡP', 'ΤT', 'ΥY', 'ΧX', 'ϹC', 'ϺM',
    // Armenian, Latin extensions
    'օo', 'սu', 'հh', 'ոn', 'ɡg', 'ɑa', 'ıi', 'ȷj',
  ].map((p) => [p[0], p[p.length - 1]]),
);

/**
 * One character NFKC'd, or '' when invisible; cached, since hostile text repeats few distinct characters. An
 * expansion longer than 4 (U+FDFA is 18 characters) stays as it was: none spells a token, and the cap keeps a
 * view at most 4 times its input.
 */
const NFKC_CACHE = new Map<string, string>();
const MAX_EXPANSION = 4;
function nfkc(ch: string): string {
  let n = NFKC_CACHE.get(ch);
  if (n === undefined) {
    if (NFKC_CACHE.size >= 4096) NFKC_CACHE.clear();
    n = INVISIBLE.test(ch) ? '' : ch.normalize('NFKC');
    n = CONFUSABLE[n] ?? n;
    NFKC_CACHE.set(ch, (n = n.length > MAX_EXPANSION ? ch : n));
  }
  return n;
}

function normalise(parent: View): View | null {
  const text = parent.text;
  if (!NEEDS_NORMALISING.test(text)) return null;
  const b = new Builder();
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    if (cp < 0x80) {
      if (cp >= 0x20 ? cp !== 0x7f : cp === 9 || cp === 10 || cp === 13) b.push(text[i], i, i + 1);
    } else {
      const ch = text.slice(i, i + len);
      const n = nfkc(ch);
      if (n.length) b.push(n, i, i + len);
    }
    i += len;
  }
  const v = b.over(parent);
  // Literal pieces joined by `+`, `,` or juxtaposition read as one literal: drop the closing quote, the operator and the opening quote.
  CONCAT.lastIndex = 0;
  if (!CONCAT.test(v.text)) return v;
  const joined = new Builder();
  CONCAT.lastIndex = 0;
  let from = 0;
  for (let m = CONCAT.exec(v.text); m !== null; m = CONCAT.exec(v.text)) {
    for (let i = from; i < m.index; i++) joined.push(v.text[i], i, i + 1);
    from = m.index + m[0].length;
  }
  for (let i = from; i < v.text.length; i++) joined.push(v.text[i], i, i + 1);
  return joined.over(v);
}

// ---- unescaping ----------------------------------------------------------------------------------------------
const HAS_ESCAPE = /%[0-9A-Fa-f]{2}|\\(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|u\{[0-9A-Fa-f]{1,6}\})|&#(?:[0-9]{1,7}|[xX][0-9A-Fa-f]{1,6});/;
const HEX_DIGIT = /^[0-9A-Fa-f]$/;
const hexAt = (t: string, i: number, n: number) => {
  for (let k = 0; k < n; k++) if (!HEX_DIGIT.test(t[i + k] ?? '')) return false;
  return true;
};
const PCT_RUN = /(?:%[0-9A-Fa-f]{2})+/y;
const ENTITY = /&#(?:([0-9]{1,7})|[xX]([0-9A-Fa-f]{1,6}));/y;
const BRACED = /\\u\{([0-9A-Fa-f]{1,6})\}/y;

/** Percent-encoded bytes as UTF-8 where they form valid sequences, else one Latin-1 character per byte. */
function pushPercentRun(b: Builder, text: string, start: number, end: number): void {
  const bytes: number[] = [];
  for (let i = start; i < end; i += 3) bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
  for (let k = 0; k < bytes.length; ) {
    const n = utf8Length(bytes, k);
    if (n > 1) {
      b.push(Buffer.from(bytes.slice(k, k + n)).toString('utf8'), start + 3 * k, start + 3 * (k + n));
      k += n;
    } else (b.push(String.fromCharCode(bytes[k]), start + 3 * k, start + 3 * k + 3), k++);
  }
}

/** Length of the valid UTF-8 sequence starting at bytes[k] (1 for ASCII), or 0 when there is none. */
function utf8Length(bytes: ArrayLike<number>, k: number, end = bytes.length): number {
  const b0 = bytes[k];
  const n = b0 < 0x80 ? 1 : b0 >= 0xc2 && b0 <= 0xdf ? 2 : b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
  if (n === 0 || k + n > end) return 0;
  for (let j = 1; j < n; j++) if ((bytes[k + j] & 0xc0) !== 0x80) return 0;
  return n;
}

function unescape(parent: View): View | null {
  const text = parent.text;
  if (!HAS_ESCAPE.test(text)) return null;
  const b = new Builder();
  for (let i = 0; i < text.length; ) {
    const c = text[i];
    if (c === '%') {
      PCT_RUN.lastIndex = i;
      if (PCT_RUN.exec(text)) {
        pushPercentRun(b, text, i, PCT_RUN.lastIndex);
        i = PCT_RUN.lastIndex;
        continue;
      }
    } else if (c === '\\' && text[i + 1] === 'x' && hexAt(text, i + 2, 2)) {
      b.push(String.fromCharCode(parseInt(text.slice(i + 2, i + 4), 16)), i, i + 4);
      i += 4;
      continue;
    } else if (c === '\\' && text[i + 1] === 'u') {
      if (hexAt(text, i + 2, 4)) {
        b.push(String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16)), i, i + 6);
        i += 6;
        continue;
      }
      BRACED.lastIndex = i;
      const m = BRACED.exec(text);
      const cp = m ? parseInt(m[1], 16) : -1;
      if (m && cp <= 0x10ffff) {
        b.push(String.fromCodePoint(cp), i, i + m[0].length);
        i += m[0].length;
        continue;
      }
    } else if (c === '&' && text[i + 1] === '#') {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(text);
      const cp = m ? (m[1] !== undefined ? parseInt(m[1], 10) : parseInt(m[2], 16)) : -1;
      if (m && cp <= 0x10ffff) {
        b.push(String.fromCodePoint(cp), i, i + m[0].length);
        i += m[0].length;
        continue;
      }
    }
    b.push(c, i, i + 1);
    i++;
  }
  return b.over(parent);
}

function reversed(base: View): View {
  const n = base.text.length;
  const units = new Uint16Array(n);
  for (let i = 0; i < n; i++) units[n - 1 - i] = base.text.charCodeAt(i);
  const text = unitsToString(units, n);
  work.viewChars += n;
  return { text, toSource: (s, e) => base.toSource(n - e, n - s) };
}

// ---- ROT13 and degrouping -------------------------------------------------------------------------------------
function rot13(base: View): View {
  const n = base.text.length;
  const units = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const c = base.text.charCodeAt(i);
    units[i] = c >= 65 && c <= 90 ? ((c - 52) % 26) + 65 : c >= 97 && c <= 122 ? ((c - 84) % 26) + 97 : c;
  }
  work.viewChars += n;
  return { text: unitsToString(units, n), formatsOnly: true, toSource: base.toSource };
}

/** Runs of at least three short groups (token characters: base64's `+` and `/`, and `.`, included) split by one kind of single separator (`-` or a space); the start pinned to a group start. */
const GROUPED = /(?<![A-Za-z0-9_+/.])[A-Za-z0-9_+/.]{1,16}([- ])[A-Za-z0-9_+/.]{1,16}(?:\1[A-Za-z0-9_+/.]{1,16})+/g;
const PLAIN_WORD = /^(?:[A-Z]?[a-z]+|[A-Z]{1,4}|[0-9]{1,4})$/;

/** Whether the groups of one run read as a token split into chunks: random-looking joined, mostly not plain words. */
function chunkedToken(groups: readonly string[]): boolean {
  const joined = groups.join('');
  if (joined.length < 20 || !looksRandom(joined, 20)) return false;
  let plain = 0;
  for (const g of groups) if (PLAIN_WORD.test(g)) plain++;
  return plain * 3 <= groups.length;
}

/** Stretches of at least MIN_SPELLED single characters inside a run (a token spelled out), as [first, last] group indexes. */
const MIN_SPELLED = 12;
function spelledStretches(groups: readonly string[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < groups.length; ) {
    if (groups[i].length !== 1) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < groups.length && groups[j + 1].length === 1) j++;
    if (j - i + 1 >= MIN_SPELLED && looksRandom(groups.slice(i, j + 1).join(''), MIN_SPELLED)) out.push([i, j]);
    i = j + 1;
  }
  return out;
}

function degroup(parent: View): View | null {
  const text = parent.text;
  if (!text.includes('-') && !text.includes(' ')) return null;
  let b: Builder | null = null;
  let from = 0;
  GROUPED.lastIndex = 0;
  for (let m = GROUPED.exec(text); m !== null; m = GROUPED.exec(text)) {
    const sep = m[1];
    const groups = m[0].split(sep);
    // Separators to drop, as offsets into the run: all of them for a chunked token, else those inside spelled stretches.
    const drop = new Set<number>();
    const offsets: number[] = [];
    for (let k = 0, at = 0; k < groups.length; at += groups[k].length + 1, k++) offsets.push(at);
    if (chunkedToken(groups)) for (let k = 1; k < groups.length; k++) drop.add(offsets[k] - 1);
    else for (const [i, j] of spelledStretches(groups)) for (let k = i + 1; k <= j; k++) drop.add(offsets[k] - 1);
    if (drop.size === 0) continue;
    b ??= new Builder();
    for (let i = from; i < m.index; i++) b.push(text[i], i, i + 1);
    for (let k = 0; k < m[0].length; k++) if (!drop.has(k)) b.push(text[m.index + k], m.index + k, m.index + k + 1);
    from = m.index + m[0].length;
  }
  if (b === null) return null;
  for (let i = from; i < text.length; i++) b.push(text[i], i, i + 1);
  return b.over(parent);
}

/**
 * The views of one level: as is, normalised, unescaped (while escapes remain, at most MAX_UNESCAPE rounds),
 * reversed, ROT13'd, degrouped; `forward` is the last unreversed, unrotated one.
 */
export function levelViews(text: string): { views: View[]; forward: View } {
  const views: View[] = [identity(text)];
  let forward = views[0];
  const n = normalise(forward);
  if (n) views.push((forward = n));
  for (let round = 0; round < MAX_UNESCAPE; round++) {
    const u = unescape(forward);
    if (!u) break;
    forward = normalise(u) ?? u;
    views.push(forward);
  }
  views.push(reversed(forward));
  if (/[A-Za-z]/.test(forward.text)) views.push(rot13(forward));
  const d = degroup(forward);
  if (d) views.push(d);
  return { views, forward };
}
