import type { DataSource } from 'typeorm';
import type { ResolvedImplementation } from '../persistence/extension-implementation.store';
import type { Logger } from '../shared/logger';
import { callExtensionHttp } from './extension-http';
import { McpCallPool } from './mcp-call-pool';
import { SourceGate, type SourceGateLimits } from './source-gate';
import { type CallTarget, type Upstream, type UpstreamCall, UpstreamError, type UpstreamResult } from './upstream';

export interface UpstreamsDeps {
  readonly dataSource: DataSource;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly version: string;
  /** A host extension's implementation, secrets resolved; null when it declares none. */
  readonly resolveExtension: (toolId: string) => Promise<ResolvedImplementation | null>;
  readonly limits: SourceGateLimits;
  readonly connectTimeoutMs: number;
  readonly maxMessageBytes: number;
  readonly log: Logger;
  /** Injected clock (ms); the request signature's timestamp and the breakers read it. */
  readonly now?: () => number;
  /** Issue 19: trace context for upstream MCP requests (absent when tracing is off). */
  readonly traceMeta?: () => Record<string, string> | null;
}

export type Upstreams = Upstream & { readonly pool: McpCallPool; readonly gate: SourceGate };

/**
 * Where calls go (issue 14 item 4), each behind its own bulkhead (item 6): an MCP source's calls share that
 * source's concurrency limit, queue and circuit breaker; each host extension's implementation has its own. So a
 * slow, hanging or failing upstream fills only its own queue: calls elsewhere and catalog reads never wait on it.
 */
export function createUpstreams(deps: UpstreamsDeps): Upstreams {
  const now = deps.now ?? Date.now;
  const gate = new SourceGate(deps.limits, now);
  const pool = new McpCallPool({ dataSource: deps.dataSource, env: deps.env, version: deps.version, connectTimeoutMs: deps.connectTimeoutMs, maxMessageBytes: deps.maxMessageBytes, log: deps.log, traceMeta: deps.traceMeta });
  let closed = false;
  // Every call waits for its bulkhead, is decided again as it leaves the queue (beforeSend), then is sent.
  const gated = (key: string, call: UpstreamCall, send: () => Promise<UpstreamResult>) =>
    gate.run(key, call.signal, async () => {
      await call.beforeSend?.();
      return send();
    }, call.party);
  return {
    pool,
    gate,
    async call(target: CallTarget, call: UpstreamCall): Promise<UpstreamResult> {
      if (closed) throw new UpstreamError('unavailable', 'toolcat is shutting down');
      if (target.kind === 'mcp') {
        return gated(`mcp:${target.source}`, call, () => pool.call(target.source, target.tool, call));
      }
      let impl: ResolvedImplementation | null;
      try {
        impl = await deps.resolveExtension(target.toolId);
      } catch (err) {
        // A `fromEnv` variable that is not set: the operator's configuration, said without any value.
        throw new UpstreamError('unavailable', `the extension's implementation is misconfigured: ${(err as Error).message}`);
      }
      if (!impl) throw new UpstreamError('not-implemented', `the host extension ${target.toolId} declares no implementation, so toolcat cannot call it; its host calls it directly`);
      const resolved = impl;
      return gated(`ext:${target.toolId}`, call, () => callExtensionHttp(resolved, target, call, () => now() / 1000));
    },
    async close(): Promise<void> {
      closed = true;
      await pool.close();
    },
  };
}
