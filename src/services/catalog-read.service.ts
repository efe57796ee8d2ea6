import type { CachedBody } from '../cache/cached-body';
import type { CatalogCache } from '../cache/catalog-cache';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { Principal } from '../catalog/principal';
import { type View, resolveView } from '../catalog/projection';
import { sortByToolId } from '../catalog/stable-compare';
import { isValidToolId } from '../catalog/tool-id';
import type { ToolRecord } from '../catalog/tool-record';
import type { ToolRepository } from '../persistence/tool.repository';

/** An exact response body, built by the GraphQL layer's services and sent unchanged by the REST facade. */
export interface CatalogDocument {
  readonly appliedView: View;
  readonly body: CachedBody;
  readonly etag: string;
}

/** Bound on a requested toolId: past it the request is malformed (400), not merely unknown (404). */
export const MAX_REQUESTED_TOOL_ID_LENGTH = 1024;

/**
 * What a principal sees. Authorization is the repository's scoped query; this service only chooses the
 * view, sorts (TC-CAT-7) and serialises. The same methods serve agents and the admin preview, so a
 * preview cannot differ from what the agent gets. Documents (the REST bodies) come from the cache, which
 * is itself filled from the same scoped query.
 */
export class CatalogReadService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly cache: CatalogCache,
    private readonly opts: { readonly compactView: boolean },
  ) {}

  async list(p: Principal, view: unknown): Promise<{ appliedView: View; records: ToolRecord[] }> {
    const appliedView = resolveView(view, this.opts.compactView);
    return { appliedView, records: sortByToolId(await this.tools.findVisible(p)) };
  }

  async get(p: Principal, toolId: unknown, view: unknown): Promise<{ appliedView: View; record: ToolRecord } | null> {
    if (!checkToolId(toolId)) return null;
    const record = await this.tools.findVisibleById(p, toolId);
    return record ? { appliedView: resolveView(view, this.opts.compactView), record } : null;
  }

  async listDocument(p: Principal, view: unknown): Promise<CatalogDocument> {
    const appliedView = resolveView(view, this.opts.compactView);
    return { appliedView, ...(await this.cache.list(p, appliedView)) };
  }

  async toolDocument(p: Principal, toolId: unknown, view: unknown): Promise<CatalogDocument | null> {
    if (!checkToolId(toolId)) return null;
    const appliedView = resolveView(view, this.opts.compactView);
    const doc = await this.cache.get(p, toolId, appliedView);
    return doc ? { appliedView, ...doc } : null;
  }
}

/** Over-long is malformed (BAD_USER_INPUT); syntactically impossible is simply unknown (false: no query runs). */
function checkToolId(toolId: unknown): toolId is string {
  if (typeof toolId !== 'string' || toolId.length > MAX_REQUESTED_TOOL_ID_LENGTH) {
    throw new CatalogError(CatalogErrorCode.InvalidArgument, `toolId must be a string of at most ${MAX_REQUESTED_TOOL_ID_LENGTH} characters`);
  }
  return isValidToolId(toolId);
}
