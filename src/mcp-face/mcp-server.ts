import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolRequestSchema, type CallToolResult, ErrorCode, ListToolsRequestSchema, McpError, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { GraphQLContext } from '../graphql/context';
import type { CallHandle, ToolCallResult } from '../invocation/invocation.service';
import { LIST_TOOLS, SEARCH_TOOLS, START_CALL } from '../rest/documents';
import type { GraphQLExecutor } from '../rest/graphql-executor';
import type { DecisionMemo } from '../rest/decision-memo';
import { type ListPage, type McpToolList, type McpToolListCache, META_PREFIX, decodeCursor, pageOf } from './tool-list';
import { listAnswerHead } from './list-answer';
import { isMcpToolName, mcpNameOf, needsCandidates, toolIdOfMcpName } from './tool-name';

export interface McpServerDeps {
  readonly exec: GraphQLExecutor;
  readonly decisions: DecisionMemo;
  readonly lists: McpToolListCache;
  readonly pageSize: number;
  readonly hostVersion: string;
}

/** What one MCP server instance serves: a view, and (for a session) the list ETag its client last saw. */
export interface ServedView {
  readonly view: string | null;
  /** Issue 16: a provider profile of the compact view (`/mcp?view=compact&profile=openai`); schemas and argument conventions. */
  readonly profile: string | null;
  /**
   * Progressive discovery (issue 18, `/mcp?discovery=search`): tools/list carries `find_tools` and the tools found so
   * far in this session (toolIds); null when the session lists every visible tool.
   */
  readonly found: Set<string> | null;
  /** A source name: the /mcp/sources/{source} endpoint, its tools only, under their upstream names. */
  readonly scope: string | null;
  /** Called with the ETag of every list served, so a session's change watch compares against what the client has. */
  listed(etag: string): void;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The request's own context: set by the face on every HTTP request (authInfo.extra), never shared between callers. */
function contextOf(extra: Extra): GraphQLContext {
  const ctx = extra.authInfo?.extra?.ctx as GraphQLContext | undefined;
  if (!ctx?.principal) throw new McpError(ErrorCode.InternalError, 'Internal error');
  return ctx;
}

/**
 * The MCP server of the face (issue 15): the SDK's low-level `Server` with the two tool methods, both translated onto
 * the GraphQL layer's fixed documents like the REST facade: tools/list is GET /tools (LIST_TOOLS, the one read path),
 * tools/call is POST /tools/{toolId}/calls (START_CALL, the invocation core: same decision, validation, replay
 * safety, limits and audit). Nothing here decides who may see or call what.
 */
export function buildMcpServer(deps: McpServerDeps, served: ServedView): Server {
  const server = new Server(
    { name: 'toolcat', title: 'toolcat tool catalog', version: deps.hostVersion },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: 'The tools this caller may invoke, as its host classified them. Tool names are toolcat toolIds; a name starting with "_" is an escaped toolId (see _meta "dev.toolcat/toolId").',
    },
  );

  const listFor = (ctx: GraphQLContext): Promise<McpToolList> => callerList(deps, served, ctx);

