/**
 * Issue 21: GET /tools streams a large list from the cached descriptors' bytes instead of one buffered body. The
 * streaming threshold is lowered through the config (streamListMinTools) so that a small catalog streams; the
 * buffered answer to compare with is the same list read through /graphql (`toolsDocument`), which is never streamed.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import type { CatalogCacheLimits } from '../../src/config/cache-settings';
import { aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

const TOOLS = 40;
const STREAM_FROM = 10;

/** A GET read slowly: the socket is paused after every chunk, so the server meets a full socket again and again. */
function slowGet(url: string, path: string, key: string): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer; pauses: number }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const chunks: Buffer[] = [];
      let pauses = 0;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        res.pause();
        pauses++;
        setImmediate(() => res.resume());
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), pauses }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Four cache shapes: the default (a streamed list's segments are kept in the document layer, a warm read writes them
 * as they are), a document layer too small for them (every read looks its descriptors up, 500 at a time), a descriptor
 * layer that holds nothing (every read loads its descriptors from the database while it streams), and a document
 * layer that holds one list at a time (each list's segments are let go when the next is kept).
 */
const SHAPES: Array<[string, CatalogCacheLimits | undefined]> = [
  ['parts kept', undefined],
  ['parts not kept', { maxDocumentBytes: 1, maxDescriptorBytes: 64 * 1024 ** 2, maxVisibleSetBytes: 16 * 1024 ** 2 }],
  ['no descriptor cached', { maxDocumentBytes: 1, maxDescriptorBytes: 1, maxVisibleSetBytes: 16 * 1024 ** 2 }],
  // One ~250 KB list's segments at a time: the next list (the other view, the changed catalog) evicts the last one,
  // whose descriptors, re-pointed into its segments, get their own bytes back; later reads must not notice.
  ['one list kept at a time', { maxDocumentBytes: 400_000, maxDescriptorBytes: 64 * 1024 ** 2, maxVisibleSetBytes: 16 * 1024 ** 2 }],
];

for (const [shape, cache] of SHAPES) forEachDatabase(`GET /tools streamed from cached descriptors (issue 21), ${shape}`, (database) => {
  const suite = hostPerSuite(database, { streamListMinTools: STREAM_FROM, ...(cache ? { cache } : {}) }, async (h) => {
    // ~6 KB descriptions: the list (~250 KB) spans several streamed chunks and more than one descriptor batch's bytes.
    for (let i = 0; i < TOOLS; i++) {
      await anExtension(h, { name: `big${String(i).padStart(3, '0')}`, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', description: `tool ${i} `.repeat(700) });
    }
  });

  const buffered = async (key: string, view: string | null) => {
    const r = await suite.host.gqlOk<{ toolsDocument: { body: string; etag: string } }>('query($v: String) { toolsDocument(view: $v) { body etag } }', { v: view }, key);
    return r.toolsDocument;
  };

  it('answers the same bytes and ETag as the buffered document, in both views, with an exact Content-Length', async () => {
    const t = await aTenantWithKey(suite.host, 'streamer');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.big*' });
    for (const view of [null, 'compact']) {
      const path = view ? `/tools?view=${view}` : '/tools';
      const streamedBefore = suite.host.app.cache.stats().streamedLists;
      const streamed = await suite.host.get(path, t.key);
      // Streamed, not buffered: its ETag and length were filed as a streamed list's.
      expect(suite.host.app.cache.stats().streamedLists, path).to.equal(streamedBefore + 1);
      const want = await buffered(t.key, view);
      expect(streamed.status, path).to.equal(200);
      expect(streamed.text, path).to.equal(want.body);
      expect(streamed.headers.get('etag'), path).to.equal(want.etag);
      expect(streamed.headers.get('transfer-encoding'), path).to.equal(null);
      expect(Number(streamed.headers.get('content-length')), path).to.equal(Buffer.byteLength(want.body));
      const tools = JSON.parse(streamed.text) as Array<{ toolId: string }> | { tools: Array<{ toolId: string }> };
      expect((Array.isArray(tools) ? tools : tools.tools).length, path).to.equal(TOOLS);
      // Revalidation and HEAD of a streamed list: the same ETag, no body.
      expect((await suite.host.get(path, t.key, { 'if-none-match': want.etag })).status, path).to.equal(304);
      const head = await suite.host.request('HEAD', path, t.key);
      expect(head.status, path).to.equal(200);
      expect(head.text, path).to.equal('');
      expect(Number(head.headers.get('content-length')), path).to.equal(Buffer.byteLength(want.body));
    }
  });

  it('is the same answer as a list under the threshold is buffered: a tenant with fewer tools than the threshold', async () => {
    const t = await aTenantWithKey(suite.host, 'small');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.big00*' }); // 10 tools: at the threshold, streamed
    const other = await aTenantWithKey(suite.host, 'smaller');
    await aGrant(suite.host, { tenantId: other.tenantId, toolPattern: 'ext.big000' }); // 1 tool: buffered
    for (const k of [t.key, other.key]) {
      const got = await suite.host.get('/tools', k);
      const want = await buffered(k, null);
      expect(got.text).to.equal(want.body);
      expect(got.headers.get('etag')).to.equal(want.etag);
    }
  });

  it('a reader that keeps pausing gets every byte, in order (the server waits for the socket instead of buffering)', async () => {
    const t = await aTenantWithKey(suite.host, 'slow');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    const want = await buffered(t.key, null);
    const readers = await Promise.all([0, 1, 2].map(() => slowGet(suite.host.url, '/tools', t.key)));
    for (const got of readers) {
      expect(got.status).to.equal(200);
      expect(got.headers.etag).to.equal(want.etag);
      expect(got.body.equals(Buffer.from(want.body))).to.equal(true);
      expect(got.pauses).to.be.greaterThan(1);
    }
  });

  it('a tool read after lists in both views were kept and let go is the same bytes as in its list', async () => {
    const t = await aTenantWithKey(suite.host, 'tool-after');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.big*' });
    const standard = await suite.host.get('/tools', t.key);
    const compact = await suite.host.get('/tools?view=compact', t.key);
    const again = await suite.host.get('/tools', t.key);
    expect(again.text).to.equal(standard.text);
    expect(again.headers.get('etag')).to.equal(standard.headers.get('etag'));
    for (const [path, list] of [['/tools/ext.big005', standard.text], ['/tools/ext.big031?view=compact', compact.text]] as const) {
      const tool = await suite.host.get(path, t.key);
      expect(tool.status, path).to.equal(200);
      expect(list.includes(`${tool.text},`) || list.includes(`${tool.text}]`), path).to.equal(true);
    }
  });

  it('a change to one tool gives the streamed list new bytes and a new ETag on the next request, equal to the buffered one', async () => {
    const t = await aTenantWithKey(suite.host, 'changes');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: 'ext.big*' });
    const before = await suite.host.get('/tools', t.key);
    await anExtension(suite.host, { name: 'big007', safetyTier: 'write', replayPolicy: 'idempotent', egress: 'none', description: 'changed' });
    const after = await suite.host.get('/tools', t.key);
    const want = await buffered(t.key, null);
    expect(after.headers.get('etag')).not.to.equal(before.headers.get('etag'));
    expect(after.headers.get('etag')).to.equal(want.etag);
    expect(after.text).to.equal(want.body);
    expect(after.text).to.include('"description":"changed"');
  });
});
