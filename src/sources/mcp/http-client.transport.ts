import type http from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import { clientFor } from './http-agents';
import { isJsonRpcMessage } from '../../shared/jsonrpc-message';
import { MessageTooLargeError } from './message-too-large';

export interface HttpClientTransportOptions {
  /** Sent with every request (the source's resolved header secrets): they go nowhere else. */
  readonly headers: Readonly<Record<string, string>>;
  /** One JSON-RPC message (a JSON body, one SSE event's data) larger than this ends the response. */
  readonly maxMessageBytes: number;
  /** Hears of each message cut off at the bound (a request answered over SSE would otherwise wait for its timeout). */
  readonly onOversize?: (err: MessageTooLargeError) => void;
  /** How long the DELETE that ends the session upstream may take, whole (default 2 s; tests shorten it). */
  readonly terminateTimeoutMs?: number;
  /** The GET stream's reconnection (as the SDK's defaults: 1 s, ×1.5, at most 30 s, 2 attempts). */
  readonly reconnect?: { readonly initialMs: number; readonly maxMs: number; readonly factor: number; readonly maxRetries: number };
}

const DEFAULT_RECONNECT = { initialMs: 1000, maxMs: 30_000, factor: 1.5, maxRetries: 2 };
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** An error status's body is read this far for its message (it is sanitised and cut to 1,000 characters later). */
const ERROR_TEXT_BYTES = 8 * 1024;
/** How long the DELETE that ends a session upstream may take before it is cut (close() never awaits it). */
const TERMINATE_TIMEOUT_MS = 2000;
/** The DELETEs on their way, of every transport of the process: shutdown waits for them (each cut at its deadline). */
const terminating = new Set<Promise<void>>();

/** Resolves when every DELETE sent so far has been answered, failed or cut at its deadline (app shutdown). */
export async function terminationsSettled(): Promise<void> {
  while (terminating.size) await Promise.all([...terminating]);
}

/**
 * The MCP Streamable HTTP client transport (spec 2025-06-18 "Transports"; the SDK's `Transport` interface, so the
 * SDK's Client runs the protocol on it), made directly on node:http.
 *
 * Why not the SDK's StreamableHTTPClientTransport: on the call path (issue 14, bench scenario i) it was ~40% of
 * toolcat's CPU per call: a fetch-shaped Response around every answer, then a web-stream pipeline per SSE answer
 * (TextDecoderStream, the SSE parser's TransformStream, a reader), a zod parse of every message. Here an answer is
 * read from the socket as it arrives: a JSON body collected and parsed once, an SSE body fed to eventsource-parser's
 * plain parser through a StringDecoder, each message checked by hand (isJsonRpcMessage) and handed to the protocol.
 *
 * Kept from the SDK's transport (same behaviour toolcat relied on): the session id captured from any answer and sent
 * back with the negotiated protocol version; 202 for notifications, and after `notifications/initialized` the
 * optional GET stream for server-initiated messages (405: the server has none), reconnected with backoff and
 * `Last-Event-ID`; a POST stream that carried event ids and ended before its response is resumed the same way (the
 * response's id replayed onto the original request's); redirects followed only within the URL's origin (307/308 for
 * a POST), others answered as errors naming the target; errors as StreamableHTTPError(status) (the call pool reads a
 * 404 as "session gone"). Left out: the SDK's OAuth provider (toolcat's sources authenticate with header secrets
 * only). Added: close() ends the session upstream with DELETE (terminate below).
 *
 * Bounded: each message (a JSON body, one SSE event) at maxMessageBytes; an error body read to 8 KB; every open
 * request and stream is destroyed by close().
 */
