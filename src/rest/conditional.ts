/**
 * If-None-Match evaluation (RFC 9110 13.1.2), done here rather than by Express's `req.fresh`, which ignores
 * If-None-Match whenever the request also says `Cache-Control: no-cache` (as Node's fetch() does).
 * Weak comparison: W/ prefixes are ignored on both sides.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.length > 8192) return false;
  if (header.trim() === '*') return true;
  const strip = (t: string) => (t.startsWith('W/') ? t.slice(2) : t);
  const target = strip(etag);
  return header.split(',').some((t) => strip(t.trim()) === target);
}
