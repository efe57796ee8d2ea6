import { sha256Base64url } from '../shared/sha256';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ifNoneMatchHits } from '../rest/conditional';
import { sendJson } from '../rest/http-status';
import { splitTarget } from '../shared/request-target';
import { errorBody } from '../shared/transport-answers';

/** The package root: this file runs as dist/src/http/published-documents.js. */
const ROOT = join(__dirname, '..', '..', '..');

/**
 * The checked-in documents that describe the HTTP surface (issue 17), served without a credential: `/openapi.json`
 * and the JSON Schemas it references by relative path (`schemas/v2/…`). Serving the schemas beside the document means
 * its relative `$ref`s resolve the same from a running host as from the repository. The bytes are read once, at
 * start, and served exactly as checked in (tests compare them with the files), so the document cannot drift from
 * what the repository reviews.
 */
export function createPublishedDocuments(): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = new Map<string, { bytes: Buffer; etag: string }>();
  for (const [path, file] of [
    ['/openapi.json', 'openapi.json'],
    ['/schemas/v2/tool-descriptor.schema.json', 'schemas/v2/tool-descriptor.schema.json'],
    ['/schemas/v2/compact-tool-descriptor.schema.json', 'schemas/v2/compact-tool-descriptor.schema.json'],
  ] as const) {
    const bytes = readFileSync(join(ROOT, file));
    files.set(path, { bytes, etag: `"${sha256Base64url(bytes)}"` });
  }
  return (req, res) => {
    const { path } = splitTarget(req.url);
    const doc = files.get(path);
    if (!doc) {
      if (!path.startsWith('/schemas/v2/')) return false;
      sendJson(res, 404, errorBody('NOT_FOUND', 'No such schema.'));
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, errorBody('METHOD_NOT_ALLOWED', 'Only GET is allowed.'), { Allow: 'GET, HEAD' });
      return true;
    }
    res.setHeader('ETag', doc.etag);
    res.setHeader('Cache-Control', 'public, no-cache');
    const inm = req.headers['if-none-match'];
    if (ifNoneMatchHits(typeof inm === 'string' ? inm : undefined, doc.etag)) {
      res.writeHead(304).end();
      return true;
    }
    sendJson(res, 200, doc.bytes);
    return true;
  };
}
