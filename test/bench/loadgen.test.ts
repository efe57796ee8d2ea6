/**
 * The benchmark's load generator keeps measuring through what servers do to connections: `Connection: close`
 * answers and connections dropped mid-request cost one request each, never the rest of the run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { runLoad } from '../../bench/loadgen';

describe('bench: runLoad', () => {
  let server: http.Server;
  let base: string;
  let n = 0;
  const body = Buffer.alloc(50_000, 'x');

  before(async () => {
    server = http.createServer((req, res) => {
      const i = ++n;
      if (i % 7 === 0) return void req.socket.destroy(); // dropped without an answer
      if (i % 3 === 0) res.setHeader('Connection', 'close');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('counts whole bodies and loses only the dropped requests, not the connections after them', async () => {
    const r = await runLoad({ baseUrl: base, targets: [{ path: '/x' }], concurrency: 4, warmupMs: 0, durationMs: 600, maxRequests: 100_000, expectStatus: 200 });
    expect(r.requests).to.be.greaterThan(100);
    expect(r.bytesPerResponse).to.equal(body.length);
    // One request in seven is dropped by the server; anything more would be errors cascading onto new connections.
    expect(r.errors).to.be.within(1, Math.ceil((r.requests + r.errors) / 7) + 4);
    expect(r.firstError).to.match(/closed|reset|ECONNRESET/);
  });

  it('refuses a non-loopback target', async () => {
    let err: unknown;
    try {
      await runLoad({ baseUrl: 'http://10.0.0.1:80', targets: [{ path: '/' }], concurrency: 1, warmupMs: 0, durationMs: 10, maxRequests: 1, expectStatus: 200 });
    } catch (e) {
      err = e;
    }
    expect(String(err)).to.match(/refusing non-loopback/);
  });
});
