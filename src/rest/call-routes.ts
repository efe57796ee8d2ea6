import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLContext } from '../graphql/context';
import type { CallEvent, CallHandle, ToolCallResult } from '../invocation/invocation.service';
import { GET_CALL, START_CALL } from './documents';
import type { ExecutionOutcome, GraphQLExecutor } from './graphql-executor';
import { CALL_STATUS_BY_CODE, NOT_FOUND_TOOL_BODY, sendJson } from './http-status';
import { UNAVAILABLE_HEADERS, bearerChallenge, errorBody } from '../shared/transport-answers';
import { MAX_BODY_NESTING, readJsonBody } from '../shared/json-body';
import { splitTarget } from '../shared/request-target';
import { parse as parseQuery } from 'node:querystring';

/**
 * The call endpoints (issue 14), translated onto the GraphQL layer like every other route:
 *   POST /tools/{toolId}/calls           { "arguments": {…} }  →  200 { callId, toolId, isError, content, structuredContent? }
 *                                        or, with Accept: text/event-stream, the call's events (SSE)
 *   GET  /tools/{toolId}/calls/{callId}  the caller's own past call; 404 (the catalog's bytes) for anyone else
 * The decision is the GraphQL layer's `startToolCall`, which asks the catalog's own read: a tool the caller may not
 * see answers the very 404 of GET /tools/{toolId}.
 */
export interface CallRouteDeps {
  readonly exec: GraphQLExecutor;
  /** Largest request body (TOOLCAT_CALL_MAX_REQUEST_BYTES): past it, 413 before anything runs. */
  readonly maxRequestBytes: number;
  /** How often an idle SSE stream sends a comment, so proxies keep it open. */
  readonly heartbeatMs: number;
  /** The body must have arrived within this long (TOOLCAT_BODY_DEADLINE_MS): a trickled body never holds a connection. */
  readonly bodyDeadlineMs: number;
}

export function prepareCallDocuments(exec: GraphQLExecutor): void {
  for (const doc of [START_CALL, GET_CALL]) exec.prepare(doc);
}

export async function postCall(deps: CallRouteDeps, req: IncomingMessage, res: ServerResponse, ctx: GraphQLContext, toolId: string): Promise<void> {
  // Bounded in bytes, time and nesting before anything is parsed (shared/json-body.ts).
  const read = await readJsonBody(req, { maxBytes: deps.maxRequestBytes, deadlineMs: deps.bodyDeadlineMs, maxDepth: MAX_BODY_NESTING, party: ctx.principal?.tenantId });
  if (!read.ok && read.why === 'too-large') return sendJson(res, 413, errorBody('BAD_REQUEST', `The request body is larger than ${deps.maxRequestBytes} bytes.`), { Connection: 'close' });
  if (!read.ok && read.why === 'too-slow') return sendJson(res, 408, errorBody('BAD_REQUEST', `The request body did not arrive within ${deps.bodyDeadlineMs} ms.`), { Connection: 'close' });
  if (!read.ok && read.why === 'too-deep') return sendJson(res, 400, errorBody('BAD_REQUEST', `The request body is nested more than ${MAX_BODY_NESTING} levels deep.`));
  if (!read.ok) return sendJson(res, 400, errorBody('BAD_REQUEST', 'The request body is not JSON.'));
  const parsed: unknown = read.empty ? {} : read.value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return sendJson(res, 400, errorBody('BAD_REQUEST', 'The request body must be a JSON object: { "arguments": { … } }.'));
  const unknownKeys = Object.keys(parsed).filter((k) => k !== 'arguments');
  if (unknownKeys.length) return sendJson(res, 400, errorBody('BAD_REQUEST', `Unknown field${unknownKeys.length > 1 ? 's' : ''} in the request body: ${unknownKeys.slice(0, 5).join(', ')}. The body is { "arguments": { … } }.`));
  const key = req.headers['idempotency-key'];
  if (Array.isArray(key)) return sendJson(res, 400, errorBody('BAD_REQUEST', 'Send one Idempotency-Key.'));
  // Issue 16: `?profile=<name>`: the path may name the tool by that profile's functionName (see startToolCall).
  const query = splitTarget(req.url).query;
  const profile = query === null ? undefined : parseQuery(query).profile;
  // The body's size bounds the arguments' JSON: the call path sizes them by it instead of walking them (argument-facts.ts).
  const out = await deps.exec.execute(START_CALL, { toolId, arguments: (parsed as { arguments?: unknown }).arguments ?? null, idempotencyKey: key ?? null, profile: typeof profile === 'string' ? profile : null }, { ...ctx, bodyBytes: read.bytes });
  if (out.errorCodes.length) return sendCallError(res, ctx, out);
  const call = out.data?.call as { callId: string; replayed: boolean; handle: CallHandle } | null | undefined;
  // Unknown, not yours, withheld, quarantined: the catalog's own null, so the catalog's own 404 bytes (TC-CAT-4).
  if (!call) return sendJson(res, 404, NOT_FOUND_TOOL_BODY);
  const { handle } = call;
  // A caller that goes away cancels the upstream call (issue 14 item 4).
  let finished = false;
  res.once('close', () => {
    if (!finished) handle.cancel();
  });
  if (handle.replayed) res.setHeader('Idempotent-Replayed', 'true');
  if (wantsEventStream(req)) {
    await streamEvents(deps, res, handle);
    finished = true;
    return;
  }
  handle.discardProgress();
  try {
    const result = await handle.done;
    finished = true;
    sendJson(res, 200, JSON.stringify(resultBody(result)));
  } catch (err) {
    finished = true;
    const e = err as { code?: string; message?: string; opts?: { details?: Record<string, unknown> } };
    sendCallErrorOf(res, ctx, e.code ?? 'INTERNAL_SERVER_ERROR', e.message ?? 'The call failed.', e.opts?.details);
  }
}

