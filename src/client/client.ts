import { CallFailedError, ProtocolError, RateLimitedError, ToolcatError, UnavailableError, errorFor } from './errors';
import { readSse } from './sse';
import type { CallEvent, CallResult, Capabilities, CatalogChange, PastCall, ToolDescriptor } from './types';

export interface ToolcatClientOptions {
  /** The host's base URL, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  /** The bearer credential (an API key or an access token), or a function giving the current one. */
  readonly token?: string | (() => string | Promise<string>);
  /** Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  readonly retry?: RetryOptions;
}

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). 1 turns retrying off. */
  readonly maxAttempts?: number;
  /** The longest wait the client accepts; a Retry-After beyond it is given back to the caller at once (default 30 s). */
  readonly maxDelayMs?: number;
  /** Waits between attempts (default setTimeout); tests pass their own. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface ListOptions {
  /** `compact` asks for the compact view; a host without it answers the standard one (TC-VIEW-4), read the same way. */
  readonly view?: 'standard' | 'compact';
  /** A provider profile (`openai`, `anthropic`, `gemini`), on hosts that serve them: descriptors carry `functionName`. */
  readonly profile?: string;
  readonly signal?: AbortSignal;
}

export interface ToolList {
  /** Which view the host answered: `compact` only when it sent `{ tools: [...] }`. */
  readonly view: 'standard' | 'compact';
  readonly tools: readonly ToolDescriptor[];
  readonly etag: string | null;
  /** True when the host answered 304 and this is the list the client held. */
  readonly notModified: boolean;
}

export interface CallOptions {
  /** Ask for the call's events (SSE); `onEvent` hears each as it arrives. The promise still resolves to the result. */
  readonly stream?: boolean;
  readonly onEvent?: (e: CallEvent) => void;
  /** Makes the call safe to repeat: the host answers a repeat with the recorded outcome. Also lets the client retry. */
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

export interface CallOutcome extends CallResult {
  /** The host answered a recorded outcome for this Idempotency-Key (Idempotent-Replayed: true). */
  readonly replayed: boolean;
}

export interface EventsOptions {
  readonly view?: 'standard' | 'compact';
  /** The last change id seen (a list ETag): nothing is sent at first when it is still current. */
  readonly lastEventId?: string;
  readonly signal?: AbortSignal;
}

const DEFAULT_ATTEMPTS = 3;
const DEFAULT_MAX_DELAY_MS = 30_000;
/** Without Retry-After, waits grow from this (doubling per attempt). */
const BASE_DELAY_MS = 500;
/** The reconnect delay of an event stream until the host says otherwise (`retry:`). */
const DEFAULT_RECONNECT_MS = 2000;

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/**
 * A client of a tool catalog v2 host (toolcat or any other), on fetch and nothing else.
 *
 * Retries are bounded and honest: only a request that is safe to repeat is repeated (every read; a call only with an
 * `idempotencyKey` or when the tool's descriptor says `replayPolicy` deterministic or idempotent), only after an answer
 * that says "later" (429, 503) or a failure to reach the host, waiting what Retry-After says, and never longer than
 * `maxDelayMs`: past it, or after `maxAttempts`, the typed error goes back to the caller.
 *
 * One client is one credential: the list cache (ETag revalidation) is keyed by view and profile, not by token, as the
 * host's answers vary by Authorization.
 */
export class ToolcatClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;
  private readonly attempts: number;
  private readonly maxDelayMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly lists = new Map<string, { etag: string; list: ToolList }>();
  /** The replay policy of every tool this client has read, so it knows which calls it may retry. */
  private readonly replay = new Map<string, string>();

  constructor(private readonly options: ToolcatClientOptions) {
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.attempts = Math.max(1, options.retry?.maxAttempts ?? DEFAULT_ATTEMPTS);
    this.maxDelayMs = options.retry?.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
    this.sleep = options.retry?.sleep ?? defaultSleep;
  }

  async capabilities(opts: { signal?: AbortSignal } = {}): Promise<Capabilities> {
    const res = await this.send('GET', '/capabilities', { signal: opts.signal, retryable: true });
    return (await readJson(res)) as Capabilities;
  }