  server.setRequestHandler(ListToolsRequestSchema, async (req, extra) => {
    const page = await listPage(deps, served, contextOf(extra), req.params?.cursor);
    return page.result as unknown as { tools: [] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const ctx = contextOf(extra);
    const name = req.params.name;
    if (served.found && name === FIND_TOOLS.name) return findTools(deps, served, ctx, req.params.arguments, () => void server.sendToolListChanged().catch(() => undefined));
    // Unknown, not yours, made invisible mid-session: one answer, the same bytes for the same name (TC-CAT-4 on MCP).
    const unknown = (): McpError => new McpError(ErrorCode.InvalidParams, `Unknown tool: ${JSON.stringify(name.slice(0, 200))}`);
    if (!isMcpToolName(name)) throw unknown();
    // Names that decode by themselves need no read; hashed names and a source endpoint's upstream names are looked up
    // in the caller's own list (so they can only ever name a tool the caller sees).
    let toolId = served.scope === null && !needsCandidates(name) ? toolIdOfMcpName(name, () => []) : ((await listFor(ctx)).toolIdByName.get(name) ?? null);
    // Issue 16: on a profile's endpoint a model may call by the profile's functionName; the GraphQL layer resolves it
    // among the caller's own tools (startToolCall's profile), or answers null like an unknown tool.
    if (toolId === null && served.profile !== null) toolId = name;
    if (toolId === null) throw unknown();
    const meta = req.params._meta as Record<string, unknown> | undefined;
    const idem = meta?.[`${META_PREFIX}idempotencyKey`];
    const out = await deps.exec.execute(START_CALL, { toolId, arguments: req.params.arguments ?? null, idempotencyKey: typeof idem === 'string' ? idem : null, profile: served.profile }, ctx);
    if (out.errorCodes.length) return failure(out.errorCodes[0], out.errorMessages[0], out.errorDetails?.[0], unknown);
    const call = out.data?.call as { handle: CallHandle } | null | undefined;
    if (!call) throw unknown();
    return follow(call.handle, extra, unknown);
  });

  return server;
}

/** The caller's list in MCP shape, through GET /tools' read path (LIST_TOOLS); the session learns the ETag it saw. */
async function callerList(deps: McpServerDeps, served: ServedView, ctx: GraphQLContext): Promise<McpToolList> {
  // Its own memo name: the REST facade's list outcomes may hold a streamed body, which this face cannot read.
  const out = await deps.decisions.execute(deps.exec, 'mcp-list', LIST_TOOLS, { view: served.view, profile: served.profile }, ctx);
  if (out.errorCodes.length) throw protocolError(out.errorCodes[0], out.errorMessages[0]);
  const doc = out.data?.document as { body: { toString(): string; bytes?: Buffer }; etag: string };
  served.listed(doc.etag);
  return deps.lists.of(doc.etag, doc.body, served.scope);
}

/**
 * One tools/list page: the result object (for the SDK's handler) and the direct answer's bytes up to the id, built
 * once per (list, page) and reused by the face's direct answer (list-answer.ts), so a tools/list costs what GET /tools
 * costs plus writing its id.
 */
export async function listPage(deps: McpServerDeps, served: ServedView, ctx: GraphQLContext, cursor: unknown): Promise<ListPage> {
  if (cursor !== undefined && typeof cursor !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
  if (served.found) {
    // Discovery: find_tools, then what it found that the caller still sees (a revoked tool drops out), toolId order.
    const list = await callerList(deps, served, ctx);
    const tools = [FIND_TOOLS, ...list.tools.filter((_, i) => served.found!.has(list.toolIds[i]))];
    const result = { tools };
    return { result, head: listAnswerHead(JSON.stringify(result)) };
  }
  const after = cursor === undefined ? null : decodeCursor(cursor);
  if (cursor !== undefined && after === null) throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor');
  const list = await callerList(deps, served, ctx);
  return pageOf(list, after, deps.pageSize);
}

/** The discovery tool (issue 18): the caller's own visible tools for a task text, through GET /tools?q='s read path. */
const FIND_TOOLS = {
  name: 'find_tools',
  title: 'Find tools',
  description:
    'Search the tools you may use for the ones that fit a task. Describe the task in plain words; the matching tools are added to your tool list (you are notified of the change) and listed here with their names and descriptions.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'The task, in plain words.' },
      limit: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'How many tools to find.' },
    },
    required: ['query'],
    additionalProperties: false,
  },
  annotations: { title: 'Find tools', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} as const;

async function findTools(deps: McpServerDeps, served: ServedView, ctx: GraphQLContext, args: Record<string, unknown> | undefined, notify: () => void): Promise<CallToolResult> {
  const query = args?.query;
  const limit = args?.limit ?? 5;
  if (typeof query !== 'string' || query.trim() === '' || typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 20) {
    return { isError: true, content: [{ type: 'text', text: 'find_tools needs { "query": "<the task>", "limit": 1-20 }.' }] };
  }
  const out = await deps.exec.execute(SEARCH_TOOLS, { query, limit, view: served.view }, ctx);
  if (out.errorCodes.length) {
    if (out.errorCodes[0] === 'BAD_USER_INPUT' || out.errorCodes[0] === 'INVALID_ARGUMENT') return { isError: true, content: [{ type: 'text', text: `find_tools: ${out.errorMessages[0]}` }] };
    throw protocolError(out.errorCodes[0], out.errorMessages[0]);
  }
  const doc = out.data?.document as { body: { toString(): string } };
  const parsed = JSON.parse(doc.body.toString()) as Array<{ toolId: string; description: string }> | { tools: Array<{ toolId: string; description: string }> };
  const hits = Array.isArray(parsed) ? parsed : parsed.tools;
  const before = served.found!.size;
  for (const h of hits) served.found!.add(h.toolId);
  if (served.found!.size > MAX_FOUND) for (const id of [...served.found!].slice(0, served.found!.size - MAX_FOUND)) served.found!.delete(id);
  if (served.found!.size !== before) notify();
  const tools = hits.map((h) => ({ name: mcpNameOf(h.toolId), toolId: h.toolId, description: h.description }));
  return {
    content: [{ type: 'text', text: tools.length ? tools.map((t) => `${t.name}: ${t.description.slice(0, 300)}`).join('\n') : 'No tool you may use matches.' }],
    structuredContent: { tools },
    isError: false,
  };
}

