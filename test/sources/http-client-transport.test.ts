/**
 * Issue 14: toolcat's own Streamable HTTP client transport (src/sources/mcp/http-client.transport.ts), which replaced
 * the SDK's on the call and sync paths. Against a scripted node:http server on loopback: what a Streamable HTTP
 * client must do (MCP 2025-06-18 "Transports") and the bounds toolcat adds. The SDK Client over it against real
 * servers (server-everything over HTTP) is in test/invocation/mcp-call-pool.test.ts and test/sources/mcp-sync.test.ts.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { HttpClientTransport, terminationsSettled } from '../../src/sources/mcp/http-client.transport';
import { MessageTooLargeError } from '../../src/sources/mcp/message-too-large';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startEverythingHttp } from '../helpers/mcp-servers';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

async function serve(handler: Handler): Promise<{ url: string; port: number; seen: Seen[]; server: Server; stop(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    seen,
    server,
    stop: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

const request = (id: number, method = 'tools/call'): JSONRPCMessage => ({ jsonrpc: '2.0', id, method, params: { name: 'echo', arguments: {} } });
const sse = (events: Array<{ id?: string; data: unknown }>) => events.map((e) => `${e.id ? `id: ${e.id}\n` : ''}event: message\ndata: ${JSON.stringify(e.data)}\n\n`).join('');

function collect(t: HttpClientTransport): { messages: JSONRPCMessage[]; errors: Error[] } {
  const out = { messages: [] as JSONRPCMessage[], errors: [] as Error[] };
  t.onmessage = (m) => out.messages.push(m);
  t.onerror = (e) => out.errors.push(e);
  return out;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`never happened: ${what}`);
}

describe('HttpClientTransport (issue 14): a Streamable HTTP client on node:http', () => {
  const servers: Array<{ stop(): Promise<void> }> = [];
  const transports: HttpClientTransport[] = [];
  const open = (url: string, opts: Partial<ConstructorParameters<typeof HttpClientTransport>[1]> = {}) => {
    const t = new HttpClientTransport(new URL(url), { headers: {}, maxMessageBytes: 64 * 1024, ...opts });
    transports.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of transports.splice(0)) await t.close();
    for (const s of servers.splice(0)) await s.stop();
  });

  it('a JSON answer: the session id it gives is sent back, with the protocol version and the source headers (which win)', async () => {
    const s = await serve((_req, body, res) => {
      const m = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'mcp-session-id': 'sess-1' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { n: m.id } }));
    });
    servers.push(s);
    const t = open(s.url, { headers: { Authorization: 'Bearer source-secret', Accept: 'application/json, text/event-stream' } });
    const got = collect(t);
    await t.start();
    await t.send(request(1));
    t.setProtocolVersion('2025-06-18');
    await t.send(request(2));
    expect(got.messages).to.deep.equal([
      { jsonrpc: '2.0', id: 1, result: { n: 1 } },
      { jsonrpc: '2.0', id: 2, result: { n: 2 } },
    ]);
    expect(t.sessionId).to.equal('sess-1');
    expect(s.seen[0].headers['mcp-session-id']).to.equal(undefined);
    expect(s.seen[1].headers).to.include({ 'mcp-session-id': 'sess-1', 'mcp-protocol-version': '2025-06-18', authorization: 'Bearer source-secret', 'content-type': 'application/json' });
    // One accept header, not two: the source's own replaced toolcat's.
    expect(s.seen[1].headers.accept).to.equal('application/json, text/event-stream');
    expect(got.errors).to.deep.equal([]);
  });

  it('an SSE answer: progress, then the result, in order, also when an event is split across writes', async () => {
    const s = await serve((_req, body, res) => {
      const m = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const text = sse([{ data: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, total: 2 } } }, { data: { jsonrpc: '2.0', id: m.id, result: { done: 'é✓' } } }]);
      const bytes = Buffer.from(text);
      // Split inside a multi-byte character and inside an event.
      const cut = bytes.indexOf(Buffer.from('✓')) + 1;
      res.write(bytes.subarray(0, cut));
      setTimeout(() => res.end(bytes.subarray(cut)), 20);
    });
    servers.push(s);
    const t = open(s.url);
    const got = collect(t);
    await t.start();
    await t.send(request(7));
    await until(() => got.messages.length === 2, 'both events');
    expect(got.messages).to.deep.equal([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, total: 2 } },
      { jsonrpc: '2.0', id: 7, result: { done: 'é✓' } },
    ]);
    expect(got.errors).to.deep.equal([]);
  });

  it('an SSE event that is not a JSON-RPC message is an error, not a message; the events after it still arrive', async () => {
    const s = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: not json\n\n${sse([{ data: { jsonrpc: '2.0', id: 1, result: {}, extra: true } }, { data: { jsonrpc: '2.0', id: 1, result: { ok: 1 } } }])}`);
    });
    servers.push(s);
    const t = open(s.url);
    const got = collect(t);
    await t.start();
    await t.send(request(1));
    await until(() => got.messages.length === 1 && got.errors.length === 2, 'one message, two errors');
    expect(got.messages).to.deep.equal([{ jsonrpc: '2.0', id: 1, result: { ok: 1 } }]);
    expect(got.errors[1].message).to.match(/not a JSON-RPC message/);
  });

  it('a JSON answer past maxMessageBytes is refused as too large (onOversize hears of it); an SSE event past it too', async () => {
    const big = 'x'.repeat(80 * 1024);
    const s = await serve((_req, body, res) => {
      const m = JSON.parse(body) as { id: number; params: { name: string } };
      const answer = { jsonrpc: '2.0', id: m.id, result: { big } };
      if (m.params.name === 'json') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse([{ data: answer }]));
    });
    servers.push(s);
    const oversize: MessageTooLargeError[] = [];
    const t = open(s.url, { onOversize: (e) => oversize.push(e) });
    const got = collect(t);
    await t.start();
    const err = await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'json' } }).then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(MessageTooLargeError);
    await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sse' } });
    await until(() => oversize.length === 2, 'two oversize reports');
    expect(oversize.every((e) => e instanceof MessageTooLargeError && /larger than 65536 bytes/.test(e.message))).to.equal(true);
    expect(got.messages).to.deep.equal([]);
  });

  it('an SSE event of many multi-byte characters is measured in bytes', async () => {
    const s = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse([{ data: { jsonrpc: '2.0', id: 1, result: { t: '✓'.repeat(30 * 1024) } } }]));
    });
    servers.push(s);
    const oversize: MessageTooLargeError[] = [];
    const t = open(s.url, { onOversize: (e) => oversize.push(e) });
    const got = collect(t);
    await t.start();
    await t.send(request(1));
    // 30 Ki characters (under the 64 KiB bound as characters) but 90 KiB as UTF-8.
    await until(() => oversize.length === 1, 'the oversize report');
    expect(got.messages).to.deep.equal([]);
  });

  it('a 202 for notifications/initialized opens the GET stream; what the server sends there arrives; close() ends it', async () => {
    let getStream: ServerResponse | null = null;
    let getClosed = false;
    const s = await serve((req, _body, res) => {
      if (req.method === 'GET') {
        getStream = res;
        res.on('close', () => (getClosed = true));
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
        return;
      }
      res.writeHead(202).end();
    });
    servers.push(s);
    const t = open(s.url);
    const got = collect(t);
    let closes = 0;
    t.onclose = () => closes++;
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await until(() => getStream !== null, 'the GET stream');
    expect(s.seen.at(-1)!.headers.accept).to.equal('text/event-stream');
    getStream!.write(sse([{ data: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } }]));
    await until(() => got.messages.length === 1, 'the notification');
    expect(got.messages[0]).to.deep.equal({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await t.close();
    await t.close();
    await until(() => getClosed, 'the server sees the stream end');
    expect(closes).to.equal(1);
  });

  it('a server without a GET stream (405) is fine: no error', async () => {
    const s = await serve((req, _body, res) => {
      if (req.method === 'GET') return void res.writeHead(405).end();
      res.writeHead(202).end();
    });
    servers.push(s);
    const t = open(s.url);
    const got = collect(t);
    await t.start();
    await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await until(() => s.seen.some((r) => r.method === 'GET'), 'the GET');
    await new Promise((r) => setTimeout(r, 50));
    expect(got.errors).to.deep.equal([]);
  });

  it('a POST stream that carried an event id and broke before its response is resumed by GET with Last-Event-ID', async () => {
    const s = await serve((req, _body, res) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(sse([{ id: 'e2', data: { jsonrpc: '2.0', id: 5, result: { resumed: true } } }]));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`id: e1\ndata: \n\n`);
      setTimeout(() => res.destroy(), 20);
    });
    servers.push(s);
    const t = open(s.url, { reconnect: { initialMs: 10, maxMs: 10, factor: 1, maxRetries: 2 } });
    const got = collect(t);
    const tokens: string[] = [];
    await t.start();
    await t.send(request(5), { onresumptiontoken: (tok) => tokens.push(tok) });
    await until(() => got.messages.length === 1, 'the resumed result');
    expect(got.messages[0]).to.deep.equal({ jsonrpc: '2.0', id: 5, result: { resumed: true } });
    expect(s.seen.find((r) => r.method === 'GET')!.headers['last-event-id']).to.equal('e1');
    expect(tokens).to.deep.equal(['e1', 'e2']);
  });

  it('an error status is a StreamableHTTPError with its code (404: the session is gone) and the body as its message', async () => {
    const s = await serve((_req, _body, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such session'));
    servers.push(s);
    const t = open(s.url);
    const got = collect(t);
    await t.start();
    const err = (await t.send(request(1)).then(() => null, (e: unknown) => e)) as StreamableHTTPError;
    expect(err).to.be.instanceOf(StreamableHTTPError);
    expect(err.code).to.equal(404);
    expect(err.message).to.include('no such session');
    expect(got.errors).to.have.length(1);
  });

  it('redirects: followed within the origin (307 keeps the POST and its body); to another origin never, and its target is named', async () => {
    const other = await serve((_req, _body, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    servers.push(other);
    const s = await serve((req, body, res) => {
      if (req.url === '/mcp') return void res.writeHead(307, { location: '/moved' }).end();
      if (req.url === '/moved') {
        const m = JSON.parse(body) as { id: number; params: { name: string } };
        if (m.params.name === 'away') return void res.writeHead(307, { location: `http://localhost:${other.port}/steal?token=abc` }).end();
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { at: 'moved' } }));
      }
    });
    servers.push(s);
    const t = open(s.url, { headers: { authorization: 'Bearer source-secret' } });
    const got = collect(t);
    await t.start();
    await t.send(request(1));
    expect(got.messages).to.deep.equal([{ jsonrpc: '2.0', id: 1, result: { at: 'moved' } }]);
    expect(s.seen.map((r) => `${r.method} ${r.url}`)).to.deep.equal(['POST /mcp', 'POST /moved']);
    expect(JSON.parse(s.seen[1].body)).to.deep.equal(request(1));
    const err = (await t.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'away' } }).then(() => null, (e: unknown) => e)) as StreamableHTTPError;
    expect(err).to.be.instanceOf(StreamableHTTPError);
    expect(err.code).to.equal(307);
    expect(err.message).to.include(`Redirect to http://localhost:${other.port}/steal not followed`);
    expect(err.message).not.to.include('token=abc');
    expect(other.seen).to.deep.equal([]);
  });

  it('close() ends the session on the server: DELETE with its Mcp-Session-Id and the source headers (MCP 2025-06-18 session management)', async () => {
    const s = await serve((req, body, res) => {
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const m = JSON.parse(body) as { id: number };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-9' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
    });
    servers.push(s);
    const t = open(s.url, { headers: { Authorization: 'Bearer source-secret' } });
    collect(t);
    await t.start();
    await t.send(request(1));
    t.setProtocolVersion('2025-06-18');
    await t.close();
    await until(() => s.seen.some((x) => x.method === 'DELETE'), 'the DELETE');
    const del = s.seen.find((x) => x.method === 'DELETE')!;
    expect(del.url).to.equal('/mcp');
    expect(del.headers).to.include({ 'mcp-session-id': 'sess-9', 'mcp-protocol-version': '2025-06-18', authorization: 'Bearer source-secret' });
    // After close nothing else is sent: one POST, one DELETE.
    expect(s.seen.map((x) => x.method)).to.deep.equal(['POST', 'DELETE']);
  });

  it('close() without a session, or after forgetSession(), sends nothing upstream', async () => {
    const s = await serve((req, body, res) => {
      if (req.method !== 'POST') return void res.writeHead(200).end();
      const m = JSON.parse(body) as { id: number };
      // The first transport gets no session id; the second one does.
      res.writeHead(200, { 'content-type': 'application/json', ...(m.id === 2 ? { 'mcp-session-id': 'sess-forgotten' } : {}) }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
    });
    servers.push(s);
    const a = open(s.url);
    collect(a);
    await a.start();
    await a.send(request(1));
    await a.close();
    const b = open(s.url);
    collect(b);
    await b.start();
    await b.send(request(2));
    expect(b.sessionId).to.equal('sess-forgotten');
    b.forgetSession();
    await b.close();
    // A marker sent after both closes: anything they sent on its own connection would have been seen by the time it is.
    await terminationsSettled();
    await fetch(`${s.url}?marker`, { method: 'PUT' }).then((r) => r.text());
    expect(s.seen.map((x) => x.method)).to.deep.equal(['POST', 'POST', 'PUT']);
  });

  it('the DELETE is bounded: cut at its deadline when the server never answers, hung up on at once when the answer never ends; neither holds close() or reports an error', async () => {
    for (const answer of ['405', 'never', 'endless'] as const) {
      let deleteClosed = false;
      const s = await serve((req, body, res) => {
        if (req.method === 'DELETE') {
          res.once('close', () => (deleteClosed = true));
          if (answer === '405') return void res.writeHead(405).end();
          if (answer === 'never') return;
          // An answer that never ends: toolcat reads none of it and hangs up.
          res.writeHead(200, { 'content-type': 'text/plain' });
          const t = setInterval(() => res.write('x'.repeat(1024)), 1);
          res.once('close', () => clearInterval(t));
          return;
        }
        const m = JSON.parse(body) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-x' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }));
      });
      servers.push(s);
      // 'never': a short deadline, which alone can end it; 'endless': a deadline far past the wait below, so only
      // hanging up on the answer can.
      const t = open(s.url, { terminateTimeoutMs: answer === 'endless' ? 600_000 : 100 });
      const got = collect(t);
      await t.start();
      await t.send(request(1));
      await t.close();
      await until(() => deleteClosed, `the DELETE's connection ended (${answer})`);
      await terminationsSettled();
      expect(got.errors, answer).to.deep.equal([]);
    }
  });

  it('against server-everything over HTTP: after the SDK Client closes, the server has ended the session (its id is refused)', async function () {
    this.timeout(30000);
    const everything = await startEverythingHttp();
    servers.push({ stop: async () => void everything.stop() });
    const t = open(everything.url);
    const client = new Client({ name: 'toolcat-test', version: '0.0.0' });
    await client.connect(t);
    const session = t.sessionId!;
    expect(session).to.be.a('string');
    const listWith = async () =>
      (await fetch(everything.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
      }).then(async (r) => (await r.text(), r.status)));
    expect(await listWith()).to.equal(200); // the session is live while the client holds it
    await client.close();
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      status = await listWith();
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    // server-everything refuses a request whose session it no longer has (400 "No valid session ID").
    expect(status).to.be.oneOf([400, 404]);
  });

  it('a refused connection rejects the send (and reports it), nothing hangs', async () => {
    const s = await serve(() => undefined);
    const url = s.url;
    await s.stop();
    const t = open(url);
    const got = collect(t);
    await t.start();
    const err = (await t.send(request(1)).then(() => null, (e: unknown) => e)) as Error;
    expect(err).to.be.instanceOf(TypeError);
    expect(err.message).to.equal('fetch failed');
    expect(got.errors).to.have.length(1);
  });
});