  /** The caller's tools. Revalidates with the ETag of the last list in the same view and profile: a 304 reuses it. */
  async listTools(opts: ListOptions = {}): Promise<ToolList> {
    const params = new URLSearchParams();
    if (opts.view === 'compact') params.set('view', 'compact');
    if (opts.profile) params.set('profile', opts.profile);
    const query = params.toString();
    const cacheKey = query;
    const cached = this.lists.get(cacheKey);
    const res = await this.send('GET', `/tools${query ? `?${query}` : ''}`, {
      signal: opts.signal,
      retryable: true,
      headers: cached ? { 'If-None-Match': cached.etag } : {},
    });
    if (res.status === 304 && cached) return { ...cached.list, notModified: true };
    const body = await readJson(res);
    // The standard view is an array, the compact one `{ tools: [...] }`; a host without compactView answers the
    // standard view to ?view=compact (TC-VIEW-4), so the shape, not the request, says which one came.
    const compact = !Array.isArray(body);
    const tools = compact ? (body as { tools?: unknown }).tools : body;
    if (!Array.isArray(tools) || !tools.every(isDescriptor)) throw new ProtocolError(res.status, 'BAD_LIST', 'The tool list is not a list of descriptors.');
    for (const t of tools) if (typeof t.replayPolicy === 'string') this.replay.set(t.toolId, t.replayPolicy);
    const etag = res.headers.get('etag');
    const list: ToolList = { view: compact ? 'compact' : 'standard', tools, etag, notModified: false };
    if (etag) this.lists.set(cacheKey, { etag, list });
    return list;
  }

  async getTool(toolId: string, opts: { view?: 'standard' | 'compact'; profile?: string; signal?: AbortSignal } = {}): Promise<ToolDescriptor> {
    const params = new URLSearchParams();
    if (opts.view === 'compact') params.set('view', 'compact');
    if (opts.profile) params.set('profile', opts.profile);
    const query = params.toString();
    const res = await this.send('GET', `/tools/${encodeURIComponent(toolId)}${query ? `?${query}` : ''}`, { signal: opts.signal, retryable: true });
    const d = await readJson(res);
    if (!isDescriptor(d)) throw new ProtocolError(res.status, 'BAD_DESCRIPTOR', 'The answer is not a descriptor.');
    if (typeof d.replayPolicy === 'string') this.replay.set(d.toolId, d.replayPolicy);
    return d;
  }

  /**
   * Calls a tool. A tool error is a result (`isError: true`); a refusal is a typed error. With `stream`, the call's
   * events reach `onEvent` as they come; the session events (`tool.session.*`) may or may not be among them (TC-SESS-2):
   * the result is the `tool.call.result` event either way.
   */
  async callTool(toolId: string, args: Readonly<Record<string, unknown>> = {}, opts: CallOptions = {}): Promise<CallOutcome> {
    const policy = this.replay.get(toolId);
    const retryable = opts.idempotencyKey !== undefined || policy === 'deterministic' || policy === 'idempotent';
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (opts.idempotencyKey !== undefined) headers['Idempotency-Key'] = opts.idempotencyKey;
    if (opts.stream) headers.Accept = 'text/event-stream';
    const res = await this.send('POST', `/tools/${encodeURIComponent(toolId)}/calls`, { signal: opts.signal, retryable, headers, body: JSON.stringify({ arguments: args }) });
    const replayed = res.headers.get('idempotent-replayed') === 'true';
    const type = res.headers.get('content-type') ?? '';
    // A host may answer JSON even when the events were asked for: read what came.
    if (!type.startsWith('text/event-stream') || !res.body) return { ...asResult(await readJson(res), res.status), replayed };
    // Read to the end, so `onEvent` also hears what follows the result (tool.session.closed, when the host sends it).
    let outcome: CallOutcome | null = null;
    let failure: CallFailedError | null = null;
    for await (const e of readSse(res.body)) {
      const event = callEventOf(e.event, e.data);
      opts.onEvent?.(event);
      if (event.type === 'tool.call.result' && !outcome && !failure) outcome = { ...asResult(event.data, res.status), replayed };
      if (event.type === 'tool.call.error' && !outcome && !failure) failure = new CallFailedError(res.status, event.data.code, event.data.message, event.data.details);
    }
    if (failure) throw failure;
    if (outcome) return outcome;
    throw new ProtocolError(res.status, 'STREAM_ENDED', 'The call\'s event stream ended without a result.');
  }

  /** One of the caller's own past calls. */
  async getCall(toolId: string, callId: string, opts: { signal?: AbortSignal } = {}): Promise<PastCall> {
    const res = await this.send('GET', `/tools/${encodeURIComponent(toolId)}/calls/${encodeURIComponent(callId)}`, { signal: opts.signal, retryable: true });
    return (await readJson(res)) as PastCall;
  }

