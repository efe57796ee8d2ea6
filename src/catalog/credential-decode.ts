/**
 * Decoding before matching (issue 11): the views of a text that credential rules are run over, each able to map
 * a span of its own text back to the span of the original that produced it, so what a decoded form reveals is
 * redacted (or refused) in the original and the agent can never recover it.
 *
 * Views of one level: the text as is; normalised (each character NFKC'd on its own, so fullwidth and styled
 * letters become ASCII; invisible characters — Unicode Default_Ignorable (zero-width space/joiners, word joiner,
 * BOM, soft hyphen, variation selectors, tag characters…), control characters other than tab/CR/LF, combining
 * marks, lone surrogates, private-use and unassigned code points — removed;
 * `"abc" + "def"` joined); unescaped (percent-encoding with UTF-8, `\xHH`, `\uHHHH`, `\u{…}`, `&#NN;`, `&#xHH;`;
 * twice, for double encoding; normalised again after each round); and the last of these reversed. Below them,
 * the base64 and hex runs that decode to text form one more text, scanned the same way one level down
 * (credential-decode-runs.ts), at most MAX_DEPTH levels.
 *
 * Bounded and linear: each level builds a constant number of views of at most 4 times the length of its input
 * (see nfkc) and hands down at most 5/4 of its length as decoded text (credential-decode-runs.ts); with the depth
 * bound the total is a constant multiple of the input. `lastDecodeWork()` exposes the count for the tests.
 */

export interface View {
  readonly text: string;
  /** The span [start, end) of the original text that produced this view's span [s, e) (e > s). */
  toSource(s: number, e: number): [number, number];
}

export const MAX_DEPTH = 2;

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
const NEEDS_NORMALISING = /[^\t\n\r\x20-\x7e]|["'`][ \t]{0,8}\+[ \t\r\n]{0,8}["'`]/;
// Invisible or meaningless inside a token: Default_Ignorable, controls, combining marks, lone surrogates, private use, unassigned.
const INVISIBLE = /^[\p{Default_Ignorable_Code_Point}\p{Cc}\p{M}\p{Cs}\p{Co}\p{Cn}]$/u;
const CONCAT = /["'`][ \t]{0,8}\+[ \t\r\n]{0,8}["'`]/g;

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
  // Literal pieces joined by `+` read as one literal: drop the closing quote, the operator and the opening quote.
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

/** The views of one level: as is, normalised, unescaped (twice), reversed; `forward` is the last unreversed one. */
export function levelViews(text: string): { views: View[]; forward: View } {
  const views: View[] = [identity(text)];
  let forward = views[0];
  const n = normalise(forward);
  if (n) views.push((forward = n));
  for (let round = 0; round < 2; round++) {
    const u = unescape(forward);
    if (!u) break;
    forward = normalise(u) ?? u;
    views.push(forward);
  }
  views.push(reversed(forward));
  return { views, forward };
}
