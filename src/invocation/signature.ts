import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature on a call toolcat sends to a host extension's HTTP implementation (issue 14 item 4: "a signed
 * request so the endpoint can trust it"). HMAC-SHA256, keyed by the implementation's secret, over
 * `<timestamp>.<body bytes>`; the timestamp (Unix seconds) bounds replay of a captured request. The scheme is the
 * one webhook senders use (Stripe, Slack), so endpoints can verify it with a few lines in any language:
 *
 *   X-Toolcat-Timestamp: 1796140800
 *   X-Toolcat-Signature: v1=<hex of HMAC-SHA256(secret, "1796140800." + body)>
 *
 * docs/extensions.md documents it for implementers.
 */
export const SIGNATURE_HEADERS = Object.freeze({ timestamp: 'X-Toolcat-Timestamp', signature: 'X-Toolcat-Signature' });

/** How far a request's timestamp may be from the endpoint's clock, either way. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

const VERSION = 'v1=';

function signatureOf(secret: string, timestamp: string, body: Buffer | string): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return `${VERSION}${mac.digest('hex')}`;
}

/** The two headers for a request body, signed at `nowSeconds`. */
export function signedHeaders(secret: string, body: Buffer | string, nowSeconds: number): Record<string, string> {
  const timestamp = String(Math.floor(nowSeconds));
  return { [SIGNATURE_HEADERS.timestamp]: timestamp, [SIGNATURE_HEADERS.signature]: signatureOf(secret, timestamp, body) };
}

/**
 * What is wrong with a received request's signature, or null when it is good: for endpoints (the demo's, and any
 * written in TypeScript). Compared in constant time.
 */
export function signatureProblem(
  secret: string,
  timestamp: string | null,
  body: Buffer | string,
  signature: string | null,
  nowSeconds: number = Date.now() / 1000,
): 'missing' | 'stale' | 'mismatch' | null {
  if (!timestamp || !signature) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'mismatch';
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) return 'stale';
  const expected = Buffer.from(signatureOf(secret, timestamp, body));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected) ? null : 'mismatch';
}