  /**
   * The caller's catalog changes (GET /catalog/events) as an async iterator. When the stream ends or breaks, it
   * reconnects with `Last-Event-ID` set to the last change seen, after the host's `retry:` delay, so a change made
   * while disconnected is heard once and an unchanged catalog is not re-announced. It stops on a refusal (401: the
   * credential no longer holds; 404), after `maxAttempts` failed reconnects in a row, or when `signal` aborts or the
   * loop breaks.
   */
  events(opts: EventsOptions = {}): AsyncIterable<CatalogChange> & { readonly lastEventId: string | undefined } {
    let last = opts.lastEventId;
    const client = this;
    const iterate = async function* (): AsyncGenerator<CatalogChange> {
      let reconnectMs = DEFAULT_RECONNECT_MS;
      let failures = 0;
      const ac = new AbortController();
      const onAbort = () => ac.abort(opts.signal?.reason);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        for (;;) {
          let res: Response;
          try {
            res = await client.send('GET', `/catalog/events${opts.view === 'compact' ? '?view=compact' : ''}`, {
              signal: ac.signal,
              retryable: true,
              headers: { Accept: 'text/event-stream', ...(last !== undefined ? { 'Last-Event-ID': last } : {}) },
            });
          } catch (err) {
            if (ac.signal.aborted || !isTransient(err) || ++failures >= client.attempts) throw err;
            await client.sleep(reconnectMs, ac.signal);
            continue;
          }
          if (!res.body) throw new ProtocolError(res.status, 'NO_STREAM', 'The events answer has no body.');
          try {
            for await (const e of readSse(res.body)) {
              if (e.retry !== undefined) reconnectMs = e.retry;
              if (e.event !== 'catalog.changed') continue;
              failures = 0;
              let etag = e.id ?? '';
              try {
                const d = JSON.parse(e.data) as { etag?: unknown };
                if (typeof d.etag === 'string') etag = d.etag;
              } catch {
                // The id alone is the change.
              }
              if (e.id !== undefined) last = e.id;
              yield { etag };
            }
          } catch (err) {
            if (ac.signal.aborted) throw err;
            // A broken connection: reconnect like an ended stream.
          }
          if (ac.signal.aborted) return;
          if (++failures >= client.attempts + 1) throw new UnavailableError(503, 'STREAM_ENDED', 'The event stream keeps ending.');
          await client.sleep(reconnectMs, ac.signal);
        }
      } finally {
        opts.signal?.removeEventListener('abort', onAbort);
        ac.abort();
      }
    };
    return {
      [Symbol.asyncIterator]: () => iterate(),
      get lastEventId() {
        return last;
      },
    };
  }

  /** One request with the bounded retries the class comment describes; a non-2xx/304 answer is thrown typed. */
  private async send(method: string, path: string, o: { signal?: AbortSignal; retryable: boolean; headers?: Record<string, string>; body?: string }): Promise<Response> {
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    const headers: Record<string, string> = { Accept: 'application/json', ...o.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(this.base + path, { method, headers, body: o.body, signal: o.signal });
      } catch (err) {
        // Not reaching the host: safe to repeat only when the request is (a POST may have been delivered).
        if (o.signal?.aborted || !o.retryable || attempt >= this.attempts) throw err;
        await this.sleep(Math.min(this.maxDelayMs, BASE_DELAY_MS * 2 ** (attempt - 1)), o.signal);
        continue;
      }
      if ((res.status >= 200 && res.status < 300) || res.status === 304) return res;
      const error = errorFor(res.status, await res.text().catch(() => ''), res.headers.get('retry-after'));
      const later = error instanceof RateLimitedError || error instanceof UnavailableError;
      const waitMs = error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : BASE_DELAY_MS * 2 ** (attempt - 1);
      if (!later || !o.retryable || attempt >= this.attempts || waitMs > this.maxDelayMs) throw error;
      await this.sleep(waitMs, o.signal);
    }
  }
}

export function createToolcatClient(options: ToolcatClientOptions): ToolcatClient {
  return new ToolcatClient(options);
}

function isTransient(err: unknown): boolean {
  return !(err instanceof ToolcatError) || err instanceof RateLimitedError || err instanceof UnavailableError;
}

function isDescriptor(v: unknown): v is ToolDescriptor {
  return v !== null && typeof v === 'object' && typeof (v as { toolId?: unknown }).toolId === 'string';
}

async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ProtocolError(res.status, 'NOT_JSON', 'The host answered something that is not JSON.');
  }
}

function asResult(v: unknown, status: number): CallResult {
  const r = v as Partial<CallResult> | null;
  if (!r || typeof r !== 'object' || typeof r.isError !== 'boolean' || !Array.isArray(r.content)) throw new ProtocolError(status, 'BAD_RESULT', 'The answer is not a call result.');
  return r as CallResult;
}

function callEventOf(event: string, data: string): CallEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    parsed = data;
  }
  switch (event) {
    case 'tool.session.opened':
    case 'tool.session.closed':
    case 'tool.call.progress':
    case 'tool.call.result':
    case 'tool.call.error':
      return { type: event, data: parsed } as CallEvent;
    default:
      return { type: 'other', event, data: parsed };
  }
}