export async function getCall(deps: CallRouteDeps, res: ServerResponse, ctx: GraphQLContext, toolId: string, callId: string): Promise<void> {
  const out = await deps.exec.execute(GET_CALL, { toolId, callId }, ctx);
  if (out.errorCodes.length) return sendCallError(res, ctx, out);
  const call = out.data?.call as Record<string, unknown> | null | undefined;
  if (!call) return sendJson(res, 404, NOT_FOUND_TOOL_BODY);
  res.setHeader('Cache-Control', 'private, no-cache');
  sendJson(res, 200, JSON.stringify(pastCallBody(call)));
}

/** A past call: fields GraphQL gives as null are left out, the tool's own data (content, structuredContent) as sent. */
function pastCallBody(call: Record<string, unknown>): Record<string, unknown> {
  const out = withoutNulls(call);
  const r = call.result as Record<string, unknown> | null;
  if (r) out.result = { callId: call.callId, toolId: call.toolId, ...withoutNulls(r) };
  const e = call.error as Record<string, unknown> | null;
  if (e) out.error = withoutNulls(e);
  return out;
}

/** The JSON answer: MCP CallToolResult plus ids, structuredContent only when the tool sent it. */
function resultBody(r: ToolCallResult): Record<string, unknown> {
  return { callId: r.callId, toolId: r.toolId, isError: r.isError, content: r.content, ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent } : {}) };
}

/** Past this many bytes waiting in an SSE socket's buffer, progress events are skipped until it drains. */
const SSE_PROGRESS_BUFFER_BYTES = 64 * 1024;

const EVENT_NAMES: Readonly<Record<CallEvent['type'], string>> = {
  opened: 'tool.session.opened',
  progress: 'tool.call.progress',
  result: 'tool.call.result',
  error: 'tool.call.error',
  closed: 'tool.session.closed',
};

/**
 * SSE (issue 14 item 1; TC-SESS-1): `tool.session.opened` first, progress while the tool reports it, the result (or
 * the error), `tool.session.closed` last. The session events are content-free: a call id and a time, nothing else.
 */
async function streamEvents(deps: CallRouteDeps, res: ServerResponse, handle: CallHandle): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), deps.heartbeatMs);
  heartbeat.unref();
  try {
    for await (const e of handle.events()) {
      if (res.destroyed) break;
      // A reader slower than the upstream's progress (or one that stopped reading): progress is skipped while the
      // socket's buffer is over the bound, so memory is bounded by the reader's buffer, not the upstream's chattiness.
      // The result and the session events are always written.
      if (e.type === 'progress' && res.writableLength > SSE_PROGRESS_BUFFER_BYTES) continue;
      res.write(`event: ${EVENT_NAMES[e.type]}\ndata: ${JSON.stringify(eventData(e))}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}

function eventData(e: CallEvent): Record<string, unknown> {
  switch (e.type) {
    case 'opened':
    case 'closed':
      return { callId: e.callId, at: e.at };
    case 'progress':
      return { callId: e.callId, progress: e.progress, ...(e.total !== undefined ? { total: e.total } : {}), ...(e.message !== undefined ? { message: e.message } : {}) };
    case 'result':
      return resultBody(e.result);
    case 'error':
      return { callId: e.callId, code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
  }
}

function sendCallError(res: ServerResponse, ctx: GraphQLContext, out: ExecutionOutcome): void {
  const i = Math.max(0, out.errorCodes.findIndex((c) => CALL_STATUS_BY_CODE[c] !== undefined));
  sendCallErrorOf(res, ctx, out.errorCodes[i], out.errorMessages[i], out.errorDetails?.[i]);
}

function sendCallErrorOf(res: ServerResponse, ctx: GraphQLContext, code: string, message: string, details: Readonly<Record<string, unknown>> | undefined): void {
  // The decision changed while the call waited to be sent: the catalog's own 404 bytes.
  if (code === 'NOT_FOUND') return sendJson(res, 404, NOT_FOUND_TOOL_BODY);
  const status = CALL_STATUS_BY_CODE[code] ?? 500;
  if (status === 401) res.setHeader('WWW-Authenticate', bearerChallenge(ctx.credentialRejected));
  if (code === 'SERVICE_UNAVAILABLE') for (const [k, v] of Object.entries(UNAVAILABLE_HEADERS)) res.setHeader(k, v);
  const retryAfter = details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
  if (status === 500) return sendJson(res, 500, errorBody('INTERNAL_SERVER_ERROR', 'Internal server error.'));
  sendJson(res, status, JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }));
}

function wantsEventStream(req: IncomingMessage): boolean {
  return /\btext\/event-stream\b/i.test(req.headers.accept ?? '');
}

/** One level only: the values below (a tool's structuredContent) may hold nulls of their own. */
function withoutNulls(v: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
}
