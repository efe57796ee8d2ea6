import { LRUCache } from 'lru-cache';
import { mcpNameOf } from './tool-name';

/** What tools/list hands out for one descriptor (MCP `Tool`, spec 2025-11-25). */
export interface McpTool {
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
function mcpToolOf(d: Descriptor): McpTool {
  return {
    name: mcpNameOf(d.toolId),
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

  of(etag: string, body: { toString(): string; bytes?: Buffer }): McpToolList {
    const size = body.bytes?.length ?? body.toString().length;
    const key = `${etag}\u0000${size * 2}`;
    const known = this.lists.get(key);
    if (known) return known;
    const parsed = JSON.parse(body.toString()) as Descriptor[] | { tools: Descriptor[] };
    const descriptors = Array.isArray(parsed) ? parsed : parsed.tools;
    const tools = descriptors.map(mcpToolOf);
    const list: McpToolList = {
      tools,
      toolIds: descriptors.map((d) => d.toolId),
      toolIdByName: new Map(tools.map((t, i) => [t.name, descriptors[i].toolId])),
    };
    this.lists.set(key, list);
    return list;
  }
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

/** One page: tools after `after` (toolId order), and the cursor of the next page when there is one. */
export function pageOf(list: McpToolList, after: string | null, size: number): { tools: readonly McpTool[]; nextCursor?: string } {
  let start = 0;
  if (after !== null) {
    let lo = 0;
    let hi = list.toolIds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list.toolIds[mid] <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const tools = list.tools.slice(start, start + size);
  const end = start + tools.length;
  return end < list.tools.length ? { tools, nextCursor: encodeCursor(list.toolIds[end - 1]) } : { tools };
}
