/**
 * The level below a text's views (credential-decode.ts): every run that decodes to mostly printable text (at most
 * 3 + 5% of its bytes neither printable ASCII nor valid UTF-8) is decoded — base64/base64url runs of at least 20
 * characters, read both forwards and backwards (red team F7: a run written backwards may also pass as garbled text
 * forwards), base32 runs of at least 24 (upper or lower case), hex runs of at least 32, and hex bytes separated by
 * `:`, `,`, `-`, `.` or whitespace, optionally `0x`-prefixed (`67:68:70…`, `0x67,0x68…`, at least 12 bytes) — at
 * the first of its alignments that does (4 for base64, 2 for base64 backwards, 4 for base32, 2 for hex: a run may
 * have a few characters glued in front). The decoded texts, joined by NULs, are one text; a hit in it maps to the
 * whole runs it overlaps, so the encoded form goes whole.
 *
 * Bounded: a run is decoded at most 13 times (6 times for a base64 run, 10 for one that is also base32, which needs
 * 24 characters), each attempt stops as soon as too many bytes are not printable (binary and misaligned data stop
 * within a few bytes), a base32 run already decoded as base64 is not decoded again, and the joined text is at most
 * 3/2 (base64, both directions) plus 5/8 (base32) plus 1/2 (hex) plus 1/3 (separated hex) of the input.
 */
import { type View, work } from './credential-decode';

const MIN_BASE64_RUN = 20;
const MIN_HEX_RUN = 32;
const MIN_BASE32_RUN = 24;

const B64_VALUE = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (B64_VALUE[c.charCodeAt(0)] = i));
B64_VALUE['-'.charCodeAt(0)] = 62; // base64url
B64_VALUE['_'.charCodeAt(0)] = 63;
const HEX_VALUE = new Int8Array(128).fill(-1);
'0123456789abcdef'.split('').forEach((c, i) => (HEX_VALUE[c.charCodeAt(0)] = HEX_VALUE[c.toUpperCase().charCodeAt(0)] = i));

const B32_VALUE = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.split('').forEach((c, i) => (B32_VALUE[c.charCodeAt(0)] = B32_VALUE[c.toLowerCase().charCodeAt(0)] = i));

const B32_RUN = new RegExp(`(?<![A-Za-z0-9+/_=-])(?:[A-Z2-7]{${MIN_BASE32_RUN},}|[a-z2-7]{${MIN_BASE32_RUN},})={0,6}`, 'g');
/** Hex bytes with separators: the start pinned to a non-alphanumeric (or 0x) boundary; at least 12 bytes. */
const SEP_HEX_RUN = /(?<![0-9A-Za-z])(?:0[xX])?[0-9A-Fa-f]{2}(?:(?:[:,.\s-]|, )(?:0[xX])?[0-9A-Fa-f]{2}){11,}(?![0-9A-Za-z])/g;
const B64_RUN = new RegExp(`(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{${MIN_BASE64_RUN},}={0,2}`, 'g');
const HEX_RUN = new RegExp(`(?<![0-9A-Fa-f])[0-9A-Fa-f]{${MIN_HEX_RUN},}`, 'g');

let scratch = new Uint8Array(1024);
const isPrintableAscii = (x: number) => (x >= 0x20 && x < 0x7f) || x === 9 || x === 10 || x === 13;
/** Continuation bytes a UTF-8 lead byte announces (0: not a lead byte). */
const utf8Continuations = (x: number) => (x >= 0xc2 && x <= 0xdf ? 1 : x >= 0xe0 && x <= 0xef ? 2 : x >= 0xf0 && x <= 0xf4 ? 3 : 0);

/**
 * Decodes text[from, to) (base64/base64url at 6 bits a character, hex at 4) as text: null when more than 3 + 5% of
 * its bytes are neither printable ASCII nor part of valid UTF-8. Checked while decoding, so binary and misaligned
 * data stop after a few bytes.
 */
