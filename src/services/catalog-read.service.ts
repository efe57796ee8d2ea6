import type { CachedBody, StreamedBody } from '../cache/cached-body';
import type { CatalogCache } from '../cache/catalog-cache';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { CompactToolDescriptor, ToolDescriptor } from '../catalog/descriptor';
import type { Principal } from '../catalog/principal';
import { type View, resolveProfile, resolveView, serializeView, servedView } from '../catalog/projection';
import type { ToolRecord } from '../catalog/tool-record';
import type { ProfileName } from '../catalog/compact';
import { isValidToolId } from '../catalog/tool-id';

/** An exact response body, built by the GraphQL layer's services and sent unchanged by the REST facade. */
export interface CatalogDocument {
  readonly appliedView: View;
  /** issue 16: the provider profile applied to the compact view, null for the neutral view (and the standard view) */
  readonly appliedProfile: ProfileName | null;
  readonly body: CachedBody;
  readonly etag: string;
}

/** A list document, which the REST facade may take streamed (issue 21). */
export type ListDocument = Omit<CatalogDocument, 'body'> & { readonly body: CachedBody | StreamedBody };

export type AnyDescriptor = ToolDescriptor | CompactToolDescriptor;

/** Bound on a requested toolId: past it the request is malformed (400), not merely unknown (404). */
const MAX_REQUESTED_TOOL_ID_LENGTH = 1024;

/**
 * What a principal sees. Authorization is the repository's scoped query; this service only chooses the view.
 * There is one read path (issue 11 defect 5): every read, REST documents, GraphQL `tools`/`tool` and the admin
 * preview, comes from the cache's documents, which are built from the same scoped query. The GraphQL reads parse
 * the very bytes REST sends, so a preview or a GraphQL client can never see something else than the agent's GET.
 */
export class CatalogReadService {
  constructor(
    private readonly cache: CatalogCache,
    private readonly opts: { readonly compactView: boolean },
  ) {}

  listDocument(p: Principal, view: unknown, profile?: unknown): Promise<CatalogDocument>;
  listDocument(p: Principal, view: unknown, profile: unknown, opts: { readonly stream: boolean }): Promise<ListDocument>;
  async listDocument(p: Principal, view: unknown, profile?: unknown, opts?: { readonly stream: boolean }): Promise<ListDocument> {
    const appliedView = resolveView(view, this.opts.compactView);
    const appliedProfile = resolveProfile(appliedView, profile);
    return { appliedView, appliedProfile, ...(await this.cache.list(p, servedView(appliedView, appliedProfile), { stream: opts?.stream === true })) };
  }

  async toolDocument(p: Principal, toolId: unknown, view: unknown, profile?: unknown): Promise<CatalogDocument | null> {
    if (!checkToolId(toolId)) return null;
    const appliedView = resolveView(view, this.opts.compactView);
    const appliedProfile = resolveProfile(appliedView, profile);
    const doc = await this.cache.get(p, toolId, servedView(appliedView, appliedProfile));
    return doc ? { appliedView, appliedProfile, ...doc } : null;
  }

  /** The list as descriptors: the parsed bytes of listDocument (sorted by toolId, TC-CAT-7). */
  async list(p: Principal, view: unknown, profile?: unknown): Promise<{ appliedView: View; appliedProfile: ProfileName | null; descriptors: AnyDescriptor[] }> {
    const doc = await this.listDocument(p, view, profile);
    const parsed = JSON.parse(doc.body.toString()) as AnyDescriptor[] | { tools: AnyDescriptor[] };
    return { appliedView: doc.appliedView, appliedProfile: doc.appliedProfile, descriptors: Array.isArray(parsed) ? parsed : parsed.tools };
  }

  /**
   * Records already known to be visible (sorted by toolId), as descriptors in the requested view: the same bytes the
   * cache serves for them (serializeView), parsed. For reads that cannot go through the cache (the grants preview).
   */
  project(records: readonly ToolRecord[], view: unknown, profile?: unknown): { appliedView: View; appliedProfile: ProfileName | null; descriptors: AnyDescriptor[] } {
    const appliedView = resolveView(view, this.opts.compactView);
    const appliedProfile = resolveProfile(appliedView, profile);
    const served = servedView(appliedView, appliedProfile);
    return { appliedView, appliedProfile, descriptors: records.map((r) => JSON.parse(serializeView(r, served)) as AnyDescriptor) };
  }

  /** One descriptor (the parsed bytes of toolDocument), or null when unknown or not visible (TC-CAT-4). */
  async get(p: Principal, toolId: unknown, view: unknown, profile?: unknown): Promise<{ appliedView: View; descriptor: AnyDescriptor } | null> {
    const doc = await this.toolDocument(p, toolId, view, profile);
    return doc ? { appliedView: doc.appliedView, descriptor: JSON.parse(doc.body.toString()) as AnyDescriptor } : null;
  }
}

/** Over-long is malformed (BAD_USER_INPUT); syntactically impossible is simply unknown (false: no query runs). */
function checkToolId(toolId: unknown): toolId is string {
  if (typeof toolId !== 'string' || toolId.length > MAX_REQUESTED_TOOL_ID_LENGTH) {
    throw new CatalogError(CatalogErrorCode.InvalidArgument, `toolId must be a string of at most ${MAX_REQUESTED_TOOL_ID_LENGTH} characters`);
  }
  return isValidToolId(toolId);
}
