/**
 * Shared by the issue 11 credential tests: real-looking token formats, the encodings an upstream can hide them in,
 * and the real path an MCP listing takes to an agent (buildSnapshot → quarantine or gate → withDecision →
 * serializeStandard / serializeCompact). The checks here decode the served bytes with their own small decoders, so
 * they do not trust the module under test to judge its own output.
 */
import { generateKeyPairSync } from 'node:crypto';
import { withDecision } from '../../src/catalog/ingest';
import { serializeCompact, serializeStandard } from '../../src/catalog/projection';
import { buildSnapshot } from '../../src/sources/snapshot';

/** Every generated value derives from this seed (printed by the tests that use it). */
export const CORPUS_SEED = 11_002;

/** Deterministic filler (xorshift32), so a failure names a reproducible value. */
export function rnd(n: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', seed = CORPUS_SEED + n): string {
  let s = '';
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    s += alphabet[x % alphabet.length];
  }
  return s;
}
const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';

/** A bare AWS secret access key: 40 random base64 characters with all three character classes and a '/'. */
export const AWS_SECRET = `${rnd(18, B64, 7)}/${rnd(21, B64, 8)}`.replace(/^(.)/, 'w').replace(/(.)$/, '7');

let pemBody: string | undefined;
/** The base64 body of a real (freshly generated, never stored) EC private key in PKCS#8 DER, without its PEM header. */
function pemBodyWithoutHeader(): string {
  pemBody ??= generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64');
  return pemBody;
}

export interface Format {
  readonly label: string;
  /** The credential as it would be written plainly. */
  readonly secret: string;
  /** A random part of it: if this survives anywhere in the served bytes, in any decoding, the credential leaked. */
  readonly core: string;
  /** false: the format has no fixed prefix, so "glued to a preceding word" is not a distinct form of it. */
  readonly prefixed: boolean;
}

const fmt = (label: string, secret: string, core: string, prefixed = true): Format => ({ label, secret, core, prefixed });
const mid = (s: string, n = 12) => s.slice(Math.floor((s.length - n) / 2), Math.floor((s.length - n) / 2) + n);

export function formats(): Format[] {
  const b = (n: number, a?: string, seed?: number) => rnd(n, a, seed);
  const list: Array<[string, string]> = [
    ['github-pat', `ghp_${b(36, undefined, 1)}`],
    ['github-fine-grained', `github_pat_11A${b(19, undefined, 2)}_${b(59, undefined, 3)}`],
    ['aws-access-key-id', `AKIA${b(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 4)}`],
    ['slack-bot', `xoxb-1234567890-1234567890123-${b(24, undefined, 5)}`],
    ['stripe-live', `sk_live_${b(24, undefined, 6)}`],
    ['openai-project', `sk-proj-${b(48, URLSAFE, 9)}`],
    ['anthropic', `sk-ant-api03-${b(93, URLSAFE, 10)}AA`],
    ['google-api-key', `AIza${b(35, URLSAFE, 11)}`],
    ['gitlab-pat', `glpat-${b(20, undefined, 12)}`],
    ['npm', `npm_${b(36, undefined, 13)}`],
    ['huggingface', `hf_${b(34, undefined, 14)}`],
    ['sendgrid', `SG.${b(22, URLSAFE, 15)}.${b(43, URLSAFE, 16)}`],
    ['shopify', `shpat_${b(32, HEX, 17)}`],
    ['jwt', `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${b(43, URLSAFE, 18)}`],
  ];
  const out = list.map(([label, secret]) => fmt(label, secret, mid(secret.slice(secret.length - 20), 12)));
  const pass = `Pa@ss-${b(12, undefined, 19)}`;
  out.push(fmt('url-userinfo-with-at', `postgres://admin:${pass}@db.internal:5432/app`, pass.slice(6)));
  out.push(fmt('aws-secret-access-key', AWS_SECRET, mid(AWS_SECRET), false));
  const pem = pemBodyWithoutHeader();
  out.push(fmt('pem-body-without-header', pem, mid(pem, 24), false));
  return out;
}

// ---- encodings ---------------------------------------------------------------------------------------------
export interface Encoding {
  readonly label: string;
  readonly encode: (s: string) => string;
  /** Applies only to formats with a fixed prefix. */
  readonly prefixedOnly?: boolean;
  /** Applies only to secrets without a `-` or space of their own (a split by those separators would merge with theirs). */
  readonly separatorFree?: boolean;
}

