import { LRUCache } from 'lru-cache';
import { listAnswerHead } from './list-answer';
import { escapedNameOf, isMcpToolName, mcpNameOf } from './tool-name';

/** What tools/list hands out for one descriptor (MCP `Tool`, spec 2025-11-25). */
interface McpTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations: Record<string, unknown>;
  readonly icons?: unknown[];
  readonly _meta: Record<string, unknown>;
}

/** The caller's list in MCP shape, in toolId order (TC-CAT-7), with the reverse of the name mapping. */
export interface McpToolList {
  readonly tools: readonly McpTool[];
  readonly toolIds: readonly string[];
  readonly toolIdByName: ReadonlyMap<string, string>;
  /** Pages already served, by (after, size): their result object and the JSON-RPC answer's bytes up to the id. */
  readonly pages: Map<string, ListPage>;
}

interface Descriptor {
  readonly toolId: string;
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly source: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations: Record<string, unknown>;
  readonly icons?: unknown[];
  readonly safetyTier: string;
  readonly replayPolicy: string;
  readonly egress: string;
}

/** Where the catalog's own fields go in a Tool's `_meta` (reverse-DNS keys, as MCP asks of `_meta`). */
export const META_PREFIX = 'dev.toolcat/';

/**
 * A descriptor as an MCP Tool. `annotations` are the host-derived hints of the descriptor (TC-ANN-*), never the
 * upstream's own: the descriptor carries nothing else. The host's classification and the toolId travel in `_meta`.
 */
function mcpToolOf(d: Descriptor, scoped: boolean): McpTool {
  return {
    name: scoped ? scopedNameOf(d) : mcpNameOf(d.toolId),
    ...(d.title !== undefined ? { title: d.title } : {}),
    description: d.description,
    inputSchema: d.inputSchema,
    ...(d.outputSchema !== undefined ? { outputSchema: d.outputSchema } : {}),
    annotations: { ...(d.title !== undefined ? { title: d.title } : {}), ...d.annotations },
    ...(Array.isArray(d.icons) ? { icons: d.icons } : {}),
    _meta: {
      [`${META_PREFIX}toolId`]: d.toolId,
      [`${META_PREFIX}source`]: d.source,
      [`${META_PREFIX}classification`]: { safetyTier: d.safetyTier, replayPolicy: d.replayPolicy, egress: d.egress },
    },
  };
}

/**
 * The mapped list per list ETag: the ETag names exactly these bytes, so every session of every caller whose list is
 * the same document shares one mapping, and nothing is mapped twice. Bounded in bytes like the response cache.
 */
export class McpToolListCache {
  private readonly lists: LRUCache<string, McpToolList>;

  constructor(maxBytes: number) {
    this.lists = new LRUCache<string, McpToolList>({ maxSize: Math.max(1, maxBytes), sizeCalculation: (_v, k) => Number(k.split('\u0000')[1]) || 1 });
  }

  /** `scope`: a source name (the /mcp/sources/{source} endpoint): only its tools, under their upstream names. */
  of(etag: string, body: { toString(): string; bytes?: Buffer }, scope: string | null): McpToolList {
    const size = body.bytes?.length ?? body.toString().length;
    const key = `${etag}\u0000${size * 3}\u0000${scope ?? ''}`;
    const known = this.lists.get(key);
    if (known) return known;
    const parsed = JSON.parse(body.toString()) as Descriptor[] | { tools: Descriptor[] };
    const all = Array.isArray(parsed) ? parsed : parsed.tools;
    const prefix = `mcp.${scope}.`;
    const descriptors = scope === null ? all : all.filter((d) => d.source === 'mcp' && d.toolId.startsWith(prefix));
    const tools = descriptors.map((d) => mcpToolOf(d, scope !== null));
    const list: McpToolList = {
      tools,
      toolIds: descriptors.map((d) => d.toolId),
      toolIdByName: new Map(tools.map((t, i) => [t.name, descriptors[i].toolId])),
      pages: new Map(),
    };
    this.lists.set(key, list);
    return list;
  }
}

/**
 * On a source's own endpoint a tool keeps the name its server gave it (so a client written against that server works
 * through toolcat unchanged), unless that name is not a valid MCP name or starts with `_`: then the toolId's mapped
 * escaped name, which always starts with `_` (tool-name.ts escapedNameOf, even for a toolId that needed no escaping),
 * so the two kinds never collide and names stay unique per source (red-team finding 6: the plain mapped name of
 * `_x` is the toolId `mcp.s._x`, which another tool of the same source may carry as its own name).
 */
function scopedNameOf(d: Descriptor): string {
  return isMcpToolName(d.name) && !d.name.startsWith('_') ? d.name : escapedNameOf(d.toolId);
}

/** Opaque cursors: "the page after this toolId", so a list that changes between pages neither repeats nor skips. */
function encodeCursor(afterToolId: string): string {
  return Buffer.from(JSON.stringify({ after: afterToolId }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  if (cursor.length > 1024) return null;
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    return typeof v.after === 'string' ? v.after : null;
  } catch {
    return null;
  }
}

/**
 * One tools/list page: the result object (for the SDK's handler) and the face's direct answer up to the id
 * (list-answer.ts), serialised and encoded once per (list, page). The head takes the place the page's JSON string held
 * (issue 21), so the list cache's byte accounting is unchanged.
 */
export interface ListPage {
  readonly result: unknown;
  readonly head: Buffer;
}

/** One page: tools after `after` (toolId order), and the cursor of the next page when there is one; memoised per list. */
export function pageOf(list: McpToolList, after: string | null, size: number): ListPage {
  const start = startOf(list, after);
  // Only the pages this server's own cursors lead to are kept (the first, and those after the last id of a full page):
  // together they hold the list once, which the cache's size accounts for. A forged cursor (any string sorting
  // anywhere) gets its page computed and not kept, so cursors cannot grow memory (red-team finding 1).
  const canonical = start % size === 0 && (start === 0 ? after === null : list.toolIds[start - 1] === after);
  const key = `${start}\u0000${size}`;
  const known = canonical ? list.pages.get(key) : undefined;
  if (known) return known;
  const result = slice(list, start, size);
  const page = { result, head: listAnswerHead(JSON.stringify(result)) };
  if (canonical) list.pages.set(key, page);
  return page;
}

function startOf(list: McpToolList, after: string | null): number {
  if (after === null) return 0;
  let lo = 0;
  let hi = list.toolIds.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list.toolIds[mid] <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function slice(list: McpToolList, start: number, size: number): { tools: readonly McpTool[]; nextCursor?: string } {
  const tools = list.tools.slice(start, start + size);
  const end = start + tools.length;
  return end < list.tools.length ? { tools, nextCursor: encodeCursor(list.toolIds[end - 1]) } : { tools };
}