export class HttpClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly url: URL;
  private readonly opts: HttpClientTransportOptions;
  private readonly headers: Readonly<Record<string, string>>;
  private readonly reconnect: NonNullable<HttpClientTransportOptions['reconnect']>;
  private session: string | undefined;
  private protocol: string | undefined;
  private started = false;
  private closed = false;
  private readonly open = new Set<http.ClientRequest>();
  private reconnectTimer: NodeJS.Timeout | null = null;
  private serverRetryMs: number | undefined;

  constructor(url: URL, opts: HttpClientTransportOptions) {
    this.url = url;
    // Lower-cased once: HTTP names are case-insensitive, and one of the source's own headers must replace, not double, ours.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(opts.headers)) headers[name.toLowerCase()] = value;
    this.headers = headers;
    this.opts = opts;
    this.reconnect = opts.reconnect ?? DEFAULT_RECONNECT;
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  setProtocolVersion(version: string): void {
    this.protocol = version;
  }

  /**
   * close() will not end the session upstream. For a source an admin changed or removed: its URL or secrets may have
   * been changed because the host is no longer trusted, so the old credentials are not sent there once more.
   */
  forgetSession(): void {
    this.session = undefined;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('HttpClientTransport already started');
    this.started = true;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    for (const req of this.open) req.destroy();
    this.open.clear();
    if (this.session) this.terminate(this.session);
    this.onclose?.();
  }

  /**
   * Ends the session on the server (MCP 2025-06-18 "Session Management": a client that no longer needs a session
   * SHOULD send DELETE with its Mcp-Session-Id). Without it every dropped session (a source changed or removed, a
   * session replaced, shutdown) stayed open upstream with whatever the server keeps for it (server-everything keeps
   * every response of a session for resumability). Best effort and not awaited: a 405 (the server does not let
   * clients end sessions), an error or no answer changes nothing here, and the request is cut after
   * TERMINATE_TIMEOUT_MS, so close() never waits on an upstream; shutdown waits for it (terminationsSettled).
   */
  private terminate(session: string): void {
    const client = clientFor(this.url);
    if (!client) return;
    const headers: Record<string, string> = { 'mcp-session-id': session };
    if (this.protocol) headers['mcp-protocol-version'] = this.protocol;
    Object.assign(headers, this.headers);
    let req: http.ClientRequest;
    try {
      req = client.request(this.url, { method: 'DELETE', headers, agent: client.agent });
    } catch {
      return; // the POSTs went out with these headers, so this is not expected; close() goes on either way
    }
    const done = new Promise<void>((resolve) => {
      // A deadline for the whole exchange, not an idle timeout: a server that keeps trickling never holds it open.
      const deadline = setTimeout(() => req.destroy(), this.opts.terminateTimeoutMs ?? TERMINATE_TIMEOUT_MS);
      deadline.unref();
      req.once('close', () => {
        clearTimeout(deadline);
        resolve();
      });
    });
    terminating.add(done);
    void done.then(() => terminating.delete(done));
    req.once('error', () => undefined);
    // The status is all there is to learn (and nothing is done with it): the body is never read, however long.
    req.once('response', (res) => res.destroy());
    req.end();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      if (options?.resumptionToken) {
        const replay = 'method' in message && 'id' in message ? message.id : undefined;
        this.openStream({ lastEventId: options.resumptionToken, replayId: replay, onToken: options.onresumptiontoken }, 0);
        return;
      }
      const res = await this.request('POST', JSON.stringify(message), 'application/json, text/event-stream');
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) throw new StreamableHTTPError(status, `Error POSTing to endpoint: ${await this.errorText(res)}`);
      if (status === 202) {
        res.resume();
        if ('method' in message && message.method === 'notifications/initialized' && !('id' in message)) this.openStream({}, 0);
        return;
      }
      const isRequest = 'method' in message && 'id' in message;
      if (!isRequest) return void res.resume();
      const type = mediaType(res.headers['content-type']);
      if (type === 'text/event-stream') return this.readEvents(res, { onToken: options?.onresumptiontoken }, false);
      if (type === 'application/json') {
        const data: unknown = JSON.parse(await this.body(res));
        for (const m of Array.isArray(data) ? data : [data]) {
          if (!isJsonRpcMessage(m)) throw new Error('the server answered something that is not a JSON-RPC message');
        }
        for (const m of Array.isArray(data) ? data : [data]) this.onmessage?.(m as JSONRPCMessage);
        return;
      }
      res.resume();
      throw new StreamableHTTPError(-1, `Unexpected content type: ${res.headers['content-type']}`);
    } catch (err) {
      this.onerror?.(err as Error);
      throw err;
    }
  }

  /** One request, redirects followed within the origin; the answer's session id is kept. */
  private async request(method: 'POST' | 'GET', body: string | undefined, accept: string | undefined, lastEventId?: string): Promise<http.IncomingMessage> {
    let url = this.url;
    for (let hop = 0; ; hop++) {
      const res = await this.once(url, method, body, accept, lastEventId);
      const sid = res.headers['mcp-session-id'];
      if (typeof sid === 'string' && sid) this.session = sid;
      const target = REDIRECTS.has(res.statusCode ?? 0) ? redirectTarget(res, url) : null;
      if (!target) return res;
      // 301/302/303 turn a request with a body into a GET: only 307/308 keep a POST's method and body.
      const keepsMethod = res.statusCode === 307 || res.statusCode === 308 || method === 'GET';
      if (hop === MAX_REDIRECTS || !keepsMethod || !sameOrigin(url, target)) return res;
      res.resume();
      url = target;
    }
  }

  private once(url: URL, method: string, body: string | undefined, accept: string | undefined, lastEventId: string | undefined): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the transport is closed'));
      const client = clientFor(url);
      if (!client) return reject(new TypeError('fetch failed', { cause: new Error(`unsupported protocol ${url.protocol}`) }));
      const headers: Record<string, string | number> = {};
      if (this.session) headers['mcp-session-id'] = this.session;
      if (this.protocol) headers['mcp-protocol-version'] = this.protocol;
      if (accept) headers.accept = accept;
      if (lastEventId) headers['last-event-id'] = lastEventId;
      if (body !== undefined) headers['content-type'] = 'application/json';
      Object.assign(headers, this.headers); // the source's own headers win, as with the SDK's transport
      if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
      const req = client.request(url, { method, headers, agent: client.agent });
      this.open.add(req);
      let answered = false;
      req.once('error', (err) => {
        this.open.delete(req);
        // Never sent again, not even on a reused connection: the server may have read the request before it dropped it.
        if (!answered) reject(new TypeError('fetch failed', { cause: err }));
      });
      req.once('close', () => this.open.delete(req));
      req.once('response', (res) => {
        answered = true;
        resolve(res);
      });
      req.end(body);
    });
  }

  /** A response body as text, bounded at maxMessageBytes (one JSON-RPC message, or a batch of them). */
  private body(res: http.IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      const max = this.opts.maxMessageBytes;
      const chunks: Buffer[] = [];
      let seen = 0;
      let done = false;
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        seen += chunk.byteLength;
        if (seen > max) {
          done = true;
          const err = new MessageTooLargeError(`the server sent a response larger than ${max} bytes`);
          this.opts.onOversize?.(err);
          res.destroy();
          return reject(err);
        }
        chunks.push(chunk);
      });
      res.once('end', () => {
        if (done) return;
        done = true;
        resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));
      });
      res.once('close', () => {
        if (done) return;
        done = true;
        reject(new TypeError('terminated', { cause: new Error('the connection closed before the response ended') }));
      });
    });
  }

  private errorText(res: http.IncomingMessage): Promise<string> {
    const redirect = REDIRECTS.has(res.statusCode ?? 0) ? redirectTarget(res, this.url) : null;
    if (redirect) {
      res.resume();
      redirect.username = redirect.password = redirect.search = redirect.hash = '';
      return Promise.resolve(`Redirect to ${redirect.href} not followed`);
    }
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let seen = 0;
      const finish = () => resolve(Buffer.concat(chunks).toString('utf8') || (res.statusMessage ?? ''));
      res.on('data', (chunk: Buffer) => {
        if (seen >= ERROR_TEXT_BYTES) return;
        chunks.push(chunk.subarray(0, ERROR_TEXT_BYTES - seen));
        seen += chunk.byteLength;
        if (seen >= ERROR_TEXT_BYTES) {
          res.destroy();
          finish();
        }
      });
      res.once('end', finish);
      res.once('close', finish);
    });
  }

  /** The GET stream (server-initiated messages), or a resumed stream after `lastEventId`. Errors go to onerror. */
  private openStream(o: StreamOptions, attempt: number): void {
    void (async () => {
      const res = await this.request('GET', undefined, 'text/event-stream', o.lastEventId);
      const status = res.statusCode ?? 0;
      if (status === 405 && !o.lastEventId) return void res.resume(); // the server offers no GET stream: fine
      if (status < 200 || status > 299) throw new StreamableHTTPError(status, `Failed to open SSE stream: ${await this.errorText(res)}`);
      this.readEvents(res, o, true);
    })().catch((err: Error) => {
      if (this.closed) return;
      this.onerror?.(attempt === 0 ? err : new Error(`Failed to reconnect SSE stream: ${err.message}`));
      if (attempt > 0) this.scheduleReconnect(o, attempt);
    });
  }

  private scheduleReconnect(o: StreamOptions, attempt: number): void {
    if (this.closed) return;
    if (attempt >= this.reconnect.maxRetries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${this.reconnect.maxRetries}) exceeded.`));
      return;
    }
    const delay = this.serverRetryMs ?? Math.min(this.reconnect.initialMs * Math.pow(this.reconnect.factor, attempt), this.reconnect.maxMs);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.openStream(o, attempt + 1);
    }, delay);
    this.reconnectTimer.unref();
  }

  /**
   * An SSE body: each `message` event's data is one JSON-RPC message. A stream that ends or breaks before answering
   * its request is resumed (GET with Last-Event-ID) when it is the GET stream or it carried event ids.
   */
  private readEvents(res: http.IncomingMessage, o: StreamOptions, reconnectable: boolean): void {
    const max = this.opts.maxMessageBytes;
    let lastEventId = o.lastEventId;
    let primed = false;
    let answered = false;
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      res.destroy();
      this.onerror?.(err);
    };
    const oversize = () => {
      const err = new MessageTooLargeError(`the server sent a message larger than ${max} bytes`);
      this.opts.onOversize?.(err);
      fail(err);
    };
    const parser = createParser({
      // Characters, not bytes: a bound on what the parser holds; the byte rule is checked on each event below.
      maxBufferSize: max,
      onRetry: (ms) => (this.serverRetryMs = ms),
      onError: (err) => {
        if (err.type === 'max-buffer-size-exceeded') oversize();
      },
      onEvent: (event) => {
        if (failed) return;
        if (event.id) {
          lastEventId = event.id;
          primed = true;
          o.onToken?.(event.id);
        }
        if (!event.data || (event.event && event.event !== 'message')) return;
        if (event.data.length > max / 4 && Buffer.byteLength(event.data, 'utf8') > max) return oversize();
        let message: unknown;
        try {
          message = JSON.parse(event.data);
        } catch (err) {
          return void this.onerror?.(err as Error);
        }
        if (!isJsonRpcMessage(message)) return void this.onerror?.(new Error('the server sent an SSE event that is not a JSON-RPC message'));
        if (!('method' in message) && 'id' in message && 'result' in message) {
          answered = true;
          if (o.replayId !== undefined) (message as { id: RequestId }).id = o.replayId;
        }
        this.onmessage?.(message);
      },
    });
    const decoder = new StringDecoder('utf8');
    res.on('data', (chunk: Buffer) => {
      if (failed) return;
      parser.feed(decoder.write(chunk));
    });
    const resumeIfUnanswered = () => {
      if (this.closed || answered || !(reconnectable || primed)) return;
      this.scheduleReconnect({ lastEventId, onToken: o.onToken, replayId: o.replayId }, 0);
    };
    res.once('end', () => {
      if (failed) return;
      parser.feed(decoder.end()); // a last event without its blank line is not an event (SSE): nothing is dispatched
      failed = true;
      resumeIfUnanswered();
    });
    res.once('close', () => {
      if (failed || this.closed) return;
      failed = true;
      this.onerror?.(new Error('SSE stream disconnected: TypeError: terminated'));
      resumeIfUnanswered();
    });
  }
}

interface StreamOptions {
  readonly lastEventId?: string;
  readonly replayId?: RequestId;
  readonly onToken?: (token: string) => void;
}

function mediaType(h: string | undefined): string {
  return (h ?? '').split(';', 1)[0].trim().toLowerCase();
}

function redirectTarget(res: http.IncomingMessage, from: URL): URL | null {
  const location = res.headers.location;
  if (!location) return null;
  try {
    return new URL(location, from);
  } catch {
    return null;
  }
}

/** Same scheme, host and port (or http → https on default ports), and no userinfo added: secrets stay with the named host. */
function sameOrigin(from: URL, to: URL): boolean {
  if ((to.username || to.password) && (to.username !== from.username || to.password !== from.password)) return false;
  if (from.protocol === to.protocol && from.hostname === to.hostname && from.port === to.port) return true;
  return from.hostname === to.hostname && from.protocol === 'http:' && from.port === '' && to.protocol === 'https:' && to.port === '';
}