/** Whether `encoding` applies to `format` (see Encoding). */
export const applies = (encoding: Encoding, format: Format): boolean =>
  (format.prefixed || !encoding.prefixedOnly) && (!encoding.separatorFree || !/[- ]/.test(format.secret));

const pctAll = (s: string) => [...Buffer.from(s, 'utf8')].map((x) => `%${x.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const insertEvery = (s: string, n: number, marks: readonly string[]) => {
  let out = '';
  for (let i = 0; i < s.length; i++) out += (i > 0 && i % n === 0 ? marks[(i / n) % marks.length] : '') + s[i];
  return out;
};

const hexBytes = (s: string) => [...Buffer.from(s, 'utf8')].map((x) => x.toString(16).padStart(2, '0'));
const b64 = (s: string) => Buffer.from(s).toString('base64');
const rot13 = (s: string) => s.replace(/[A-Za-z]/g, (c) => {
  const base = c <= 'Z' ? 65 : 97;
  return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
});
const base32 = (s: string) => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const x of Buffer.from(s)) bits += x.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += A[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out + '='.repeat((8 - (out.length % 8)) % 8);
};
/** Cyrillic (and one Greek) letters that look like the Latin ones they replace. */
const LOOKALIKE: Record<string, string> = {
  a: '\u0430', c: '\u0441', e: '\u0435', o: '\u03bf', p: '\u0440', x: '\u0445', y: '\u0443',
  A: '\u0410', B: '\u0412', E: '\u0415', H: '\u041d', K: '\u041a', M: '\u041c', O: '\u041e', P: '\u0420', T: '\u0422', X: '\u0425',
};

export const ENCODINGS: readonly Encoding[] = [
  { label: 'plain', encode: (s) => s },
  { label: 'glued to a letter', encode: (s) => `use x${s}`, prefixedOnly: true },
  { label: 'glued to a digit', encode: (s) => `id1${s}`, prefixedOnly: true },
  { label: 'glued to underscores', encode: (s) => `backup_${s}_2024`, prefixedOnly: true },
  { label: 'percent-encoded', encode: pctAll },
  { label: 'percent-encoded punctuation', encode: (s) => s.replace(/[^A-Za-z0-9]/g, (c) => pctAll(c)) },
  { label: 'double percent-encoded', encode: (s) => pctAll(s).replace(/%/g, '%25') },
  { label: 'base64 (NAME=value)', encode: (s) => Buffer.from(`GITHUB_TOKEN=${s}`).toString('base64') },
  { label: 'base64url', encode: (s) => Buffer.from(s).toString('base64url') },
  { label: 'hex', encode: (s) => Buffer.from(s).toString('hex') },
  { label: 'reversed', encode: (s) => [...s].reverse().join('') },
  { label: 'zero-width-space split', encode: (s) => insertEvery(s, 3, ['\u200b']) },
  { label: 'invisible-format split', encode: (s) => insertEvery(s, 4, ['\u00ad', '\u2060', '\ufeff', '\u200c', '\u200d']) },
  { label: 'fullwidth', encode: (s) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)) },
  { label: 'split across a quoted concat', encode: (s) => `"${s.slice(0, Math.floor(s.length / 2))}" + "${s.slice(Math.floor(s.length / 2))}"` },
  { label: 'JSON \\u escapes', encode: (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') },
  // Issue 11 red team (F7).
  { label: 'hex bytes with colons', encode: (s) => hexBytes(s).join(':') },
  { label: 'hex bytes with spaces', encode: (s) => hexBytes(s).join(' ') },
  { label: 'hex 0x byte array', encode: (s) => hexBytes(s).map((h) => `0x${h}`).join(', ') },
  { label: 'percent-encoded three times', encode: (s) => pctAll(s).replace(/%/g, '%25').replace(/%/g, '%25') },
  { label: 'ROT13', encode: rot13, prefixedOnly: true },
  { label: 'base32', encode: base32 },
  { label: 'base64 written backwards', encode: (s) => [...Buffer.from(s).toString('base64')].reverse().join('') },
  { label: 'base64 three deep', encode: (s) => b64(b64(b64(s))) },
  { label: 'Cyrillic and Greek look-alikes', encode: (s) => s.replace(/[aceopxyABEHKMOPTX]/g, (c) => LOOKALIKE[c]) },
  { label: 'grouped by dashes', encode: (s) => insertEvery(s, 6, ['-']), separatorFree: true },
  { label: 'spelled out with spaces', encode: (s) => [...s].join(' '), separatorFree: true },
  { label: 'C-style adjacent literals', encode: (s) => `"${s.slice(0, Math.floor(s.length / 2))}" "${s.slice(Math.floor(s.length / 2))}"` },
  { label: 'array join', encode: (s) => `["${s.slice(0, Math.floor(s.length / 3))}","${s.slice(Math.floor(s.length / 3))}"].join("")` },
];

// ---- the ingest path and the served bytes ------------------------------------------------------------------
export interface Served {
  /** null: served; otherwise the quarantine reason (refused). */
  readonly refused: string | null;
  /** The standard and compact views' exact bytes (empty when refused). */
  readonly views: readonly string[];
  readonly findings: ReadonlyArray<{ path: string; kinds: readonly string[]; action: string }>;
}

/** Pushes one raw `tools/list` entry through the path a sync takes and returns what an agent could be served. */
export function serve(rawTool: Record<string, unknown>, source = 'leaky'): Served {
  const [t] = buildSnapshot(source, null, [rawTool]);
  if (t.quarantineReason !== null || t.gated === null) return { refused: t.quarantineReason ?? 'not gated', views: [], findings: [] };
  const { record, findings } = withDecision(t.gated, null);
  return { refused: null, views: [serializeStandard(record), serializeCompact(record)], findings };
}

const UNLOOK: Record<string, string> = Object.fromEntries(Object.entries(LOOKALIKE).map(([latin, other]) => [other, latin]));
const unrot = rot13;
const unbase32 = (run: string) => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of run.toUpperCase().replace(/=+$/, '')) bits += A.indexOf(c).toString(2).padStart(5, '0');
  const out: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) out.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(out).toString('latin1');
};
const unpct = (t: string) => t.replace(/(?:%[0-9a-fA-F]{2})+/g, (m) => Buffer.from(m.replace(/%/g, ''), 'hex').toString('latin1'));

/**
 * Independent decodings of served text: every string value, as is, NFKC'd (look-alike letters mapped back),
 * separators and quoted joins squeezed out, reversed, ROT13'd, percent-decoded (three times), base64- (also
 * backwards, three levels), base32- and hex-decoded (also hex bytes with separators).
 */
function decodedForms(served: string): string[] {
  const strings: string[] = [served];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (strings.push(k), walk(x));
  };
  walk(JSON.parse(served));
  const out: string[] = [];
  for (const s of strings) {
    const plain = s.normalize('NFKC').replace(/[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]/g, '').replace(/["']\s*[+,]?\s*["']/g, '').replace(/./gu, (c) => UNLOOK[c] ?? c);
    const unescaped = unpct(unpct(unpct(plain.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))))));
    const squeezed = unescaped.replace(/[- ]/g, '');
    const hexJoined = unescaped.replace(/(?:0x)?([0-9a-fA-F]{2})(?:[:, ]{1,2}|$)/g, '$1');
    out.push(s, plain, unescaped, squeezed, [...unescaped].reverse().join(''), unrot(unescaped));
    const b64Levels = [unescaped, [...unescaped].reverse().join('')];
    for (let level = 0; level < 3; level++) {
      const next: string[] = [];
      for (const t of b64Levels.splice(0)) for (const run of t.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) next.push(Buffer.from(run, 'base64').toString('latin1'));
      out.push(...next);
      b64Levels.push(...next);
    }
    for (const run of unescaped.match(/[A-Z2-7]{16,}=*/g) ?? []) out.push(unbase32(run));
    for (const t of [unescaped, hexJoined]) for (const run of t.match(/(?:[0-9a-fA-F]{2}){8,}/g) ?? []) out.push(Buffer.from(run, 'hex').toString('latin1'));
  }
  return out;
}

/** The first way `core` (or the encoded form itself) can be recovered from the served views, or null. */
export function leakIn(views: readonly string[], core: string, encoded: string): string | null {
  for (const v of views) {
    if (encoded.length >= 8 && v.includes(encoded)) return 'the encoded form is served as is';
    const forms = decodedForms(v);
    if (forms.some((f) => f.includes(core))) return `the secret part ${JSON.stringify(core)} is recoverable`;
  }
  return null;
}
