import { followSignal } from '../shared/follow-signal';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { Logger } from '../shared/logger';
import { connect, type McpConnection } from '../sources/mcp/mcp-session';
import { MessageTooLargeError } from '../sources/mcp/message-too-large';
import { NotificationGate } from '../sources/mcp/notification-gate';
import { sanitizeError } from '../sources/mcp/sanitize-error';
import type { McpSourceSecrets } from '../sources/source-spec';
import { loadSource, secretValues } from '../sources/source-store';
import { ResultRedactor } from './result-redaction';
import { type ProgressUpdate, type UpstreamCall, UpstreamError, type UpstreamResult } from './upstream';

/**
 * Where MCP tool calls go (issue 14 item 4): one managed client session per source, opened on the first call,
 * shared by concurrent calls, reopened after it ended (the server exited, the HTTP session broke, drop()). The
 * session connects with the source's own secrets only (no token passthrough, MCP authorization spec), through the
 * same connect() as the sync (bounded stdio and HTTP transports, children reaped with toolcat).
 *
 * The answer is the server's CallToolResult as it came (structuredContent is not checked here: the core checks it
 * against the catalog's outputSchema and reports a mismatch), or an UpstreamError whose message is sanitised of the
 * source's secret values. Nothing here waits on a server without a bound: a call ends by its result, its timeout or
 * its caller's abort, whatever the server does.
 */
export interface McpCallPoolDeps {
  readonly dataSource: DataSource;
  /** Where `{ fromEnv }` secrets resolve. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Client version sent in initialize. */
  readonly version: string;
  readonly connectTimeoutMs: number;
  /** Per message bound for stdio and HTTP transports. */
  readonly maxMessageBytes: number;
  readonly log: Logger;
  /** Close a session unused this long (default 5 min); timers unref'd. */
  readonly idleMs?: number;
  /**
   * Notifications (progress included) read from one source per second; the rest are dropped before they are
   * parsed over stdio, before they are handled over HTTP (the sync's NotificationGate; default 1000).
   */
  readonly maxNotificationsPerSecond?: number;
  /** Each session opened (tests count them; metrics). `pid`: the stdio server's, null over HTTP. */
  readonly onSessionOpened?: (e: { readonly source: string; readonly pid: number | null }) => void;
  /** Issue 19: the active trace context for the request's `_meta` (SEP-414); absent when tracing is off. */
  readonly traceMeta?: () => Record<string, string> | null;
}

const DEFAULT_IDLE_MS = 5 * 60_000;

/**
 * Permissive on purpose: the SDK's CallToolResultSchema would reject unknown content block shapes and its callTool()
 * checks structuredContent against an outputSchema cached from client.listTools() (never called here). What the
 * core needs is the shape of a result; anything else is 'protocol'. Checked by hand rather than with zod: on the call
 * path (bench scenario i) the zod parse of every result and progress message was ~3% of toolcat's CPU per call.
 */
const AnyResult = z.unknown();

interface RawResult {
  readonly content: ReadonlyArray<{ readonly type: string }>;
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The result's shape, or why it is not one: `content` (default []) an array of objects with a string `type`, etc. */
export function toolResultOf(v: unknown): RawResult | string {
  if (!isPlainObject(v)) return 'the result is not an object';
  const content = v.content === undefined ? [] : v.content;
  if (!Array.isArray(content)) return '`content` is not an array';
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (!isPlainObject(block) || typeof block.type !== 'string') return `\`content[${i}]\` is not an object with a string \`type\``;
  }
  if (v.structuredContent !== undefined && !isPlainObject(v.structuredContent)) return '`structuredContent` is not an object';
  if (v.isError !== undefined && typeof v.isError !== 'boolean') return '`isError` is not a boolean';
  return { content: content as RawResult['content'], ...(v.structuredContent !== undefined ? { structuredContent: v.structuredContent as Record<string, unknown> } : {}), ...(v.isError !== undefined ? { isError: v.isError as boolean } : {}) };
}

