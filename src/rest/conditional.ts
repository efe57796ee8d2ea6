import type { IncomingMessage, ServerResponse } from 'node:http';
import { CachedBody, StreamedBody } from '../cache/cached-body';
import { sendStreamed } from './stream-body';
import { sendJson } from './http-status';
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

/**
 * A catalog read's answer (list, tool, search): its ETag with the caching headers every read sends, then `304` when
 * If-None-Match still matches, else the exact bytes (the one home of this rule for every REST read).
 */
export function sendRevalidatable(req: IncomingMessage, res: ServerResponse, doc: { readonly body: CachedBody | StreamedBody | string; readonly etag: string }): void {
  res.setHeader('ETag', doc.etag);
  res.setHeader('Cache-Control', 'private, no-cache');
  res.setHeader('Vary', 'Authorization');
  const inm = req.headers['if-none-match'];
  if (ifNoneMatchHits(typeof inm === 'string' ? inm : undefined, doc.etag)) {
    res.writeHead(304).end();
    return;
  }
  if (doc.body instanceof StreamedBody) return sendStreamed(req, res, doc.body);
  sendJson(res, 200, doc.body instanceof CachedBody ? doc.body.bytes : doc.body);
}