/** Tools one discovery session keeps in its list (the oldest found drop out past it). */
const MAX_FOUND = 128;

/** Progress passes to the caller (when it asked with a progressToken); its cancellation passes to the upstream. */
async function follow(handle: CallHandle, extra: Extra, unknown: () => McpError): Promise<CallToolResult> {
  const cancel = (): void => handle.cancel();
  if (extra.signal.aborted) cancel();
  extra.signal.addEventListener('abort', cancel, { once: true });
  try {
    const token = extra._meta?.progressToken;
    if (token === undefined) {
      handle.discardProgress();
      try {
        return resultOf(await handle.done);
      } catch (err) {
        const e = err as { code?: string; message?: string; opts?: { details?: Record<string, unknown> } };
        return failure(e.code ?? 'INTERNAL_SERVER_ERROR', e.message ?? 'The call failed.', e.opts?.details, unknown);
      }
    }
    for await (const e of handle.events()) {
      if (e.type === 'progress') {
        await extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: e.progress, ...(e.total !== undefined ? { total: e.total } : {}), ...(e.message !== undefined ? { message: e.message } : {}) } })
          .catch(() => undefined);
      } else if (e.type === 'result') return resultOf(e.result);
      else if (e.type === 'error') return failure(e.code, e.message, e.details, unknown);
    }
    return failure('INTERNAL_SERVER_ERROR', 'The call ended without a result.', undefined, unknown);
  } finally {
    extra.signal.removeEventListener('abort', cancel);
  }
}

function resultOf(r: ToolCallResult): CallToolResult {
  return {
    content: r.content as CallToolResult['content'],
    ...(r.structuredContent !== undefined ? { structuredContent: r.structuredContent as Record<string, unknown> } : {}),
    isError: r.isError,
    _meta: { [`${META_PREFIX}callId`]: r.callId, [`${META_PREFIX}toolId`]: r.toolId },
  };
}

/**
 * Codes of the invocation core, as MCP expects them: what a model can act on (its arguments were invalid, the
 * upstream failed or is busy) is a tool execution error (`isError: true`, spec 2025-11-25 "Error Handling"), with
 * the toolcat code and any Retry-After in `_meta`; what is the caller's protocol mistake is a JSON-RPC error.
 */
function failure(code: string, message: string, details: Readonly<Record<string, unknown>> | undefined, unknown: () => McpError): CallToolResult {
  if (code === 'NOT_FOUND') throw unknown();
  if (TOOL_ERRORS.has(code)) {
    const problems = Array.isArray(details?.problems) ? (details.problems as Array<{ pointer?: string; message?: string }>) : [];
    const lines = problems.slice(0, 50).map((p) => `- ${p.pointer || '/'}: ${p.message ?? ''}`);
    return {
      isError: true,
      content: [{ type: 'text', text: [`${code}: ${message}`, ...lines].join('\n') }],
      _meta: { [`${META_PREFIX}error`]: { code, ...(details ? { details } : {}) } },
    };
  }
  throw protocolError(code, message);
}

const TOOL_ERRORS = new Set([
  'INVALID_ARGUMENTS', 'SOURCE_OVERLOADED', 'SOURCE_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'RESULT_TOO_LARGE', 'NOT_IMPLEMENTED', 'CONFLICT',
]);

function protocolError(code: string, message: string): McpError {
  if (code === 'BAD_USER_INPUT' || code === 'IDEMPOTENCY_KEY_REUSED' || code === 'GRAPHQL_VALIDATION_FAILED') return new McpError(ErrorCode.InvalidParams, message, { code });
  if (code === 'SERVICE_UNAVAILABLE') return new McpError(ErrorCode.InternalError, 'The catalog database is unavailable; retry shortly.', { code, retryAfterSeconds: 2 });
  return new McpError(ErrorCode.InternalError, 'Internal error');
}