interface ProgressParams {
  readonly progressToken: string | number;
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

function progressParamsOf(v: unknown): ProgressParams | null {
  if (!isPlainObject(v)) return null;
  const { progressToken, progress, total, message } = v;
  if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return null;
  if (typeof progress !== 'number' || (total !== undefined && typeof total !== 'number') || (message !== undefined && typeof message !== 'string')) return null;
  return { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) };
}

interface Session {
  readonly source: string;
  readonly secrets: McpSourceSecrets;
  conn: McpConnection | null;
  closed: boolean;
  /** Why the session ended, when the transport knew better than "Connection closed" (an oversize HTTP response). */
  fatal: Error | null;
  active: number;
  idleTimer: NodeJS.Timeout | null;
  /** The progress tokens of the calls running on it, and where their progress goes. */
  readonly progress: Map<string, { readonly onProgress: (p: ProgressUpdate) => void; readonly signal: AbortSignal }>;
  redactor?: ResultRedactor;
}


interface Entry {
  live: Session | null;
  connecting: Promise<Session> | null;
  /** Bumped by drop()/close(): a connect that started before is not used. */
  generation: number;
}

export class McpCallPool {
  private readonly entries = new Map<string, Entry>();
  private readonly closing = new AbortController();
  private closed = false;
  private readonly idleMs: number;
  private progressSeq = 0;
  /** Connects under way: close() waits for them (a server being started is ended, not left behind). */
  private readonly connects = new Set<Promise<unknown>>();
  /** Per source, outliving its sessions (a reconnect does not reset a flood's budget). Bounded by the sources called. */
  private readonly gates = new Map<string, NotificationGate>();

