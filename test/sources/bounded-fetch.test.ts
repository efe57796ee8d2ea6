/**
 * The fetch toolcat gives the SDK's Streamable HTTP transport (src/sources/mcp/bounded-fetch.ts). Found by the
 * issue-14 bench profile: the SDK passes one session-wide AbortSignal to every request, and every request left an
 * abort listener on it, so a long-lived call session grew by a listener per call, and each new request paid for
 * all the earlier ones (undici copies the listener list on every fetch).
 */
import { getEventListeners } from 'node:events';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { boundedFetch } from '../../src/sources/mcp/bounded-fetch';
import { MessageTooLargeError } from '../../src/sources/mcp/message-too-large';
import { startEverythingHttp } from '../helpers/mcp-servers';

describe('boundedFetch on a long-lived Streamable HTTP session', () => {
  it('leaves no abort listener behind on the session signal per request (bounded, not growing with calls)', async function () {
    this.timeout(60000);
    const server = await startEverythingHttp();
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: boundedFetch(16 * 1024 * 1024) });
    const client = new Client({ name: 'toolcat-test', version: '1' }, { capabilities: {} });
    try {
      await client.connect(transport);
      const signal = (transport as unknown as { _abortController: AbortController })._abortController.signal;
      const counts: number[] = [];
      for (let i = 1; i <= 120; i++) {
        const r = await client.request({ method: 'tools/call', params: { name: 'echo', arguments: { message: `n${i}` } } }, CallToolResultSchema);
        expect((r.content[0] as { text: string }).text).to.equal(`Echo: n${i}`);
        if (i % 40 === 0) counts.push(getEventListeners(signal, 'abort').length);
      }
      // A long-lived GET stream may hold one; nothing grows with the number of calls.
      for (const c of counts) expect(c, `listeners after each 40 calls: ${counts.join(', ')}`).to.be.at.most(2);
    } finally {
      await client.close();
      server.stop();
    }
  });
});

describe('boundedFetch as fetch (node:http, kept-alive connections)', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ method: string; headers: IncomingHttpHeaders; body: string; remotePort: number }> = [];

  before(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, headers: req.headers, body: Buffer.concat(chunks).toString(), remotePort: req.socket.remotePort! });
        if (req.url === '/redirect') return void res.writeHead(307, { location: 'http://127.0.0.1:1/elsewhere' }).end();
        if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(64 * 1024, 1));
        if (req.url === '/stall') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: first\n\n');
        if (req.url === '/empty') return void res.writeHead(204).end();
        res.writeHead(200, { 'content-type': 'application/json', 'x-two': 'a' }).end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('sends the method, headers and body with its length, and reuses the connection', async () => {
    const f = boundedFetch(1024);
    for (let i = 0; i < 2; i++) {
      const r = await f(`${base}/json`, { method: 'POST', headers: new Headers({ 'content-type': 'application/json', 'x-k': 'v' }), body: '{"a":1}' });
      expect(r.status).to.equal(200);
      expect(r.headers.get('x-two')).to.equal('a');
      expect(await r.json()).to.deep.equal({ ok: true });
    }
    const [a, b] = seen.slice(-2);
    expect(a).to.deep.include({ method: 'POST', body: '{"a":1}' });
    expect(a.headers).to.include({ 'content-type': 'application/json', 'x-k': 'v', 'content-length': '7' });
    expect(b.remotePort, 'the second request on the kept-alive connection').to.equal(a.remotePort);
  });

  it('does not follow a redirect: the 3xx is the answer', async () => {
    const r = await boundedFetch(1024)(`${base}/redirect`, {});
    expect(r.status).to.equal(307);
    expect(r.headers.get('location')).to.equal('http://127.0.0.1:1/elsewhere');
  });

  it('a 204 has a null body', async () => {
    const r = await boundedFetch(1024)(`${base}/empty`, { method: 'DELETE' });
    expect(r.status).to.equal(204);
    expect(r.body).to.equal(null);
  });

  it('cuts a body off past maxBytes with MessageTooLargeError, and says so to onOversize', async () => {
    const heard: Error[] = [];
    const r = await boundedFetch(16 * 1024, (e) => heard.push(e))(`${base}/big`, {});
    const err = await r.arrayBuffer().then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(MessageTooLargeError);
    expect(heard).to.have.length(1);
  });

  it('an abort while the body streams errors the body with the reason; before the answer it rejects with it', async () => {
    const ac = new AbortController();
    const r = await boundedFetch(1024)(`${base}/stall`, { signal: ac.signal });
    const reader = r.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).to.equal('data: first\n\n');
    const reason = new Error('stop');
    ac.abort(reason);
    expect(await reader.read().then(() => null, (e: unknown) => e)).to.equal(reason);
    const early = new AbortController();
    early.abort(reason);
    expect(await boundedFetch(1024)(`${base}/json`, { signal: early.signal }).then(() => null, (e: unknown) => e)).to.equal(reason);
  });

  it('a refused connection rejects like fetch: TypeError with the cause', async () => {
    const err = (await boundedFetch(1024)('http://127.0.0.1:1/', {}).then(() => null, (e: unknown) => e)) as TypeError & { cause?: { code?: string } };
    expect(err).to.be.instanceOf(TypeError);
    expect(err.cause?.code).to.equal('ECONNREFUSED');
  });
});
