import type { DataSource, EntityManager } from 'typeorm';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { assertClassificationAllowed } from '../catalog/classification';
import type { Classification } from '../catalog/descriptor';
import type { HostExtensionInput } from '../catalog/host-extension';
import { prepareTool, type PreparedTool } from '../catalog/ingest';
import type { Principal } from '../catalog/principal';
import { EXTENSION_NAME_PATTERN, hostExtensionToolId } from '../catalog/tool-id';
import type { ToolRecord } from '../catalog/tool-record';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { ClassificationEntity } from '../persistence/classification.entity';
import { ToolEntity } from '../persistence/tool.entity';
import { UpstreamToolEntity } from '../persistence/upstream-tool.entity';
import { lockSourceProjection, projectSource, sourceOfToolId } from '../sources/source-projection';
import { toEntity, toRecord } from '../persistence/tool-record.mapper';
import type { Logger } from '../shared/logger';
import { nowIso } from '../shared/clock';
import { notFound, requireRole } from '../catalog/admin-scope';
import { writeAudit } from '../audit/audit';
import { TenantEntity } from '../persistence/tenant.entity';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import { type Owner, ownerOfDecision, ownerOfOrigin } from './ownership';
import { writeTransaction } from '../persistence/write-transaction';
import { implementationProblems, removeImplementation, writeImplementation } from '../persistence/extension-implementation.store';

/** Stored ids are randomUUID()s: anything else names no tenant, and needs no query to say so (issue 12 defect 5). */
const STORED_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;



/**
 * Writes to the catalog: host extensions, classifications, and the ingest path sources use. Each write is
 * one transaction that also bumps the catalog version. Every tool passes through `prepareTool` (the ingest
 * gate) so bounds, credential removal and classification rules hold whatever the origin.
 */
