import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the rest of toolcat sees of tracing (issue 19): types only, so importing this file loads no OpenTelemetry
 * module. Every hook is optional where it is used and absent when tracing is off: a call site pays one null check.
 * The implementation is ops/tracing.ts, loaded by the composition root only when tracing is configured.
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export interface SpanHooks {
  /** Runs `fn` inside a new span (a child of the active one, if any), ended when its promise settles. */
  inSpan<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
  /**
   * The active span's W3C trace context as MCP request `_meta` fields (SEP-414: `traceparent`, `tracestate`),
   * or null when no span is active.
   */
  traceMeta(): Record<string, string> | null;
}

/** Runs `route` for the request inside its HTTP server span (the caller's `traceparent` is its parent). */
export type TraceRequest = (req: IncomingMessage, res: ServerResponse, route: (req: IncomingMessage, res: ServerResponse) => void) => void;
