import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpSettings } from '../config/mcp-settings';
import type { GraphQLContext } from '../graphql/context';
import type { CatalogWatch } from '../rest/catalog-watch';
import type { GraphQLExecutor } from '../rest/graphql-executor';
import type { DecisionMemo } from '../rest/decision-memo';
import { type RateLimiter, admitOrRefuse } from '../rest/rate-limit';
import type { Logger } from '../shared/logger';
import { checkOrigin } from '../shared/origin-guard';
import { splitTarget } from '../shared/request-target';
import { MAX_BODY_NESTING, readJsonBody } from '../shared/json-body';
import { type ServedView, buildMcpServer, listPage } from './mcp-server';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { type DirectListRequest, isDirectList, sendListAnswer } from './list-answer';
import { McpToolListCache } from './tool-list';
import { type ProtectedResource, protectedResourceMetadata, resourceMetadataUrl } from './protected-resource';

const MCP_PATH = '/mcp';
/** Messages in one JSON-RPC batch (2025-03-26 only; later versions have none). */
const MAX_BATCH = 32;
/** One source's tools under their own names (source names: src/sources/mcp-tool-id.ts SOURCE_NAME_PATTERN). */
const SOURCE_PATH = /^\/mcp\/sources\/([a-z0-9][a-z0-9-]{0,31})$/;

export interface McpFaceDeps {
  readonly exec: GraphQLExecutor;
  /** The list decision once per catalog generation and decision key (issue 21), shared with the REST facade. */
  readonly decisions: DecisionMemo;
  readonly contextFor: (req: IncomingMessage) => Promise<GraphQLContext>;
  readonly limiter: RateLimiter;
  readonly keyOf: (ctx: GraphQLContext) => string;
  readonly watch: CatalogWatch;
  readonly settings: McpSettings;
  readonly resource: ProtectedResource;
  readonly hostVersion: string;
  readonly databaseUp: () => boolean;
  readonly log: Logger;
  readonly onError: (err: unknown, req: IncomingMessage, res: ServerResponse) => void;
}

export interface McpFace {
  /** Answers /mcp and the RFC 9728 metadata; false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly sessionCount: number;
  close(): Promise<void>;
}

interface Session {
  readonly id: string;
  /** The decision key of the principal that opened it: only that principal may use it. */
  readonly owner: string;
  readonly tenant: string;
  /** The endpoint it was opened on (/mcp or /mcp/sources/{source}): only usable there. */
  readonly path: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: Server;
  readonly served: ServedView;
  lastUsed: number;
  stopWatching: () => void;
}

/**
 * The MCP face (issue 15): a Streamable HTTP MCP server at /mcp, on the official SDK's server side.
 *
 * - Same caller, same decision: the bearer (API key or JWT) is authenticated exactly as for REST, per HTTP request,
 *   and the tool methods run the REST facade's GraphQL documents (mcp-server.ts).
 * - Stateful and stateless: an `initialize` without Mcp-Session-Id opens a session (it hears list_changed); any other
 *   request without one is served statelessly by a throwaway server. A session belongs to the principal that opened
 *   it: used with another credential it answers as an unknown session does (404), so ids cannot be borrowed.
 * - View per endpoint: `/mcp?view=compact` serves compact input schemas (fixed for a session at initialize).
 * - `/mcp/sources/{source}`: the same, narrowed to one MCP source's tools under the names its server gave them, so a
 *   client written against that server works through toolcat unchanged (and the conformance suite's tool scenarios
 *   test what toolcat passes through).
 * - Containment: bounded sessions per principal (its least recently used one is closed) and per replica, idle
 *   sessions closed, bounded request bodies, the REST rate limit per HTTP request.
 * - DNS rebinding: Host and Origin are checked first (shared/origin-guard.ts); 401s carry RFC 9728 `resource_metadata`.
 */
