import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type McpSourceSecrets, type McpSourceSpec, resolveSecrets, resolveUrl } from '../source-spec';
import { boundedFetch } from './bounded-fetch';
import { BoundedStdioTransport } from './bounded-stdio.transport';
import type { SyncLimits } from './sync-limits';

/**
 * A connection to one MCP server. Connection secrets are resolved here and go only into the transport:
 * they never reach a RawTool, a descriptor, a log line or an error message. Errors raised here may quote them
 * (a server echoing its environment on stderr, an HTTP error body): the sync service sanitises every one with
 * the same values resolved again for that moment (secretValues, issue 11), so no resolved value is kept.
 */
export interface McpSession {
  listAllTools(limits: SyncLimits, signal: AbortSignal): Promise<unknown[]>;
  close(): Promise<void>;
  readonly closed: boolean;
}

// Permissive on purpose: the SDK's strict ListToolsResultSchema rejects a whole page for one bad tool.
// Each tool is checked on its own later (snapshot.ts), so one bad tool cannot hide the others.
const PermissivePage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().max(4096).optional() });

export async function openSession(
  spec: McpSourceSpec,
  secrets: McpSourceSecrets,
  env: Readonly<Record<string, string | undefined>>,
  limits: SyncLimits,
  hooks: { onToolsChanged?: () => void; onClosed?: () => void; version: string },
): Promise<McpSession> {
  let transport: Transport;
  if (spec.transport === 'stdio') {
    transport = new BoundedStdioTransport(
      { command: spec.command!, args: spec.args, env: { ...getDefaultEnvironment(), ...resolveSecrets(secrets.env, env) } },
      limits.maxMessageBytes,
    );
  } else {
    const headers = resolveSecrets(secrets.headers, env);
    transport = new StreamableHTTPClientTransport(new URL(resolveUrl(secrets.url!, env)), { requestInit: { headers }, fetch: boundedFetch(limits.maxMessageBytes) });
  }
  const client = new Client({ name: 'toolcat', version: hooks.version }, { capabilities: {} });
  let closed = false;
  client.onclose = () => {
    closed = true;
    hooks.onClosed?.();
  };
  client.onerror = () => undefined; // surfaced through the pending request or onclose
  if (hooks.onToolsChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, async () => hooks.onToolsChanged!());
  // The SDK reports a dead connection as "Connection closed"; the transport knows why (exit code, oversize).
  const explain = (err: unknown): Error => (transport instanceof BoundedStdioTransport && transport.fatalError ? transport.fatalError : (err as Error));
  try {
    await withTimeout(client.connect(transport, { timeout: limits.connectTimeoutMs }), limits.connectTimeoutMs, 'connecting');
  } catch (err) {
    await client.close().catch(() => undefined);
    throw explain(err);
  }
  return {
    get closed() {
      return closed;
    },
    async listAllTools(l, signal) {
      const tools: unknown[] = [];
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        if (page >= l.maxPages) throw new Error(`the server paginated past ${l.maxPages} pages`);
        let result: z.infer<typeof PermissivePage>;
        try {
          result = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, PermissivePage, { timeout: l.requestTimeoutMs, signal });
        } catch (err) {
          throw explain(err);
        }
        tools.push(...result.tools);
        if (tools.length > l.maxTools) throw new Error(`the server listed more than ${l.maxTools} tools`);
        if (!result.nextCursor) return tools;
        if (result.nextCursor === cursor) throw new Error('the server repeated the same cursor');
        cursor = result.nextCursor;
      }
    },
    async close() {
      closed = true;
      await client.close().catch(() => undefined);
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
