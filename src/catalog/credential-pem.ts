/**
 * PEM private keys, scanned by hand with a bound: a header's body up to its END line, and a body without its
 * header (issue 11), known by the DER structure its base64 decodes to — a private key (PKCS#8 plain or encrypted,
 * PKCS#1, SEC1, PKCS#12) and not a public key or certificate — or by the OpenSSH key magic.
 */
import type { Hit } from './credential-rules';

const PEM_CHAR = /[A-Za-z0-9+/=\s\\:,.-]/;
/** Extends a PEM header to the end of its body and END line (or the first character a PEM body cannot hold). */
export function pemEnd(text: string, from: number): number {
  const limit = Math.min(text.length, from + 65536);
  let i = from;
  while (i < limit) {
    if (text.startsWith('-----END', i)) {
      const close = text.slice(i + 8, i + 88).indexOf('-----');
      return close === -1 ? i + 8 : i + 8 + close + 5;
    }
    if (text.startsWith('-----BEGIN', i) || !PEM_CHAR.test(text[i])) return i;
    i++;
  }
  return i;
}

const B64_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_VALUE['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
const isB64 = (c: number) => c < 128 && B64_VALUE[c] >= 0;

function b64Bytes(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 3 < s.length; i += 4) {
    const n = (B64_VALUE[s.charCodeAt(i)] << 18) | (B64_VALUE[s.charCodeAt(i + 1)] << 12) | (B64_VALUE[s.charCodeAt(i + 2)] << 6) | B64_VALUE[s.charCodeAt(i + 3)];
    out.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
  }
  return out;
}

/** DER header: [header length, content length] of the element at `p`, or null. */
function derLength(b: readonly number[], p: number): [number, number] | null {
  const l = b[p + 1];
  if (l === undefined) return null;
  if (l < 0x80) return [2, l];
  if (l === 0x81 && b[p + 2] !== undefined) return [3, b[p + 2]];
  if (l === 0x82 && b[p + 3] !== undefined) return [4, (b[p + 2] << 8) | b[p + 3]];
  return null;
}

const PKCS5_OID = [0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05];
const PKCS12_PBE_OID = [0x06, 0x0a, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c, 0x01];
const startsAt = (b: readonly number[], p: number, prefix: readonly number[]) => prefix.every((x, i) => b[p + i] === x);

/**
 * The total DER length when `b` starts a private key (PKCS#8 or its encrypted form, PKCS#1 RSA/DSA, SEC1 EC,
 * PKCS#12), else 0. Public keys (SEQUENCE, SEQUENCE, OID) and certificates (SEQUENCE, SEQUENCE, [0]) do not match.
 */
function privateKeyDerLength(b: readonly number[]): number {
  if (b[0] !== 0x30) return 0;
  const outer = derLength(b, 0);
  if (!outer) return 0;
  const [h, len] = outer;
  const total = h + len;
  if (b[h] === 0x02 && b[h + 1] === 0x01) {
    const version = b[h + 2];
    const next = b[h + 3];
    if ((version === 0 || version === 1) && next === 0x30) return total; // PKCS#8 PrivateKeyInfo / OneAsymmetricKey
    if (version === 0 && next === 0x02) return total; // PKCS#1 RSAPrivateKey, DSA
    if (version === 1 && next === 0x04) return total; // SEC1 ECPrivateKey
    if (version === 3 && next === 0x30) return total; // PKCS#12 PFX (holds private keys)
    return 0;
  }
  if (b[h] === 0x30) {
    const inner = derLength(b, h);
    // EncryptedPrivateKeyInfo: SEQUENCE { SEQUENCE { OID pkcs5 (PBES2, PBE…) or pkcs12 PBE, … }, OCTET STRING }
    if (inner && (startsAt(b, h + inner[0], PKCS5_OID) || startsAt(b, h + inner[0], PKCS12_PBE_OID))) return total;
  }
  return 0;
}

/**
 * A PEM body without its header: a base64 run starting with a DER private key (or an OpenSSH key). The hit
 * runs over the following lines (whitespace or `\n` escapes between base64 chunks) until the DER length is
 * covered, so the whole key goes, not only its first line.
 */
export function judgePemBody(m: RegExpExecArray, text: string): Hit | null {
  const openssh = m[0].startsWith('b3BlbnNzaC1rZXktdjE');
  // The encrypted form's OID sits at byte 17: decode up to 32 characters of the run, not only the 16 matched.
  let head = m.index;
  while (head < m.index + 32 && head < text.length && isB64(text.charCodeAt(head))) head++;
  const needed = openssh ? Infinity : Math.ceil(privateKeyDerLength(b64Bytes(text.slice(m.index, head))) / 3) * 4;
  if (needed === 0) return null;
  const limit = Math.min(text.length, m.index + 65536);
  let i = m.index;
  let end = i;
  let count = 0;
  while (i < limit && count < needed) {
    let j = i;
    while (j < limit && (isB64(text.charCodeAt(j)) || text[j] === '=')) j++;
    if (j === i) break;
    // A following chunk joins only if it still reads as key material (a long line, or a short last one with padding).
    if (end > m.index && j - i < 16 && text[j - 1] !== '=' && count + (j - i) < needed) break;
    count += j - i;
    end = j;
    i = j;
    while (i < limit && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r' || (text[i] === '\\' && /[nr]/.test(text[i + 1] ?? '')))) i += text[i] === '\\' ? 2 : 1;
  }
  return { kind: 'pem-private-key', start: m.index, end };
}
