import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureProblem, SIGNATURE_HEADERS } from '../../src/invocation/signature';

/** One request the endpoint received, as it arrived. */
interface ReceivedCall {
  readonly name: string;
  readonly arguments: unknown;
  readonly callId: string;
  /** Who toolcat says is calling (issue 14 item 4): identifiers only, never a credential. */
  readonly caller: unknown;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly signature: 'missing' | 'stale' | 'mismatch' | null;
}

/**
 * A host's HTTP implementation of its extensions, for tests (issue 14): a real server on loopback that checks
 * toolcat's signature, records every request, and behaves by tool name:
 *   echo        answers the arguments back as text and as structuredContent
 *   fail        a tool error (isError: true)
 *   leak        quotes the endpoint's own signing secret in its result (toolcat must not pass it on)
 *   violate     structuredContent that does not match the outputSchema tests give it ({ n: integer })
 *   conform     structuredContent that does ({ n: 1 })
 *   hang        never answers (until the endpoint closes)
 *   reset       reads the call, then drops the connection without an answer
 *   huge        a result of `hugeBytes` bytes
 *   deep        a result nested 100,000 levels deep
 *   notjson     200 with a body that is not JSON
 *   http500     HTTP 500
 *   redirect    302 to another URL (toolcat must not follow it)
 * A request whose signature does not verify is answered 401 and runs nothing.
 */
export interface ExtensionEndpoint {
  readonly url: string;
  readonly secret: string;
  readonly received: ReceivedCall[];
  /** Requests that reached a tool (signature good), per tool name. */
  count(name: string): number;
  close(): Promise<void>;
}

export async function startExtensionEndpoint(opts: { secret?: string; hugeBytes?: number } = {}): Promise<ExtensionEndpoint> {
  const secret = opts.secret ?? 'test-endpoint-secret-0123456789';
  const received: ReceivedCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const header = (n: string) => {
        const v = req.headers[n.toLowerCase()];
        return typeof v === 'string' ? v : null;
      };
      const signature = signatureProblem(secret, header(SIGNATURE_HEADERS.timestamp), body, header(SIGNATURE_HEADERS.signature));
      let call: { name?: string; arguments?: unknown; callId?: string; caller?: unknown } = {};
      try {
        call = JSON.parse(body.toString('utf8')) as typeof call;
      } catch {
        /* recorded as it came */
      }
      received.push({ name: String(call.name), arguments: call.arguments, callId: String(call.callId), caller: call.caller, headers: { ...req.headers }, signature });
      const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (signature) return json(401, { error: `signature ${signature}` });
      // The behaviour is the name up to its first underscore: echo_a and echo_b both echo.
      switch (String(call.name).replace(/_.*$/, '')) {
        case 'echo':
          return json(200, { content: [{ type: 'text', text: JSON.stringify(call.arguments) }], structuredContent: { echoed: call.arguments } });
        case 'leakescaped': {
          // The same, spelled with JSON \u escapes: the parsed result holds the secret, the raw text does not.
          const escaped = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
          return res.writeHead(200, { 'content-type': 'application/json' }).end(`{"content":[{"type":"text","text":"esc=${escaped}"}],"structuredContent":{"k":"${escaped}"}}`);
        }
        case 'leak':
          return json(200, { content: [{ type: 'text', text: `signed with ${secret}` }], structuredContent: { secret } });
        case 'fail':
          return json(200, { content: [{ type: 'text', text: 'it did not work' }], isError: true });
        case 'violate':
          return json(200, { content: [{ type: 'text', text: 'n is a string here' }], structuredContent: { n: 'not a number' } });
        case 'conform':
          return json(200, { content: [{ type: 'text', text: '1' }], structuredContent: { n: 1 } });
        case 'hang':
          return; // never answers
        case 'reset':
          return req.socket.destroy();
        case 'huge':
          return json(200, { content: [{ type: 'text', text: 'x'.repeat(opts.hugeBytes ?? 2 * 1024 * 1024) }] });
        case 'deep':
          // A result nested 100,000 levels deep (valid JSON, within the size bound).
          return res.writeHead(200, { 'content-type': 'application/json' }).end(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"d":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
        case 'notjson':
          return res.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json</html>');
        case 'http500':
          return json(500, { error: 'boom' });
        case 'redirect':
          return res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end();
        default:
          return json(404, { error: 'no such tool' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/calls`,
    secret,
    received,
    count: (name) => received.filter((r) => r.name === name && r.signature === null).length,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
