import { createHash } from 'node:crypto';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { Principal } from '../catalog/principal';
import { type View, resolveView, serializeStandard } from '../catalog/projection';
import { sortByToolId } from '../catalog/stable-compare';
import { isValidToolId } from '../catalog/tool-id';
import type { ToolRecord } from '../catalog/tool-record';
import type { ToolRepository } from '../persistence/tool.repository';

/** An exact response body, built by the GraphQL layer's services and sent unchanged by the REST facade. */
export interface CatalogDocument {
  readonly appliedView: View;
  readonly body: string;
  readonly etag: string;
}

/** Bound on a requested toolId: past it the request is malformed (400), not merely unknown (404). */
export const MAX_REQUESTED_TOOL_ID_LENGTH = 1024;

/**
 * What a principal sees. Authorization is the repository's scoped query; this service only chooses the
 * view, sorts (TC-CAT-7) and serialises. The same methods serve agents and the admin preview, so a
 * preview cannot differ from what the agent gets.
 */
export class CatalogReadService {
  constructor(
    private readonly tools: ToolRepository,
    private readonly opts: { readonly compactView: boolean },
  ) {}

  async list(p: Principal, view: unknown): Promise<{ appliedView: View; records: ToolRecord[] }> {
    const appliedView = resolveView(view, this.opts.compactView);
    return { appliedView, records: sortByToolId(await this.tools.findVisible(p)) };
  }

  async get(p: Principal, toolId: unknown, view: unknown): Promise<{ appliedView: View; record: ToolRecord } | null> {
    if (typeof toolId !== 'string' || toolId.length > MAX_REQUESTED_TOOL_ID_LENGTH) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, `toolId must be a string of at most ${MAX_REQUESTED_TOOL_ID_LENGTH} characters`);
    }
    // A syntactically impossible id is simply unknown: same null as "not yours", and no query is run.
    if (!isValidToolId(toolId)) return null;
    const record = await this.tools.findVisibleById(p, toolId);
    return record ? { appliedView: resolveView(view, this.opts.compactView), record } : null;
  }

  async listDocument(p: Principal, view: unknown): Promise<CatalogDocument> {
    const { appliedView, records } = await this.list(p, view);
    const parts = records.map((r) => serializeDescriptor(r, appliedView));
    const body = appliedView === 'compact' ? `{"tools":[${parts.join(',')}]}` : `[${parts.join(',')}]`;
    return { appliedView, body, etag: etagOf(body) };
  }

  async toolDocument(p: Principal, toolId: unknown, view: unknown): Promise<CatalogDocument | null> {
    const found = await this.get(p, toolId, view);
    if (!found) return null;
    const body = serializeDescriptor(found.record, found.appliedView);
    return { appliedView: found.appliedView, body, etag: etagOf(body) };
  }
}

export function serializeDescriptor(r: ToolRecord, view: View): string {
  return view === 'standard' ? serializeStandard(r) : serializeStandard(r);
}

/** Strong ETag over the exact bytes (RFC 9110 8.8.3). */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body, 'utf8').digest('base64url').slice(0, 32)}"`;
}
