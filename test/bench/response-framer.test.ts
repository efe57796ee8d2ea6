/**
 * The benchmark's response framer counts what real servers send; a miscount would make `npm run bench` report
 * wrong bytes or hang a loop. Checked against node:http itself (Content-Length and chunked bodies, 304, split
 * at every byte boundary) and against malformed input.
 */
import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import fc from 'fast-check';
import { ResponseFramer } from '../../bench/response-framer';

/** The raw bytes a node:http server writes for the given handlers, one keep-alive connection, in order. */
async function rawResponses(handlers: Array<(res: http.ServerResponse) => void>): Promise<Buffer> {
  let i = 0;
  const server = http.createServer((_req, res) => handlers[i++](res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  try {
    return await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const s = net.connect(port, '127.0.0.1');
      s.on('data', (c) => chunks.push(c));
      s.on('error', reject);
      s.on('end', () => resolve(Buffer.concat(chunks)));
      const req = 'GET / HTTP/1.1\r\nHost: x\r\n\r\n';
      s.write(req.repeat(handlers.length - 1) + req.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    });
  } finally {
    server.close();
  }
}

const big = Buffer.alloc(200_000, 'x');
const handlers: Array<(res: http.ServerResponse) => void> = [
  (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"a":1}'),
  (res) => {
    // chunked: several writes, no Content-Length
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write('event: message\n');
    res.write('data: {}\n\n');
    res.end('tail');
  },
  (res) => res.writeHead(304, { ETag: '"e"' }).end(),
  (res) => res.writeHead(404).end('{"error":{}}'),
  (res) => res.writeHead(200).end(big),
  (res) => res.writeHead(200, { 'Content-Length': '0' }).end(),
  (res) => res.writeHead(204).end(),
  (res) => {
    // chunked with trailers
    res.writeHead(200, { 'Content-Type': 'text/plain', Trailer: 'X-Checksum' });
    res.write('abc');
    res.addTrailers({ 'X-Checksum': '42' });
    res.end();
  },
];
const expected = [
  { status: 200, bodyBytes: 7, close: false },
  { status: 200, bodyBytes: 'event: message\n'.length + 'data: {}\n\n'.length + 4, close: false },
  { status: 304, bodyBytes: 0, close: false },
  { status: 404, bodyBytes: 12, close: false },
  { status: 200, bodyBytes: big.length, close: false },
  { status: 200, bodyBytes: 0, close: false },
  { status: 204, bodyBytes: 0, close: false },
  { status: 200, bodyBytes: 3, close: true }, // the last request asked for Connection: close
];

describe('bench: ResponseFramer', () => {
  let wire: Buffer;
  before(async () => {
    wire = await rawResponses(handlers);
  });

  it('frames every response node:http sends on one connection (length, chunked, 304, empty)', () => {
    const f = new ResponseFramer();
    expect(f.push(wire)).to.deep.equal(expected);
    expect(f.idle).to.equal(true);
  });

  it('gives the same answer however the bytes are split into reads', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: wire.length - 1 }), { maxLength: 40 }), (cuts) => {
        const at = [...new Set(cuts)].sort((a, b) => a - b);
        const f = new ResponseFramer();
        const got = [];
        let prev = 0;
        for (const c of [...at, wire.length]) {
          got.push(...f.push(wire.subarray(prev, c)));
          prev = c;
        }
        expect(got).to.deep.equal(expected);
      }),
      { numRuns: 200, seed: Number(process.env.FC_SEED ?? 8001) },
    );
    // and byte by byte through the heads (the first 2,000 bytes), where the split cases live
    const f = new ResponseFramer();
    const got = [];
    for (let i = 0; i < 2000; i++) got.push(...f.push(wire.subarray(i, i + 1)));
    got.push(...f.push(wire.subarray(2000)));
    expect(got).to.deep.equal(expected);
  });

  it('skips an interim 100 Continue head; reads chunk extensions and tab-separated lengths', () => {
    const f = new ResponseFramer();
    expect(f.push(Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length:\t2\r\n\r\nok'))).to.deep.equal([{ status: 200, bodyBytes: 2, close: false }]);
    expect(f.push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;name=v\r\nabcd\r\n0\r\n\r\n'))).to.deep.equal([{ status: 200, bodyBytes: 4, close: false }]);
  });

  it('refuses what it cannot frame instead of miscounting', () => {
    expect(() => new ResponseFramer().push(Buffer.from('garbage\r\n\r\n'))).to.throw(/not an HTTP/);
    expect(() => new ResponseFramer().push(Buffer.from('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbody'))).to.throw(/neither Content-Length nor chunked/);
    expect(() => new ResponseFramer().push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'))).to.throw(/bad chunk size/);
    expect(() => new ResponseFramer().push(Buffer.alloc(70 * 1024, 'a'))).to.throw(/over 64 KiB/);
    expect(() => new ResponseFramer().push(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n'))).to.throw(/not followed by CRLF/);
  });
});
