import { redactArgs } from '../catalog/credential-redaction';
import { Like, type DataSource, type EntityManager } from 'typeorm';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { Principal } from '../catalog/principal';
import { ClassificationEntity } from '../persistence/classification.entity';
import { McpSourceSecretEntity } from '../persistence/mcp-source-secret.entity';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import { TenantEntity } from '../persistence/tenant.entity';
import { ToolChangeEntity } from '../persistence/tool-change.entity';
import { UpstreamToolEntity } from '../persistence/upstream-tool.entity';
import { notFound, requireRole } from '../catalog/admin-scope';
import { nowIso } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { writeAudit } from '../audit/audit';
import { writeTransaction } from '../persistence/write-transaction';
import { type McpSourceSecrets, type McpSourceSpec, publicUrl, validateSource } from './source-spec';
import { keyOf } from './snapshot';
import { change } from './snapshot-change';
import { lockSourceProjection, projectSource, reviewStateOf, sourceOfToolId } from './source-projection';
import { logPage } from '../persistence/log-page';

export interface SourceInput {
  readonly spec: McpSourceSpec;
  /** null: keep the stored secrets (updates that do not touch them). */
  readonly secrets: McpSourceSecrets | null;
}

/** Registration of MCP sources (host admins). Secrets are write-only: stored apart, never read back here. */
export class SourceAdminService {
  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
  ) {}

  /** Names (never values) of a source's secret entries, for admins to see what is configured. */
  async secretNames(name: string): Promise<{ env: string[]; headers: string[] }> {
    const sec = await this.ds.getRepository(McpSourceSecretEntity).findOne({ where: { sourceName: name } });
    return { env: Object.keys(sec ? JSON.parse(sec.env) : {}).sort(), headers: Object.keys(sec ? JSON.parse(sec.headers) : {}).sort() };
  }

  /** Operator-side (CLI) listing of source names; no principal is involved there. */
  async names(enabledOnly: boolean): Promise<string[]> {
    const rows = await this.ds.getRepository(McpSourceEntity).find({ where: enabledOnly ? { enabled: true } : {}, order: { name: 'ASC' } });
    return rows.map((r) => r.name);
  }

  async list(actor: Principal | null): Promise<McpSourceEntity[]> {
    requireRole(actor, 'host-admin');
    return this.ds.getRepository(McpSourceEntity).find({ order: { name: 'ASC' } });
  }

  async get(actor: Principal | null, name: string): Promise<McpSourceEntity | null> {
    requireRole(actor, 'host-admin');
    return this.ds.getRepository(McpSourceEntity).findOne({ where: { name } });
  }

  async register(actor: Principal | null, input: SourceInput, origin = 'graphql'): Promise<McpSourceEntity> {
    requireRole(actor, 'host-admin');
    const taken = `A source named "${input.spec.name}" already exists.`;
    // The check answers in the normal case; two registrations at once meet at the primary key, and a tenant
    // deleted after its check fails the foreign key (issue 12 defect 5).
    return writeTransaction(this.ds, { taken, refersTo: 'tenant' }, async (m) => {
      if (await m.getRepository(McpSourceEntity).findOne({ where: { name: input.spec.name } })) throw new CatalogError(CatalogErrorCode.Conflict, taken);
      const saved = await this.write(m, input, origin, null);
      await writeAudit(m, { targetType: 'source', targetId: saved.name, tenantId: saved.tenantId, after: await this.auditView(m, saved) }, 'registerSource');
      return saved;
    });
  }

  async update(actor: Principal | null, input: SourceInput): Promise<McpSourceEntity> {
    requireRole(actor, 'host-admin');
    return this.ds.transaction(async (m) => {
      await lockSourceProjection(m, input.spec.name); // first: this transaction projects the source (issue 12 defect 3)
      const old = await m.getRepository(McpSourceEntity).findOne({ where: { name: input.spec.name } });
      if (!old) throw notFound('source');
      const before = await this.auditView(m, old);
      const saved = await this.write(m, input, old.origin, { ...old } as McpSourceEntity);
      await writeAudit(m, { targetType: 'source', targetId: saved.name, tenantId: saved.tenantId, before, after: await this.auditView(m, saved) });
      await projectSource(m, saved.name, this.log); // drift policy or tenant may have changed what is served
      return saved;
    });
  }

  async remove(actor: Principal | null, name: string): Promise<boolean> {
    requireRole(actor, 'host-admin');
    return this.ds.transaction(async (m) => this.removeIn(m, name));
  }

  /**
   * Writes one config-file source in the caller's transaction (config-apply.service.ts): registered or updated,
   * owned by the config file; an updated one is projected again (its drift policy or tenant may have changed).
   */
  async writeConfigSource(m: EntityManager, input: SourceInput): Promise<void> {
    await lockSourceProjection(m, input.spec.name);
    const old = await m.getRepository(McpSourceEntity).findOne({ where: { name: input.spec.name } });
    const before = old ? await this.auditView(m, old) : undefined;
    const saved = await this.write(m, input, 'config', old);
    await writeAudit(m, { targetType: 'source', targetId: saved.name, tenantId: saved.tenantId, before, after: await this.auditView(m, saved) }, 'applyConfigFile');
    if (old) await projectSource(m, input.spec.name, this.log);
  }

  /** Removes a source and everything it served, in the caller's transaction. */
  async removeSourceIn(m: EntityManager, name: string): Promise<void> {
    await this.removeIn(m, name);
  }

  async upstreamTools(actor: Principal | null, name: string): Promise<Array<UpstreamToolEntity & { reviewState: string }>> {
    requireRole(actor, 'host-admin');
    const rows = await this.ds.getRepository(UpstreamToolEntity).find({ where: { sourceName: name }, order: { name: 'ASC' } });
    const decisions = new Map((await this.ds.getRepository(ClassificationEntity).find({ where: { toolId: Like(`mcp.${name}.%`) } })).map((d) => [d.toolId, d]));
    return rows.map((r) => Object.assign(r, { reviewState: r.toolId ? reviewStateOf(decisions.get(r.toolId), r.definitionHash) : 'none' }));
  }

  /**
   * The one explicit way to see an upstream tool as the server listed it, credentials included (issue 11, defect
   * 3: `upstreamTools` and `adminTools` show it redacted). Host admins only; each reveal writes an audit row that
   * says which tool was revealed and by whom, never the value. The tool is named by its key (what upstreamTools
   * shows when even the name is redacted) or by its name.
   */
  async reveal(actor: Principal | null, sourceName: string, by: { key?: string | null; name?: string | null }): Promise<UpstreamToolEntity> {
    requireRole(actor, 'host-admin');
    if ((by.key == null) === (by.name == null)) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Give exactly one of key or name.');
    const key = by.key ?? keyOf(sourceName, by.name!);
    return this.ds.transaction(async (m) => {
      const u = await m.getRepository(UpstreamToolEntity).findOne({ where: { key, sourceName } });
      if (!u) throw notFound('upstream tool');
      const src = await m.getRepository(McpSourceEntity).findOne({ where: { name: sourceName } });
      await writeAudit(m, {
        targetType: 'upstream-tool', targetId: `${sourceName}/${key}`, tenantId: src?.tenantId ?? null,
        after: { revealed: true, source: sourceName, key, fields: ['name', 'toolId', 'raw', 'claims'] },
      });
      return u;
    });
  }

  async changes(actor: Principal | null, filter: { sourceName?: string | null; toolId?: string | null; first: number; offset: number }): Promise<ToolChangeEntity[]> {
    requireRole(actor, 'host-admin');
    const where: Record<string, string> = {};
    if (filter.sourceName) where.sourceName = filter.sourceName;
    if (filter.toolId) where.toolId = filter.toolId;
    return this.ds.getRepository(ToolChangeEntity).find({ where, order: { at: 'DESC', seq: 'DESC' }, ...logPage(filter.first, filter.offset) });
  }

  /** Approves the current definition of a drifted tool: its earlier classification applies to it again. */
  async approve(actor: Principal | null, toolId: string): Promise<void> {
    const p = requireRole(actor, 'host-admin');
    await this.ds.transaction(async (m) => {
      const source = sourceOfToolId(toolId);
      if (source) await lockSourceProjection(m, source); // first: this transaction projects the source (issue 12 defect 3)
      const u = source ? await m.getRepository(UpstreamToolEntity).findOne({ where: { toolId, sourceName: source } }) : null;
      const d = await m.getRepository(ClassificationEntity).findOne({ where: { toolId } });
      if (!u || u.quarantineReason) throw notFound('MCP tool');
      if (!d) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'The tool has no classification to approve; classify it instead.');
      const before = { approvedHash: d.approvedHash, decidedBy: d.decidedBy };
      d.approvedHash = u.definitionHash;
      d.decidedBy = `principal:${p.id}`;
      d.decidedAt = nowIso();
      await m.getRepository(ClassificationEntity).save(d);
      await m.getRepository(ToolChangeEntity).save(change(u.sourceName, u.name, toolId, 'approved', null, u.definitionHash, `by principal:${p.id}`, nowIso()));
      await writeAudit(m, { targetType: 'classification', targetId: toolId, tenantId: null, before, after: { approvedHash: d.approvedHash, decidedBy: d.decidedBy } });
      await projectSource(m, u.sourceName, this.log, { only: [toolId] });
    });
  }

  private async write(m: EntityManager, input: SourceInput, origin: string, old: McpSourceEntity | null): Promise<McpSourceEntity> {
    const { spec } = input;
    const secretsRepo = m.getRepository(McpSourceSecretEntity);
    const stored = await secretsRepo.findOne({ where: { sourceName: spec.name } });
    const secrets: McpSourceSecrets = input.secrets ?? {
      env: stored ? JSON.parse(stored.env) : {},
      url: stored?.url ? JSON.parse(stored.url) : null,
      headers: stored ? JSON.parse(stored.headers) : {},
    };
    validateSource(spec, secrets);
    // PostgreSQL cannot store U+0000 in text and SQLite can: refused here, so both databases answer alike (issue 12 defect 5).
    if (spec.command?.includes('\u0000')) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'command cannot contain U+0000 (NUL).');
    if (spec.tenantId && !(await m.getRepository(TenantEntity).findOne({ where: { id: spec.tenantId } }))) throw notFound('tenant');
    const row = Object.assign(old ?? new McpSourceEntity(), {
      name: spec.name,
      transport: spec.transport,
      command: spec.command,
      args: JSON.stringify(spec.args),
      publicUrl: publicUrl(secrets.url),
      tenantId: spec.tenantId,
      driftPolicy: spec.driftPolicy,
      syncIntervalSeconds: spec.syncIntervalSeconds,
      enabled: spec.enabled,
      origin,
      status: old?.status ?? 'never-synced',
      lastError: old?.lastError ?? null,
      lastSyncAt: old?.lastSyncAt ?? null,
      lastSuccessAt: old?.lastSuccessAt ?? null,
      toolCount: old?.toolCount ?? 0,
      quarantinedCount: old?.quarantinedCount ?? 0,
      createdAt: old?.createdAt ?? nowIso(),
    });
    const secretRow = secretsRepo.create({ sourceName: spec.name, env: JSON.stringify(secrets.env), url: secrets.url ? JSON.stringify(secrets.url) : null, headers: JSON.stringify(secrets.headers) });
    if (old) {
      const saved = await m.getRepository(McpSourceEntity).save(row);
      await secretsRepo.save(secretRow);
      return saved;
    }
    // A new source is inserted, never saved: save() reads by primary key first and updates what it finds, so on
    // PostgreSQL a registration whose check ran before a twin committed turned into an update of the twin (4 of 40
    // racing registrations answered OK). An insert meets the primary key, which answers CONFLICT (issue 12 defect 5).
    await m.getRepository(McpSourceEntity).insert(row);
    await secretsRepo.insert(secretRow);
    return row;
  }

  /** Everything about a source but secret values (only their names); writeAudit redacts what looks like a credential (a token typed into args). */
  private async auditView(m: EntityManager, s: McpSourceEntity): Promise<Record<string, unknown>> {
    const sec = await m.getRepository(McpSourceSecretEntity).findOne({ where: { sourceName: s.name } });
    return {
      name: s.name, transport: s.transport, command: s.command, args: redactArgs(JSON.parse(s.args) as string[]), url: s.publicUrl, tenantId: s.tenantId, driftPolicy: s.driftPolicy,
      syncIntervalSeconds: s.syncIntervalSeconds, enabled: Boolean(s.enabled), envNames: Object.keys(sec ? JSON.parse(sec.env) : {}), headerNames: Object.keys(sec ? JSON.parse(sec.headers) : {}),
    };
  }

  private async removeIn(m: EntityManager, name: string): Promise<boolean> {
    const old = await m.getRepository(McpSourceEntity).findOne({ where: { name } });
    if (!old) throw notFound('source');
    await writeAudit(m, { targetType: 'source', targetId: name, tenantId: old.tenantId, before: await this.auditView(m, old) }, 'removeSource');
    await m.getRepository(McpSourceEntity).delete({ name });
    await m.getRepository(McpSourceSecretEntity).delete({ sourceName: name });
    await m.getRepository(UpstreamToolEntity).delete({ sourceName: name });
    await m.getRepository(ClassificationEntity).delete({ toolId: Like(`mcp.${name}.%`) });
    await projectSource(m, name, this.log); // no source any more: every tool it served goes
    return true;
  }
}
