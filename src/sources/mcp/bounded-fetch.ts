import type http from 'node:http';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { followSignal } from '../../shared/follow-signal';
import { clientFor } from './http-agents';
import { MessageTooLargeError } from './message-too-large';

/**
 * fetch for Streamable HTTP MCP servers and host-extension implementations: the response body is cut off past
 * `maxBytes` (a server cannot stream without end into memory). Redirects are not followed, so headers carrying
 * secrets are never sent to a host the admin did not name. `onOversize` hears of each cut-off body (the SDK reports an
 * SSE stream's error only as text, without the request it belonged to).
 *
 * Made on node:http with keep-alive agents rather than the global fetch: on the call path (issue 14, bench scenario
 * i) undici's fetch (its Request, the request body's web stream, its fetch controller, the response's web stream)
 * plus the bounding TransformStream and a wrapper stream on top were ~20% of toolcat's CPU per call. Here the
 * response body is one ReadableStream fed by the socket, counted as it arrives; the SDK reads it as it read fetch's.
 * What fetch did that matters here is kept: rejections as `TypeError('fetch failed', { cause })`, the abort reason as
 * the rejection (or the body's error), the response as it came (a 3xx included, like `redirect: 'manual'`).
 */

/** Statuses whose response has no body (fetch gives them a null body; Response refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

export function boundedFetch(maxBytes: number, onOversize?: (err: MessageTooLargeError) => void): FetchLike {
  return (url, init) => send(new URL(url), init ?? {}, maxBytes, onOversize);
}

function send(url: URL, init: RequestInit, maxBytes: number, onOversize: ((err: MessageTooLargeError) => void) | undefined): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const client = clientFor(url);
    if (!client) return reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
    let body: string | Uint8Array | undefined;
    try {
      body = bodyOf(init.body);
    } catch (err) {
      return reject(err);
    }
    // The SDK gives every request of a session the same AbortSignal: each request gets a signal of its own, linked to
    // the session's only while it runs, so the session's signal does not grow by a listener per request.
    const own = followSignal(init.signal);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      own.signal.removeEventListener('abort', onAbort);
      own.release();
    };
    let res: http.IncomingMessage | null = null;
    let failBody: ((err: unknown) => void) | null = null;
    const onAbort = () => {
      const reason: unknown = own.signal.reason;
      end();
      if (failBody) failBody(reason);
      else reject(reason);
      (res ?? req).destroy();
    };
    if (own.signal.aborted) {
      own.release();
      return reject(own.signal.reason);
    }
    const req = client.request(url, { method: init.method ?? 'GET', headers: headersOf(init.headers), agent: client.agent });
    own.signal.addEventListener('abort', onAbort, { once: true });
    req.once('error', (err) => {
      if (ended || res) return; // after the response, the body reports it
      end();
      // Never sent again, not even on a reused connection: the server may have read the request before it dropped it.
      reject(new TypeError('fetch failed', { cause: err }));
    });
    req.once('response', (incoming) => {
      res = incoming;
      const status = incoming.statusCode ?? 0;
      if (status < 200 || status > 599) {
        end();
        incoming.destroy();
        return reject(new TypeError('fetch failed', { cause: new Error(`invalid HTTP status ${status}`) }));
      }
      const headers = new Headers();
      const raw = incoming.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
      if (NULL_BODY.has(status) || init.method === 'HEAD') {
        end();
        incoming.resume();
        return resolve(new Response(null, { status, statusText: incoming.statusMessage, headers }));
      }
      resolve(new Response(boundedBody(incoming, maxBytes, onOversize, end, (f) => (failBody = f)), { status, statusText: incoming.statusMessage, headers }));
    });
    req.end(body);
  });
}

/** The response body as one web stream, read from the socket only as fast as it is consumed, cut off past maxBytes. */
function boundedBody(res: http.IncomingMessage, maxBytes: number, onOversize: ((err: MessageTooLargeError) => void) | undefined, end: () => void, onFail: (fail: (err: unknown) => void) => void): ReadableStream<Uint8Array> {
  let seen = 0;
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        end();
        controller.error(err);
      };
      onFail(fail);
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        seen += chunk.byteLength;
        if (seen > maxBytes) {
          const err = new MessageTooLargeError(`the server sent a response larger than ${maxBytes} bytes`);
          onOversize?.(err);
          fail(err);
          res.destroy();
          return;
        }
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 1) <= 0) res.pause();
      });
      res.once('end', () => {
        if (settled) return;
        settled = true;
        end();
        controller.close();
      });
      res.once('error', (err) => fail(new TypeError('terminated', { cause: err })));
      // A connection that closes before the body ended (the server went away mid-stream).
      res.once('close', () => fail(new TypeError('terminated', { cause: new Error('the connection closed before the response ended') })));
    },
    pull() {
      res.resume();
    },
    cancel() {
      settled = true;
      end();
      res.destroy();
    },
  });
}

function headersOf(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  (h instanceof Headers ? h : new Headers(h)).forEach((value, name) => (out[name] = value));
  return out;
}

function bodyOf(b: RequestInit['body']): string | Uint8Array | undefined {
  if (b === undefined || b === null) return undefined;
  if (typeof b === 'string' || b instanceof Uint8Array) return b;
  throw new TypeError('boundedFetch sends string or byte bodies only');
}
