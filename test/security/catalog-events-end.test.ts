/**
 * /catalog/events after its stream was ended (helper's sibling search, red-team pass on issue 14, 2026-12-04): a
 * stream ended by the server (its caller's key revoked: `gone`, or shutdown: closeAll) stays registered with the
 * catalog watch and keeps its heartbeat until the response's 'close', which waits for the client to read what was
 * sent. A `changed` or heartbeat write in that window was a write after end: node emits ERR_STREAM_WRITE_AFTER_END as
 * an 'error' event nobody listens to, and the whole process exits. The window is opened here on purpose (the write
 * issued right after the end), on a real HTTP server.
 */
import { expect } from 'chai';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GraphQLContext } from '../../src/graphql/context';
import { createCatalogEvents } from '../../src/rest/catalog-events';
import type { CatalogWatch, CatalogWatcher } from '../../src/rest/catalog-watch';

describe('GET /catalog/events: nothing is written after the stream ended (a write after end took the process down)', () => {
  let server: Server;
  let watchers: CatalogWatcher[];
  let events: ReturnType<typeof createCatalogEvents>;
  const errors: unknown[] = [];
  const onUncaught = (err: unknown) => errors.push(err);

  beforeEach(async () => {
    watchers = [];
    errors.length = 0;
    const watch = {
      currentEtag: async () => '"e1"',
      add: (w: CatalogWatcher) => (watchers.push(w), () => undefined),
    } as unknown as CatalogWatch;
    const ctx = { principal: { tenantId: 't1', id: 'p1', kind: 'apiKey' }, requestId: 'r', credentialRejected: false } as unknown as GraphQLContext;
    events = createCatalogEvents({
      watch, contextFor: async () => ctx, limiter: { capacity: 100, take: () => ({ allowed: true, remaining: 99, retryAfterSeconds: 0 }) } as never,
      keyOf: () => 'k', origin: { allowedHosts: ['*'], allowedOrigins: ['*'] }, databaseUp: () => true, heartbeatMs: 60_000,
      maxPerPrincipal: 5, maxPerTenant: 5, maxStreams: 5, onError: (err) => errors.push(err),
    });
    server = createServer((req, res) => void events(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.prependListener('uncaughtException', onUncaught);
  });
  afterEach(async () => {
    process.off('uncaughtException', onUncaught);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** Opens a stream and waits for its first event (the watcher is registered by then). */
  const open = () =>
    new Promise<{ body: () => string; ended: Promise<void> }>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const req = request({ host: '127.0.0.1', port, path: '/catalog/events', headers: { accept: 'text/event-stream' } }, (res) => {
        let text = '';
        const ended = new Promise<void>((r) => res.on('end', r));
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
          if (text.includes('event: catalog.changed') && watchers.length > 0) resolve({ body: () => text, ended });
        });
      });
      req.on('error', reject);
      req.end();
    });

  for (const how of ['gone', 'closeAll'] as const) {
    it(`ended by ${how}, then a change in the same turn: nothing is written, nothing is thrown`, async () => {
      const stream = await open();
      const [w] = watchers;
      if (how === 'gone') w.gone();
      else events.closeAll();
      w.changed('"e2"');
      await stream.ended;
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      expect(errors.map(String)).to.deep.equal([]);
      expect(stream.body()).not.to.include('e2');
    });
  }
});