function decodeRun(text: string, from: number, to: number, bitsPerChar: 4 | 5 | 6): string | null {
  const table = bitsPerChar === 6 ? B64_VALUE : bitsPerChar === 5 ? B32_VALUE : HEX_VALUE;
  const maxBytes = Math.floor(((to - from) * bitsPerChar) / 8);
  if (maxBytes > scratch.length) scratch = new Uint8Array(maxBytes * 2);
  const tolerance = 3 + Math.floor(maxBytes / 20);
  work.attempts++;
  let acc = 0;
  let bits = 0;
  let out = 0;
  let bad = 0;
  let pending = 0; // UTF-8 continuation bytes still expected
  for (let i = from; i < to; i++) {
    acc = ((acc << bitsPerChar) | table[text.charCodeAt(i)]) & 0xffff;
    bits += bitsPerChar;
    if (bits < 8) continue;
    bits -= 8;
    const x = (acc >> bits) & 0xff;
    scratch[out++] = x;
    let ok: boolean;
    if (pending > 0 && (x & 0xc0) === 0x80) (pending--, (ok = true));
    else {
      ok = pending === 0; // a sequence cut short is one bad byte
      pending = x < 0x80 ? 0 : utf8Continuations(x);
      ok = ok && (x < 0x80 ? isPrintableAscii(x) : pending > 0);
    }
    if (!ok && ++bad > tolerance) return (work.bytes += out), null;
  }
  work.bytes += out;
  if (pending > 0) bad++;
  return out >= 12 && bad <= tolerance ? Buffer.from(scratch.subarray(0, out)).toString('utf8') : null;
}

function firstDecoding(text: string, from: number, to: number, alignments: number, min: number, bits: 4 | 5 | 6): string | null {
  for (let k = 0; k < alignments && to - (from + k) >= min; k++) {
    const decoded = decodeRun(text, from + k, to, bits);
    if (decoded !== null) return decoded;
  }
  return null;
}

let backScratch = new Uint16Array(1024);
/** A base64 run written backwards (its padding, if any, leads it and is not part of the run). */
function backwardsDecoding(text: string, from: number, to: number, alignments: number, min: number): string | null {
  if (backScratch.length < to - from) backScratch = new Uint16Array(2 * (to - from));
  let n = 0;
  for (let i = to - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c !== 61) backScratch[n++] = c; // '='
  }
  const s = Buffer.from(backScratch.buffer, 0, n * 2).toString('utf16le');
  return firstDecoding(s, 0, s.length, alignments, min, 6);
}

interface Segment {
  /** The run in the parent view. */
  readonly start: number;
  readonly end: number;
  /** Where its decoded text sits in the joined text. */
  readonly at: number;
  readonly length: number;
}

/** Every base64/hex run of `parent` that decodes to text, joined into one view over `parent`, or null. */
export function decodedView(parent: View): View | null {
  const text = parent.text;
  const found: Array<{ start: number; end: number; decoded: string }> = [];
  const decodedAt = new Set<number>();
  const runs = (re: RegExp, alignments: number, min: number, bits: 4 | 5 | 6, backwards: boolean) => {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const end = m.index + m[0].length;
      if (bits === 5 && decodedAt.has(m.index)) continue;
      const data = end - (m[0].length - m[0].replace(/=+$/, '').length); // padding is part of the run, not of the data
      // Both directions: a run written backwards may also pass as (garbled) text forwards.
      for (const decoded of [firstDecoding(text, m.index, data, alignments, min, bits), backwards ? backwardsDecoding(text, m.index, end, 2, min) : null]) {
        if (decoded === null) continue;
        found.push({ start: m.index, end, decoded });
        decodedAt.add(m.index);
      }
    }
  };
  runs(B64_RUN, 4, MIN_BASE64_RUN, 6, true);
  runs(B32_RUN, 4, MIN_BASE32_RUN, 5, false);
  runs(HEX_RUN, 2, MIN_HEX_RUN, 4, false);
  SEP_HEX_RUN.lastIndex = 0;
  for (let m = SEP_HEX_RUN.exec(text); m !== null; m = SEP_HEX_RUN.exec(text)) {
    const digits = m[0].replace(/0[xX]|[^0-9A-Fa-f]/g, '');
    const decoded = decodeRun(digits, 0, digits.length, 4);
    if (decoded !== null) found.push({ start: m.index, end: m.index + m[0].length, decoded });
  }
  if (found.length === 0) return null;
  const segments: Segment[] = [];
  let at = 0;
  for (const f of found) {
    segments.push({ start: f.start, end: f.end, at, length: f.decoded.length });
    at += f.decoded.length + 1;
  }
  const joined = found.map((f) => f.decoded).join('\u0000');
  work.viewChars += joined.length;
  return {
    text: joined,
    toSource: (s, e) => {
      // Segments are in order of `at`: the first one ending after s, through the last one starting before e.
      let lo = 0;
      let hi = segments.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (segments[mid].at + segments[mid].length <= s) lo = mid + 1;
        else hi = mid;
      }
      let start = Infinity;
      let stop = -Infinity;
      for (let i = Math.min(lo, segments.length - 1); i < segments.length && (segments[i].at < e || i === lo); i++) {
        start = Math.min(start, segments[i].start);
        stop = Math.max(stop, segments[i].end);
      }
      return parent.toSource(start, stop);
    },
  };
}