export class ToolAdminService {
  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
  ) {}

  async listTools(actor: Principal | null): Promise<ToolRecord[]> {
    requireRole(actor, 'host-admin');
    return (await this.ds.getRepository(ToolEntity).find()).map(toRecord);
  }

  /**
   * Issue 19: who owns each tool and its classification. A host extension is owned by its origin, an MCP tool by
   * its source's owner; a classification by who decided it (null: none).
   */
  async ownership(actor: Principal | null): Promise<(r: ToolRecord) => { owner: Owner; classificationOwner: Owner | null }> {
    requireRole(actor, 'host-admin');
    const decisions = new Map((await this.ds.getRepository(ClassificationEntity).find()).map((d) => [d.toolId, ownerOfDecision(d.decidedBy)]));
    const sources = new Map((await this.ds.getRepository(McpSourceEntity).find()).map((s) => [s.name, ownerOfOrigin(s.origin)]));
    return (r) => ({
      owner: r.source === 'host-extension' ? ownerOfOrigin(r.origin) : (sources.get(r.origin) ?? 'api'),
      classificationOwner: decisions.get(r.toolId) ?? null,
    });
  }

  async getTool(actor: Principal | null, toolId: string): Promise<ToolRecord | null> {
    requireRole(actor, 'host-admin');
    const row = await this.ds.getRepository(ToolEntity).findOne({ where: { toolId } });
    return row ? toRecord(row) : null;
  }

  async upsertHostExtension(actor: Principal | null, input: HostExtensionInput): Promise<ToolRecord> {
    const p = requireRole(actor, 'host-admin');
    const prepared = this.prepareExtension(input, 'graphql');
    const tenantId = prepared.record.tenantId;
    // An unknown tenant is NOT_FOUND like everywhere else, not a foreign-key failure (issue 12 defect 5). A lost
    // insert race on the toolId is run again and then updates: concurrent upserts all apply, last one wins.
    if (tenantId !== null && !STORED_ID.test(tenantId)) throw notFound('tenant');
    await writeTransaction(this.ds, { upsert: true, refersTo: 'tenant' }, async (m) => {
      if (tenantId !== null && !(await m.getRepository(TenantEntity).findOne({ where: { id: tenantId } }))) throw notFound('tenant');
      const before = await m.getRepository(ToolEntity).findOne({ where: { toolId: prepared.record.toolId } });
      await this.store(m, prepared, input, `principal:${p.id}`);
      await writeAudit(m, {
        targetType: 'tool', targetId: prepared.record.toolId, tenantId: prepared.record.tenantId,
        before: before ? auditView(toRecord(before)) : undefined, after: auditView(prepared.record),
      });
      await bumpCatalogVersion(m);
    });
    return prepared.record;
  }

  /** The ingest gate for one config-file extension (issue 19: the config apply checks every entry before writing). */
  prepareConfigExtension(input: HostExtensionInput): PreparedTool {
    return this.prepareExtension(input, 'config');
  }

  /**
   * Writes one config-file extension in the caller's transaction (config-apply.service.ts). `keep`: a
   * classification made through the API that the file does not change, kept as it is (issue 19 ownership rule);
   * the tool then carries it, with the file's definition.
   */
  async storeConfigExtension(m: EntityManager, prepared: PreparedTool, input: HostExtensionInput, keep: ClassificationEntity | null): Promise<void> {
    if (!keep) return this.store(m, prepared, input, 'config');
    const c = { safetyTier: keep.safetyTier, replayPolicy: keep.replayPolicy, egress: keep.egress } as Classification;
    await m.getRepository(ToolEntity).save(toEntity({ ...prepared.record, classification: c }, nowIso()));
    await m.getRepository(ClassificationEntity).save({ ...keep, approvedHash: prepared.record.contentHash });
    await writeImplementation(m, prepared.record.toolId, input.implementation);
  }

  /** Removes a host extension (row, decision, implementation) in the caller's transaction. */
  async removeExtensionIn(m: EntityManager, toolId: string): Promise<void> {
    await m.getRepository(ToolEntity).delete({ toolId });
    await m.getRepository(ClassificationEntity).delete({ toolId });
    await removeImplementation(m, toolId);
  }

  async deleteHostExtension(actor: Principal | null, toolId: string): Promise<boolean> {
    requireRole(actor, 'host-admin');
    return writeTransaction(this.ds, {}, async (m) => {
      const before = await m.getRepository(ToolEntity).findOne({ where: { toolId, source: 'host-extension' } });
      if (!before) throw notFound('host extension');
      await this.removeExtensionIn(m, toolId);
      await writeAudit(m, { targetType: 'tool', targetId: toolId, tenantId: before.tenantId, before: auditView(toRecord(before)) });
      await bumpCatalogVersion(m);
      return true;
    });
  }

  /**
   * The host's classification of a tool (TC-DESC-5), recorded apart from the tool so it survives re-syncs.
   * For an MCP tool it is tied to the definition it was made for (drift review) and may target a tool that is
   * currently withheld for review: classifying approves the current definition.
   */
  async classifyTool(actor: Principal | null, toolId: string, c: Classification): Promise<ToolRecord> {
    const p = requireRole(actor, 'host-admin');
    return this.ds.transaction(async (m) => {
      // Issue 12 defect 3: the source's projection lock comes first, before the listing and decision are read, so a
      // sync planned before this decision cannot publish over it (its swap sees the lock's new version and plans
      // again) and one that published first is what this projection reads.
      const source = sourceOfToolId(toolId);
      if (source) await lockSourceProjection(m, source);
      const upstream = source ? await m.getRepository(UpstreamToolEntity).findOne({ where: { toolId, sourceName: source } }) : null;
      const row = await m.getRepository(ToolEntity).findOne({ where: { toolId } });
      const previous = await m.getRepository(ClassificationEntity).findOne({ where: { toolId } });
      await writeAudit(m, { targetType: 'classification', targetId: toolId, tenantId: row?.tenantId ?? null, before: previous ? classificationView(previous) : null, after: c });
      if (upstream && !upstream.quarantineReason) {
        assertClassificationAllowed('mcp', c);
        await this.saveClassification(m, toolId, c, `principal:${p.id}`, upstream.definitionHash);
        await projectSource(m, upstream.sourceName, this.log, { only: [toolId] }); // one decision changed: one tool is projected
      } else if (row && row.source === 'host-extension') {
        assertClassificationAllowed('host-extension', c);
        await this.saveClassification(m, toolId, c, `principal:${p.id}`, row.contentHash);
        await m.getRepository(ToolEntity).save(toEntity({ ...toRecord(row), classification: c, classified: true }, nowIso()));
        await bumpCatalogVersion(m);
      } else throw notFound('tool');
      return this.servedOrFail(m, toolId);
    });
  }

  /** Withdraws the decision for an MCP tool: it falls back to `write` (TC-DESC-6). */
  async unclassifyTool(actor: Principal | null, toolId: string): Promise<ToolRecord> {
    requireRole(actor, 'host-admin');
    return this.ds.transaction(async (m) => {
      const source = sourceOfToolId(toolId);
      if (source) await lockSourceProjection(m, source); // first, as in classifyTool (issue 12 defect 3)
      const upstream = source ? await m.getRepository(UpstreamToolEntity).findOne({ where: { toolId, sourceName: source } }) : null;
      if (!upstream) {
        const row = await m.getRepository(ToolEntity).findOne({ where: { toolId } });
        if (row?.source === 'host-extension') throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Host extensions always carry a classification; update the extension instead.');
        throw notFound('tool');
      }
      const previous = await m.getRepository(ClassificationEntity).findOne({ where: { toolId } });
      await m.getRepository(ClassificationEntity).delete({ toolId });
      await writeAudit(m, { targetType: 'classification', targetId: toolId, tenantId: null, before: previous ? classificationView(previous) : null, after: null });
      await projectSource(m, upstream.sourceName, this.log, { only: [toolId] });
      return this.servedOrFail(m, toolId);
    });
  }

  private async servedOrFail(m: EntityManager, toolId: string): Promise<ToolRecord> {
    const row = await m.getRepository(ToolEntity).findOne({ where: { toolId } });
    if (!row) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'The decision is recorded, but the tool is not served (quarantined or withheld for review).');
    return toRecord(row);
  }

  private prepareExtension(input: HostExtensionInput, origin: string): PreparedTool {
    if (typeof input.name !== 'string' || !EXTENSION_NAME_PATTERN.test(input.name)) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Extension names are 1-64 characters of A-Z a-z 0-9 _ . - (not starting with . or -).');
    }
    assertClassificationAllowed('host-extension', input);
    const implementation = implementationProblems(input.implementation);
    if (implementation.length) throw new CatalogError(CatalogErrorCode.InvalidArgument, implementation.join('; '));
    // PostgreSQL cannot store U+0000 in text and SQLite can: refused here, so both databases answer alike (issue 12 defect 5).
    if ([input.title, input.description].some((t) => typeof t === 'string' && t.includes('\u0000'))) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, 'title and description cannot contain U+0000 (NUL).');
    }
    const prepared = prepareTool(
      {
        source: 'host-extension',
        origin,
        tenantId: input.tenantId ?? null,
        toolId: hostExtensionToolId(input.name),
        name: input.name,
        title: input.title ?? undefined,
        description: input.description ?? undefined,
        inputSchema: input.inputSchema,
        outputSchema: input.outputSchema ?? undefined,
      },
      { safetyTier: input.safetyTier, replayPolicy: input.replayPolicy, egress: input.egress },
    );
    this.logFindings(prepared);
    return prepared;
  }

  private async store(m: EntityManager, prepared: PreparedTool, input: HostExtensionInput, decidedBy: string): Promise<void> {
    await m.getRepository(ToolEntity).save(toEntity(prepared.record, nowIso()));
    await this.saveClassification(m, prepared.record.toolId, input, decidedBy, prepared.record.contentHash);
    await writeImplementation(m, prepared.record.toolId, input.implementation);
  }

  private async saveClassification(m: EntityManager, toolId: string, c: Classification, decidedBy: string, approvedHash: string): Promise<void> {
    const repo = m.getRepository(ClassificationEntity);
    await repo.save(repo.create({ toolId, safetyTier: c.safetyTier, replayPolicy: c.replayPolicy, egress: c.egress, approvedHash, decidedBy, decidedAt: nowIso() }));
  }

  private logFindings(p: PreparedTool): void {
    for (const f of p.findings) {
      // TC-DESC-4: the event is logged (place and kind, never the value) and the value is never served.
      this.log.warn({ toolId: p.record.toolId, at: f.path, kinds: f.kinds, action: f.action }, 'credential material removed from tool definition');
    }
  }
}

/** What the audit log keeps of a tool: its identity, classification and definition hash (not the schemas). */
function auditView(r: ToolRecord): Record<string, unknown> {
  return { toolId: r.toolId, source: r.source, origin: r.origin, tenantId: r.tenantId, name: r.name, ...r.classification, contentHash: r.contentHash };
}

function classificationView(c: ClassificationEntity): Record<string, unknown> {
  return { safetyTier: c.safetyTier, replayPolicy: c.replayPolicy, egress: c.egress, approvedHash: c.approvedHash, decidedBy: c.decidedBy, decidedAt: c.decidedAt };
}
