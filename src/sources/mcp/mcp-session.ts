import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type McpSourceSecrets, type McpSourceSpec, resolveSecrets, resolveUrl } from '../source-spec';
import { followSignal } from '../../shared/follow-signal';
import { BoundedStdioTransport } from './bounded-stdio.transport';
import { HttpClientTransport } from './http-client.transport';
import type { MessageTooLargeError } from './message-too-large';
import type { NotificationGate } from './notification-gate';
import type { SyncLimits } from '../../config/sync-settings';

/** What a listing has read so far (issue 12 defect 6: shown to admins and in the CLI while a long sync runs). */
export interface ListProgress {
  readonly pages: number;
  readonly toolsRead: number;
}

/**
 * A connection to one MCP server. Connection secrets are resolved here and go only into the transport:
 * they never reach a RawTool, a descriptor, a log line or an error message. Errors raised here may quote them
 * (a server echoing its environment on stderr, an HTTP error body): the sync service sanitises every one with
 * the same values resolved again for that moment (secretValues, issue 11), so no resolved value is kept.
 */
export interface McpSession {
  /** All pages of tools/list, within the limits and the signal (the whole sync's deadline); onPage after each page. */
  /**
   * Every page of `tools/list`. With `eachPage`, each page is handed to it as it arrives (awaited before the page after
   * the next one is asked for, so at most two pages are held) and nothing is accumulated: the answer is then empty.
   */
  listAllTools(limits: SyncLimits, signal: AbortSignal, onPage?: (p: ListProgress) => void, eachPage?: (tools: unknown[]) => Promise<void>): Promise<unknown[]>;
  /** `endUpstream: false`: a Streamable HTTP session is not ended upstream (HttpClientTransport.forgetSession). */
  close(opts?: { readonly endUpstream?: boolean }): Promise<void>;
  readonly closed: boolean;
}

// Permissive on purpose: the SDK's strict ListToolsResultSchema rejects a whole page for one bad tool.
// Each tool is checked on its own later (snapshot.ts), so one bad tool cannot hide the others.
const PermissivePage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().max(4096).optional() });

/** A connected MCP client (initialize done) on the transport a source's spec names. */
export interface McpConnection {
  readonly client: Client;
  readonly transport: Transport;
  /** The SDK reports a dead connection as "Connection closed"; the transport knows why (exit code, oversize). */
  explain(err: unknown): Error;
  /** stdio: the server's pid (its process group) while it runs; http: null. */
  readonly pid: number | null;
  /** Closing will not end a Streamable HTTP session upstream (HttpClientTransport.forgetSession); stdio: nothing. */
  forgetSession(): void;
}

export interface ConnectOptions {
  readonly version: string;
  /** Spawn/connect plus the initialize handshake. */
  readonly connectTimeoutMs: number;
  /** One JSON-RPC message (stdio line, HTTP response body); a larger one ends the connection or the response. */
  readonly maxMessageBytes: number;
  /** The source's notification budget (issue 12 defect 4); stdio applies it before parsing. */
  readonly gate?: NotificationGate;
  /** An outer bound: connecting stops when it aborts, with `signalMessage`. */
  readonly signal?: AbortSignal;
  readonly signalMessage?: string;
  readonly onClosed?: () => void;
  readonly onToolsChanged?: () => void;
  /** An HTTP response cut off at maxMessageBytes (the SDK reports an SSE stream's error only as text). */
  readonly onOversize?: (err: MessageTooLargeError) => void;
}

/**
 * Connects to a source's MCP server the way every part of toolcat does (the sync, issue 4; tool calls, issue 14):
 * stdio through BoundedStdioTransport with the resolved env secrets, Streamable HTTP with the resolved URL and
 * headers through HttpClientTransport (redirects only within the URL's origin). Secrets go only into the transport.
 */