  constructor(private readonly deps: McpCallPoolDeps) {
    this.idleMs = deps.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Calls `tool` (its upstream name) on MCP source `source` (the source's unique name as stored). */
  async call(source: string, tool: string, call: UpstreamCall): Promise<UpstreamResult> {
    if (this.closed) throw new UpstreamError('unavailable', 'toolcat is shutting down: no new calls', { retryable: true });
    if (call.signal.aborted) throw new UpstreamError('cancelled', 'the call was cancelled before it was sent', { retryable: true });
    // One controller for the whole call: the caller's abort and the call's deadline both end it (and the SDK sends
    // notifications/cancelled for it when the request was sent).
    const ac = new AbortController();
    let timedOut = false;
    const onAbort = () => ac.abort(new Error('the caller cancelled the call'));
    call.signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => {
      timedOut = true;
      ac.abort(new Error(`the call took longer than ${call.timeoutMs} ms`));
    }, call.timeoutMs);
    const startedAt = Date.now();
    try {
      let session: Session;
      try {
        session = await abortable(this.session(source), ac.signal);
      } catch (err) {
        if (err instanceof UpstreamError) throw err;
        if (!ac.signal.aborted) throw new UpstreamError('unavailable', `cannot connect to source ${source}: ${sanitizeError(err)}`, { retryable: true });
        // The caller's bound ran out while the source was connecting: nothing was sent.
        if (call.signal.aborted) throw new UpstreamError('cancelled', `the call was cancelled while connecting to source ${source}; nothing was sent`, { retryable: true });
        throw new UpstreamError('timeout', `the call took longer than ${call.timeoutMs} ms while connecting to source ${source}; nothing was sent`, { retryable: true });
      }
      return await this.send(session, tool, call, ac.signal, Math.max(1, call.timeoutMs - (Date.now() - startedAt)), () => timedOut);
    } finally {
      clearTimeout(timer);
      call.signal.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Ends the source's session (its spec or secrets changed, or it was removed); the next call reconnects. `endUpstream:
   * false` (an admin changed or removed the source): a Streamable HTTP session is not ended with a DELETE that would
   * carry the old secrets to the old URL once more.
   */
  async drop(source: string, opts: { readonly endUpstream?: boolean } = {}): Promise<void> {
    const e = this.entries.get(source);
    if (!e) return;
    e.generation++;
    e.connecting = null;
    const s = e.live;
    e.live = null;
    this.entries.delete(source);
    this.gates.delete(source);
    if (s && opts.endUpstream === false) s.conn?.forgetSession();
    if (s) await this.end(s);
  }

  /** Ends all sessions and refuses new calls with UpstreamError('unavailable'). */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    await Promise.all([...this.entries.keys()].map((s) => this.drop(s)));
    await Promise.allSettled([...this.connects]);
  }

  /** Sources with a session open now (admin view, tests). */
  openSessions(): string[] {
    return [...this.entries].filter(([, e]) => e.live && !e.live.closed).map(([s]) => s);
  }

  /** The source's live session, or the one connect all first calls share. */
  private session(source: string): Promise<Session> {
    let e = this.entries.get(source);
    if (!e) {
      e = { live: null, connecting: null, generation: 0 };
      this.entries.set(source, e);
    }
    if (e.live && !e.live.closed) return Promise.resolve(e.live);
    if (e.connecting) return e.connecting;
    const entry = e;
    const generation = e.generation;
    const p = (async () => {
      const s = await this.open(source);
      if (this.closed || entry.generation !== generation || this.entries.get(source) !== entry) {
        await this.end(s);
        throw new UpstreamError('unavailable', this.closed ? 'toolcat is shutting down' : `source ${source} was reconfigured while connecting; nothing was sent`, { retryable: true });
      }
      entry.live = s;
      this.idle(s); // also a session whose first caller gave up while it connected is closed when unused
      return s;
    })();
    entry.connecting = p;
    this.connects.add(p);
    p.then(
      () => {
        this.connects.delete(p);
        if (entry.connecting === p) entry.connecting = null;
      },
      () => {
        this.connects.delete(p);
        if (entry.connecting === p) entry.connecting = null;
        if (!entry.live && !entry.connecting && this.entries.get(source) === entry) this.entries.delete(source);
      },
    );
    return p;
  }

  private async open(source: string): Promise<Session> {
    let loaded: Awaited<ReturnType<typeof loadSource>>;
    try {
      loaded = await loadSource(this.deps.dataSource, source);
    } catch (err) {
      throw new UpstreamError('unavailable', `cannot read source ${source}: ${sanitizeError(err)}`, { retryable: true });
    }
    if (!loaded) throw new UpstreamError('unavailable', `no source named ${source}`, { retryable: true });
    if (!loaded.spec.enabled) throw new UpstreamError('unavailable', `source ${source} is disabled`, { retryable: true });
    const { spec, secrets } = loaded;
    const session: Session = { source, secrets, conn: null, closed: false, fatal: null, active: 0, idleTimer: null, progress: new Map() };
    // A signal of this connect's own, aborted by shutdown: the SDK never removes the abort listener it adds to the
    // signal it is given, so giving it the pool-wide one grew that signal by a listener per reconnect (a server
    // that keeps crashing made it grow without bound).
    const connecting = followSignal(this.closing.signal);
    try {
      session.conn = await connect(spec, secrets, this.deps.env, {
        version: this.deps.version,
        connectTimeoutMs: this.deps.connectTimeoutMs,
        maxMessageBytes: this.deps.maxMessageBytes,
        gate: spec.transport === 'stdio' ? this.gateOf(source) : undefined,
        signal: connecting.signal,
        signalMessage: 'toolcat is shutting down',
        onClosed: () => this.ended(session),
        // An HTTP response cut off at the bound: the SDK would leave an SSE-streamed call waiting (it reports the
        // stream's error only as text), so the session ends and every call on it fails with this reason.
        onOversize: (err) => {
          session.fatal ??= err;
          void this.end(session);
        },
      });
    } catch (err) {
      // Nothing was sent: the request never left toolcat.
      throw new UpstreamError('unavailable', `cannot connect to source ${source}: ${this.clean(session, err)}`, { retryable: true });
    } finally {
      connecting.release();
    }
    this.routeProgress(session, session.conn, spec.transport === 'http' ? this.gateOf(source) : null);
    if (session.closed) throw new UpstreamError('unavailable', `the session to source ${source} ended as it opened: ${this.clean(session, session.conn.explain(new Error('connection closed')))}`, { retryable: true });
    this.deps.log.info({ source, transport: spec.transport, pid: session.conn.pid }, 'tool-call session opened');
    this.deps.onSessionOpened?.({ source, pid: session.conn.pid });
    return session;
  }

  private async send(s: Session, tool: string, call: UpstreamCall, signal: AbortSignal, timeoutMs: number, timedOut: () => boolean): Promise<UpstreamResult> {
    const conn = s.conn!;
    if (s.closed) throw new UpstreamError('unavailable', `the session to source ${s.source} ended before the call was sent`, { retryable: true });
    s.active++;
    if (s.idleTimer) clearTimeout(s.idleTimer);
    s.idleTimer = null;
    // Progress goes by a token of our own, routed as each message arrives (routeProgress): the SDK's own routing
    // runs notification handlers a microtask later than responses, so progress sent just before the result was lost.
    const token = call.onProgress ? `toolcat-${++this.progressSeq}` : null;
    if (token) s.progress.set(token, { onProgress: call.onProgress!, signal });
    let answer: unknown;
    try {
      answer = await conn.client.request(
        { method: 'tools/call', params: { name: tool, arguments: { ...call.arguments }, ...metaOf(token, this.deps.traceMeta?.() ?? null) } },
        AnyResult,
        { signal, timeout: timeoutMs, maxTotalTimeout: timeoutMs, resetTimeoutOnProgress: false },
      );
    } catch (err) {
      throw this.failure(s, err, call, timedOut());
    } finally {
      if (token) s.progress.delete(token);
      s.active--;
      this.idle(s);
    }
    const raw = toolResultOf(answer);
    if (typeof raw === 'string') throw new UpstreamError('protocol', `source ${s.source} answered something that is not a tool result: ${this.clean(s, raw)}`);
    const json = JSON.stringify(raw);
    const bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > call.maxResultBytes) throw new UpstreamError('too-large', this.clean(s, `the result of ${tool} is ${bytes} bytes, more than the ${call.maxResultBytes} allowed`));
    const clean = this.redactorOf(s).value(raw, json);
    return { isError: clean.isError === true, content: clean.content, ...(clean.structuredContent !== undefined ? { structuredContent: clean.structuredContent } : {}) };
  }

  /** Why a sent request failed, as an UpstreamError (never retryable: the server may have acted on it). */
  private failure(s: Session, err: unknown, call: UpstreamCall, timedOut: boolean): UpstreamError {
    const source = s.source;
    if (call.signal.aborted) return new UpstreamError('cancelled', `the call was cancelled; source ${source} was sent notifications/cancelled`);
    if (timedOut || (err instanceof McpError && err.code === ErrorCode.RequestTimeout)) {
      return new UpstreamError('timeout', `source ${source} did not answer within ${call.timeoutMs} ms; it was sent notifications/cancelled`);
    }
    const why = s.fatal ?? s.conn!.explain(err);
    if (why instanceof MessageTooLargeError || err instanceof MessageTooLargeError) {
      void this.end(s);
      return new UpstreamError('too-large', `source ${source} sent a message larger than the ${this.deps.maxMessageBytes} bytes a message may have; the session was closed: ${this.clean(s, why)}`);
    }
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed && s.closed) {
      return new UpstreamError('unavailable', `the session to source ${source} ended during the call: ${this.clean(s, why)}`);
    }
    // The server answered a JSON-RPC error (its code may well be -32000, the SDK's ConnectionClosed: the session says which).
    if (err instanceof McpError && !s.closed) return new UpstreamError('protocol', `source ${source} answered with an error instead of a result: ${this.clean(s, err)}`);
    if (err instanceof Error && err.message === 'Not connected') {
      return new UpstreamError('unavailable', `the session to source ${source} ended before the call was sent`, { retryable: true });
    }
    // A transport failure (an HTTP error status, a refused connection): the session is not trusted again; the next
    // call opens a new one. A 404 is the server saying it does not know the session (it restarted, or ended it): by
    // the Streamable HTTP spec it did not process the request, so that one is safe to send again.
    void this.end(s);
    const status = err instanceof StreamableHTTPError ? ` (HTTP ${err.code})` : '';
    const sessionGone = err instanceof StreamableHTTPError && err.code === 404;
    return new UpstreamError('unavailable', `the call to source ${source} failed in transport${status}${sessionGone ? ': the server no longer knows the session' : ''}: ${this.clean(s, why)}`, sessionGone ? { retryable: true } : {});
  }

  /** notifications/progress with one of our tokens goes to its call as it arrives, in order, before a later result. */
  private routeProgress(s: Session, conn: McpConnection, gate: NotificationGate | null): void {
    const dispatch = conn.transport.onmessage;
    conn.transport.onmessage = (message, extra) => {
      const notification = 'method' in message && !('id' in message);
      if (notification && gate && !gate.admit()) return;
      if (!notification || message.method !== 'notifications/progress') return dispatch?.(message, extra);
      const p = progressParamsOf(message.params);
      if (!p) return;
      const to = s.progress.get(String(p.progressToken));
      if (!to || to.signal.aborted) return;
      const { progress, total, message: text } = p;
      try {
        to.onProgress({ progress, ...(total !== undefined ? { total } : {}), ...(text !== undefined ? { message: this.redactorOf(s).text(text) } : {}) });
      } catch (err) {
        this.deps.log.warn({ err, source: s.source }, 'a progress listener threw');
      }
    };
  }

  private gateOf(source: string): NotificationGate {
    let g = this.gates.get(source);
    if (!g) {
      g = new NotificationGate({ maxPerSecond: this.deps.maxNotificationsPerSecond ?? 1000 });
      this.gates.set(source, g);
    }
    return g;
  }

  /** What takes the source's secrets out of its results and progress messages (once a session: they do not change). */
  private redactorOf(s: Session): ResultRedactor {
    return (s.redactor ??= new ResultRedactor(secretValues(s.secrets, this.deps.env)));
  }

  private clean(s: Session, err: unknown): string {
    return sanitizeError(err, secretValues(s.secrets, this.deps.env));
  }

  private idle(s: Session): void {
    if (s.active > 0 || s.closed || this.closed) return;
    if (s.idleTimer) clearTimeout(s.idleTimer);
    s.idleTimer = setTimeout(() => {
      s.idleTimer = null;
      if (s.active === 0) {
        this.deps.log.debug({ source: s.source }, 'tool-call session idle: closed');
        void this.end(s);
      }
    }, this.idleMs);
    s.idleTimer.unref();
  }

  /** The session's transport closed (the server exited, close()): later calls open a new one. */
  private ended(s: Session): void {
    if (s.closed) return;
    s.closed = true;
    if (s.idleTimer) clearTimeout(s.idleTimer);
    s.idleTimer = null;
    const e = this.entries.get(s.source);
    if (e?.live === s) {
      e.live = null;
      if (!e.connecting) this.entries.delete(s.source);
    }
    if (s.conn) this.deps.log.info({ source: s.source }, 'tool-call session closed');
  }

  private async end(s: Session): Promise<void> {
    const conn = s.conn;
    this.ended(s);
    await conn?.client.close().catch(() => undefined);
  }
}

/** `p`, or a rejection as soon as `signal` aborts (p goes on for whoever else waits on it). */
function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

/** The request's `_meta`: our progress token, and the caller's trace context when tracing is on (issue 19, SEP-414). */
function metaOf(token: string | null, trace: Record<string, string> | null): { _meta?: Record<string, string> } {
  if (token === null && trace === null) return {};
  return { _meta: { ...trace, ...(token ? { progressToken: token } : {}) } };
}