export function createMcpFace(deps: McpFaceDeps): McpFace {
  const s = deps.settings;
  const sessions = new Map<string, Session>();
  const lists = new McpToolListCache(64 * 1024 * 1024);
  const serverDeps = { exec: deps.exec, decisions: deps.decisions, lists, pageSize: s.pageSize, hostVersion: deps.hostVersion };
  const sweep = setInterval(() => {
    const cutoff = Date.now() - s.sessionIdleMs;
    for (const x of sessions.values()) if (x.lastUsed < cutoff) void closeSession(x);
  }, Math.min(60_000, Math.max(1000, s.sessionIdleMs / 2)));
  sweep.unref();

  const closeSession = async (x: Session): Promise<void> => {
    if (!sessions.delete(x.id)) return;
    x.stopWatching();
    await x.server.close().catch(() => undefined);
  };

  /**
   * A new session, counted before anything is awaited (so concurrent initializes cannot pass a bound together):
   * past the principal's bound its least recently used session is closed; past the tenant's or the replica's, the
   * answer says which (red-team finding 3).
   */
  const openSession = async (ctx: GraphQLContext, key: string, view: string | null, profile: string | null, path: string, scope: string | null, discovery: boolean): Promise<Session | 'tenant-full' | 'full'> => {
    const tenant = ctx.principal!.tenantId;
    const all = [...sessions.values()];
    const mine = all.filter((x) => x.owner === key).sort((a, b) => a.lastUsed - b.lastUsed);
    for (const x of mine.slice(0, Math.max(0, mine.length - s.maxSessionsPerPrincipal + 1))) void closeSession(x);
    if (all.filter((x) => x.tenant === tenant && sessions.has(x.id)).length >= s.maxSessionsPerTenant) return 'tenant-full';
    if (sessions.size >= s.maxSessions) return 'full';
    const id = randomUUID();
    const watcher = {
      ctx, view, profile, etag: null as string | null,
      changed: () => void session.server.sendToolListChanged().catch(() => undefined),
      gone: () => void closeSession(session),
    };
    const served: ServedView = { view, profile, scope, found: discovery ? new Set() : null, listed: (etag) => (watcher.etag = etag) };
    const server = buildMcpServer(serverDeps, served);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => void closeSession(session),
      maxRequestBodySize: s.maxRequestBytes,
    });
    const session: Session = { id, owner: key, tenant, path, transport, server, served, lastUsed: Date.now(), stopWatching: () => undefined };
    sessions.set(id, session);
    try {
      watcher.etag = await deps.watch.currentEtag(ctx, view, profile);
      await server.connect(transport);
    } catch (err) {
      await closeSession(session);
      throw err;
    }
    if (sessions.has(id)) session.stopWatching = deps.watch.add(watcher);
    return session;
  };

  const serveStateless = async (req: IncomingMessage, res: ServerResponse, body: unknown, view: string | null, profile: string | null, scope: string | null): Promise<void> => {
    const server = buildMcpServer(serverDeps, { view, profile, scope, found: null, listed: () => undefined });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: s.maxRequestBytes });
    res.once('close', () => void server.close().catch(() => undefined));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  /**
   * A JSON-RPC batch (protocol 2025-03-26) costs one request-budget token per message, as REST pays per request
   * (red-team finding 2: a 100-message batch ran 100 calls for one token).
   */
  const chargeBatch = async (res: ServerResponse, key: string, body: unknown): Promise<boolean> => {
    if (!Array.isArray(body)) return true;
    if (body.length > MAX_BATCH) {
      jsonRpcError(res, 400, -32600, `A batch may hold at most ${MAX_BATCH} messages.`);
      return false;
    }
    const refuse = (retryAfterSeconds: number): false => {
      res.setHeader('Retry-After', String(retryAfterSeconds));
      jsonRpcError(res, 429, -32000, 'Too many requests: a batch costs one request per message.');
      return false;
    };
    if (body.length < 2) return true;
    // A shared budget (Redis) is charged for the rest of the batch at once; this process's own one token by token.
    if (deps.limiter.takeMany) {
      const r = await deps.limiter.takeMany(key, body.length - 1);
      return r.allowed ? true : refuse(r.retryAfterSeconds);
    }
    for (let i = 1; i < body.length; i++) {
      const r = deps.limiter.take(key);
      if (!r.allowed) return refuse(r.retryAfterSeconds);
    }
    return true;
  };

  /**
   * tools/list answered directly, as one JSON response (list-answer.ts): the same page as the SDK handler gives
   * (listPage), its envelope built once per list and page, without the SDK transport's per-request stream plumbing,
   * which measured 5x the CPU of GET /tools for the same 13 tools (`npm run bench -- --only=j`). Only well-formed
   * single requests with a supported MCP-Protocol-Version come here; anything else goes through the SDK and gets its
   * answers.
   */
  const answerList = async (res: ServerResponse, served: ServedView, ctx: GraphQLContext, body: DirectListRequest): Promise<void> => {
    try {
      const page = await listPage(serverDeps, served, ctx, body.params?.cursor);
      sendListAnswer(res, page.head, body.id);
    } catch (err) {
      if (!(err instanceof McpError)) throw err;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) } }));
    }
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, path: string, scope: string | null, query: string | null): Promise<void> => {
    const ctx = await deps.contextFor(req);
    if (!ctx.principal) {
      res.setHeader('WWW-Authenticate', `${challenge(ctx.credentialRejected)}, resource_metadata="${resourceMetadataUrl(deps.resource, req.headers.host)}"`);
      return jsonRpcError(res, 401, -32001, 'Authentication required.');
    }
    const key = deps.keyOf(ctx);
    if (!admitOrRefuse(deps.limiter, key, res)) return;
    // Decided by its own allow-list; several Host headers (which a proxy may read differently) are refused.
    if (hostHeaders(req.rawHeaders) > 1) return jsonRpcError(res, 400, -32600, 'One Host header, please.');
    // What the SDK's handlers read the caller from (mcp-server.ts contextOf); the direct list answer does not need it.
    (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: '', clientId: key, scopes: [], extra: { ctx } };
    // The spec's rule, decided here once: `compact` asks for the compact view, anything else is the standard view.
    const params = query === null ? {} : parseQuery(query);
    const view = params.view === 'compact' ? 'compact' : null;
    const profile = view !== null && typeof params.profile === 'string' ? params.profile : null;
    // Issue 18: progressive discovery is a session's choice at initialize (it needs the session to remember).
    const discovery = params.discovery === 'search' && scope === null;
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = sessions.get(sessionId);
      // Unknown, closed, or another principal's: the same 404 (the SDK's own answer to an unknown session).
      if (!session || session.owner !== key || session.path !== path) return jsonRpcError(res, 404, -32001, 'Session not found');
      session.lastUsed = Date.now();
      const body = req.method === 'POST' ? await readJson(req, res, s.maxRequestBytes, s.bodyDeadlineMs, ctx.principal!.tenantId) : undefined;
      // Only a batch is charged beyond the request's own token (a single message needs no await for it: issue 21).
      if (body === BAD || (Array.isArray(body) && !(await chargeBatch(res, key, body)))) return;
      if (isDirectList(req, body)) return answerList(res, session.served, ctx, body);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      return jsonRpcError(res, 405, -32000, 'Method not allowed: open a session (initialize) for a GET stream or DELETE.');
    }
    const body = await readJson(req, res, s.maxRequestBytes, s.bodyDeadlineMs, ctx.principal!.tenantId);
    if (body === BAD || (Array.isArray(body) && !(await chargeBatch(res, key, body)))) return;
    if (isDirectList(req, body)) return answerList(res, { view, profile, scope, found: null, listed: () => undefined }, ctx, body);
    if (!isInitialize(body)) return serveStateless(req, res, body, view, profile, scope);
    const session = await openSession(ctx, key, view, profile, path, scope, discovery);
    if (session === 'tenant-full') {
      res.setHeader('Retry-After', '30');
      return jsonRpcError(res, 429, -32000, `This tenant has ${s.maxSessionsPerTenant} MCP sessions open, its bound; close some or use stateless requests.`);
    }
    if (session === 'full') {
      res.setHeader('Retry-After', '30');
      return jsonRpcError(res, 503, -32000, 'Too many MCP sessions on this replica; retry later or use stateless requests.');
    }
    await session.transport.handleRequest(req, res, body);
    // An initialize the SDK refused (bad version, malformed) opened nothing.
    if (!session.transport.sessionId) await closeSession(session);
  };

  return {
    handle(req, res) {
      const { path, query } = splitTarget(req.url);
      if (path === '/.well-known/oauth-protected-resource' || path === `/.well-known/oauth-protected-resource${MCP_PATH}`) {
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'application/json' }).end('{"error":{"code":"METHOD_NOT_ALLOWED","message":"Use GET."}}');
          return true;
        }
        // The document names the Host it was asked on (when no public URL is set): only allowed Hosts, and caches told so.
        if (checkOrigin({ allowedHosts: s.allowedHosts, allowedOrigins: ['*'] }, req.headers) === 'host') {
          jsonRpcError(res, 403, -32000, 'Forbidden: this Host is not served here.');
          return true;
        }
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300', Vary: 'Host' }).end(JSON.stringify(protectedResourceMetadata(deps.resource, req.headers.host)));
        return true;
      }
      const scope = SOURCE_PATH.exec(path);
      if (path !== MCP_PATH && !scope) return false;
      const refused = checkOrigin(s, req.headers);
      if (refused) {
        jsonRpcError(res, 403, -32000, refused === 'host' ? 'Forbidden: this Host is not served here.' : 'Forbidden: this Origin is not allowed.');
        return true;
      }
      if (!deps.databaseUp()) {
        res.setHeader('Retry-After', '2');
        jsonRpcError(res, 503, -32000, 'The catalog database is unavailable; retry shortly.');
        return true;
      }
      serve(req, res, path, scope ? scope[1] : null, query).catch((err: unknown) => deps.onError(err, req, res));
      return true;
    },
    get sessionCount() {
      return sessions.size;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map(closeSession));
    },
  };
}