export async function connect(
  spec: McpSourceSpec,
  secrets: McpSourceSecrets,
  env: Readonly<Record<string, string | undefined>>,
  opts: ConnectOptions,
): Promise<McpConnection> {
  let transport: Transport;
  if (spec.transport === 'stdio') {
    transport = new BoundedStdioTransport(
      { command: spec.command!, args: spec.args, env: { ...getDefaultEnvironment(), ...resolveSecrets(secrets.env, env) } },
      { maxMessageBytes: opts.maxMessageBytes, gate: opts.gate },
    );
  } else {
    const headers = resolveSecrets(secrets.headers, env);
    transport = new HttpClientTransport(new URL(resolveUrl(secrets.url!, env)), { headers, maxMessageBytes: opts.maxMessageBytes, onOversize: opts.onOversize });
  }
  const client = new Client({ name: 'toolcat', version: opts.version }, { capabilities: {} });
  client.onclose = () => opts.onClosed?.();
  client.onerror = () => undefined; // surfaced through the pending request or onclose
  if (opts.onToolsChanged) {
    // stdio notifications met the gate before parsing; over HTTP the SDK has parsed them already, so the budget is applied here.
    const gated = spec.transport !== 'stdio' && opts.gate ? opts.gate : null;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      if (gated && !gated.admit()) return;
      opts.onToolsChanged!();
    });
  }
  const explain = (err: unknown): Error => (transport instanceof BoundedStdioTransport && transport.fatalError ? transport.fatalError : (err as Error));
  try {
    await withTimeout(client.connect(transport, { timeout: opts.connectTimeoutMs, signal: opts.signal }), opts.connectTimeoutMs, 'connecting', opts.signal, opts.signalMessage);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw explain(err);
  }
  return {
    client,
    transport,
    explain,
    get pid() {
      return transport instanceof BoundedStdioTransport ? transport.pid : null;
    },
    forgetSession() {
      if (transport instanceof HttpClientTransport) transport.forgetSession();
    },
  };
}

export async function openSession(
  spec: McpSourceSpec,
  secrets: McpSourceSecrets,
  env: Readonly<Record<string, string | undefined>>,
  limits: SyncLimits,
  hooks: {
    onToolsChanged?: () => void;
    onClosed?: () => void;
    version: string;
    /** The source's notification budget (issue 12 defect 4); stdio applies it before parsing. */
    gate?: NotificationGate;
    /** The whole sync's deadline: connecting counts against it too. */
    signal?: AbortSignal;
  },
): Promise<McpSession> {
  let closed = false;
  const { client, explain, forgetSession } = await connect(spec, secrets, env, {
    version: hooks.version,
    connectTimeoutMs: limits.connectTimeoutMs,
    maxMessageBytes: limits.maxMessageBytes,
    gate: hooks.gate,
    signal: hooks.signal,
    signalMessage: "timed out connecting: the whole sync's bound (TOOLCAT_SYNC_TIMEOUT_MS) ran out",
    onToolsChanged: hooks.onToolsChanged,
    onClosed: () => {
      closed = true;
      hooks.onClosed?.();
    },
  });
  return {
    get closed() {
      return closed;
    },
    async listAllTools(l, signal, onPage, eachPage) {
      const tools: unknown[] = [];
      let read = 0;
      let cursor: string | undefined;
      // Streaming: the previous page is examined while this one is fetched; its failure surfaces at the next await.
      let handing: Promise<void> = Promise.resolve();
      try {
        for (let page = 0; ; page++) {
          if (page >= l.maxPages) throw new Error(`the server paginated past ${l.maxPages} pages`);
          let result: z.infer<typeof PermissivePage>;
          try {
            result = await requestPage(client, cursor, l.requestTimeoutMs, signal);
          } catch (err) {
            throw explain(err);
          }
          read += result.tools.length;
          if (read > l.maxTools) throw new Error(`the server listed more than ${l.maxTools} tools`);
          if (eachPage) {
            await handing;
            handing = eachPage(result.tools);
            handing.catch(() => undefined); // awaited below or at the next page
          } else tools.push(...result.tools);
          onPage?.({ pages: page + 1, toolsRead: read });
          if (!result.nextCursor) {
            await handing;
            return tools;
          }
          if (result.nextCursor === cursor) throw new Error('the server repeated the same cursor');
          cursor = result.nextCursor;
        }
      } catch (err) {
        await handing.catch(() => undefined); // never leave a page being examined behind a failed listing
        throw err;
      }
    },
    async close(opts) {
      closed = true;
      if (opts?.endUpstream === false) forgetSession();
      await client.close().catch(() => undefined);
    },
  };
}

/**
 * One `tools/list` request under the sync's deadline. The SDK adds an abort listener to the signal it is given and
 * never removes it, and that listener's closure holds the request's answer: given the sync's deadline itself, every
 * page of the listing stayed reachable until the sync ended (issue 12: a streamed 5,000-tool listing was still held
 * whole, ~100 MB of descriptions). Each request gets a signal of its own that follows the deadline and is dropped with
 * the request.
 */
async function requestPage(client: Client, cursor: string | undefined, timeout: number, deadline: AbortSignal): Promise<z.infer<typeof PermissivePage>> {
  const own = followSignal(deadline);
  try {
    return await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, PermissivePage, { timeout, signal: own.signal });
  } finally {
    own.release();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string, signal?: AbortSignal, signalMessage = `timed out ${what}`): Promise<T> {
  let timer: NodeJS.Timeout;
  let onAbort: (() => void) | null = null;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms ${what}`)), ms);
      if (!signal) return;
      onAbort = () => reject(new Error(signalMessage));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }),
  ]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  });
}