function challenge(rejected: boolean): string {
  return rejected ? 'Bearer realm="toolcat", error="invalid_token"' : 'Bearer realm="toolcat"';
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** Host headers among the raw ones (counted without building a filtered copy on every request: issue 21). */
function hostHeaders(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') n++;
  return n;
}

function isInitialize(body: unknown): boolean {
  const one = (m: unknown): boolean => m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(body) ? body.some(one) : one(body);
}

const BAD = Symbol('bad request');

/** The JSON body, bounded in bytes, time and nesting (shared/json-body.ts); answers the refusal itself and gives BAD. */
async function readJson(req: IncomingMessage, res: ServerResponse, max: number, deadlineMs: number, party: string): Promise<unknown> {
  const r = await readJsonBody(req, { maxBytes: max, deadlineMs, maxDepth: MAX_BODY_NESTING, party });
  if (r.ok && !r.empty) return r.value;
  const why = r.ok ? 'not-json' : r.why;
  if (why === 'too-large' || why === 'too-slow') res.setHeader('Connection', 'close');
  if (why === 'too-large') jsonRpcError(res, 413, -32600, `The request body is larger than ${max} bytes.`);
  else if (why === 'too-slow') jsonRpcError(res, 408, -32600, `The request body did not arrive within ${deadlineMs} ms.`);
  else if (why === 'too-deep') jsonRpcError(res, 400, -32600, `The request body is nested more than ${MAX_BODY_NESTING} levels deep.`);
  else jsonRpcError(res, 400, -32700, 'Parse error');
  return BAD;
}
