import { hostname } from 'node:os';
import { Like, type DataSource, type EntityManager } from 'typeorm';
import { CatalogError } from '../catalog/catalog.errors';
import type { HostExtensionInput } from '../catalog/host-extension';
import type { PreparedTool } from '../catalog/ingest';
import { hostExtensionToolId } from '../catalog/tool-id';
import { type ConfigFile, ConfigFileError, canonicalJson } from '../config/config-file';
import { sha256Hex } from '../shared/sha256';
import { writeAudit } from '../audit/audit';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { ClassificationEntity } from '../persistence/classification.entity';
import { ConfigApplicationEntity } from '../persistence/config-application.entity';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import { TenantEntity } from '../persistence/tenant.entity';
import { ToolEntity } from '../persistence/tool.entity';
import { nowIso } from '../shared/clock';
import { toSourceInput } from '../sources/config-sources';
import type { SourceAdminService, SourceInput } from '../sources/source-admin.service';
import { publicUrl, validateSource } from '../sources/source-spec';
import type { ToolAdminService } from './tool-admin.service';
import { ownerOfDecision } from './ownership';

/**
 * Issue 19: applying a config file with ownership. The rule (docs/operators.md, "Who owns what"):
 *
 * 1. A resource made by the config file is owned by the file (`owner: config`); one made through GraphQL or the
 *    CLI is owned by the API (`owner: api`). A classification is owned by whoever made it (`decidedBy`).
 * 2. Applying a file adds and updates only what the file owns. It never changes or deletes what the API owns: a
 *    file entry whose name the API already uses is a conflict, and nothing is applied.
 * 3. What the API changed on a file-owned resource (a classification of a config extension, an update of a config
 *    source, a deletion) is kept and reported as drift, until the file changes that entry (then the file's newer
 *    word wins) or the operator applies with `--reset-drift`.
 * 4. File-owned resources the file no longer declares are removed only with `--prune`; otherwise they are listed.
 * 5. The database records the applied file's hash. Start-up applies a file only when none was applied yet or the
 *    same one was (so replicas started with different files never undo each other), unless forced.
 */
type PlanKind = 'extension' | 'mcp-server';
interface PlanItem {
  readonly kind: PlanKind;
  /** toolId (ext.<name>) or source name. */
  readonly id: string;
  /** JSON Pointer of the file entry; null for what the file no longer declares. */
  readonly at: string | null;
}
export interface ConfigPlan {
  readonly file: string;
  readonly hash: string;
  /** What the database has applied before (null: no file yet). */
  readonly applied: { readonly file: string; readonly hash: string; readonly appliedAt: string; readonly appliedBy: string } | null;
  readonly add: ReadonlyArray<PlanItem>;
  readonly change: ReadonlyArray<PlanItem & { readonly fields: readonly string[] }>;
  /** File-owned, no longer declared: removed only with prune. */
  readonly remove: ReadonlyArray<PlanItem>;
  readonly unchanged: ReadonlyArray<PlanItem>;
  /** API changes to file-owned resources; kept unless resetDrift. */
  readonly drift: ReadonlyArray<PlanItem & { readonly what: string }>;
  /** File entries that name API-owned resources: nothing is applied while there is one. */
  readonly conflicts: ReadonlyArray<{ readonly at: string; readonly problem: string }>;
  /** Classifications an apply would remove or replace. */
  readonly classifications: ReadonlyArray<{ readonly toolId: string; readonly effect: string }>;
}
export interface ApplyOptions {
  /** Remove file-owned resources the file no longer declares. */
  readonly prune?: boolean;
  /** Apply even though the database has another file applied. */
  readonly force?: boolean;
  /** The file's word wins over API changes to file-owned resources (re-creates deleted ones, restores classifications). */
  readonly resetDrift?: boolean;
  /** Who applies, for the record: `start-up` or `cli`. */
  readonly by: string;
}
export interface ApplyResult {
  readonly plan: ConfigPlan;
  readonly pruned: boolean;
  /** False when the database had already applied this very file and nothing differed: nothing was written. */
  readonly written: boolean;
}

/** A replica's file differs from the one the database has applied: not applied (start-up without force). */
export class OtherConfigAppliedError extends Error {
  constructor(readonly plan: ConfigPlan) {
    const a = plan.applied!;
    super(
      `${plan.file} (sha256 ${plan.hash.slice(0, 12)}) differs from the config file this database has applied (${a.file}, sha256 ${a.hash.slice(0, 12)}, ` +
        `at ${a.appliedAt} by ${a.appliedBy}); not applied. See the diff with \`toolcat config plan ${plan.file}\`, apply it with ` +
        `\`toolcat config apply ${plan.file}\`, or start with --config-force (TOOLCAT_CONFIG_FORCE=true)`,
    );
    this.name = 'OtherConfigAppliedError';
  }
}

interface Entries {
  extensions: Record<string, { hash: string; classificationHash: string }>;
  mcpServers: Record<string, { hash: string }>;
}

interface Examined {
  readonly plan: ConfigPlan;
  readonly problems: Array<{ at: string; problem: string }>;
  readonly extensions: Array<{ input: HostExtensionInput; prepared: PreparedTool; keep: ClassificationEntity | null; write: boolean }>;
  readonly sources: Array<{ input: SourceInput; write: boolean }>;
  readonly entries: Entries;
  /** What the database recorded of the last application, if any. */
  readonly appliedRow: ConfigApplicationEntity | null;
}

const SOURCE_FIELDS = ['command', 'args', 'url', 'headers', 'env', 'transport', 'driftPolicy', 'syncIntervalSeconds', 'name'] as const;

export class ConfigApplyService {
  constructor(
    private readonly ds: DataSource,
    private readonly tools: ToolAdminService,
    private readonly sources: SourceAdminService,
  ) {}

  /** The diff `apply` would make, read-only. Problems in the file (unknown tenant, invalid entry) are thrown. */
  async plan(file: ConfigFile, opts: Pick<ApplyOptions, 'resetDrift'> = {}): Promise<ConfigPlan> {
    const ex = await this.examine(this.ds.manager, file, opts.resetDrift === true);
    if (ex.problems.length) throw new ConfigFileError(file.file, ex.problems);
    return ex.plan;
  }

  /**
   * Applies the file in one transaction (everything or nothing), under a lock so two replicas applying at once
   * are serialized, and re-plans inside it so what is applied is what was checked.
   */
  async apply(file: ConfigFile, opts: ApplyOptions): Promise<ApplyResult> {
    return this.ds.transaction(async (m) => {
      if (m.connection.options.type === 'postgres') await m.query(`SELECT pg_advisory_xact_lock(hashtext('toolcat:config-apply'))`);
      const ex = await this.examine(m, file, opts.resetDrift === true);
      if (ex.problems.length) throw new ConfigFileError(file.file, ex.problems);
      const { plan } = ex;
      if (plan.applied && plan.applied.hash !== plan.hash && !opts.force) throw new OtherConfigAppliedError(plan);
      if (plan.conflicts.length) throw new ConfigFileError(file.file, [...plan.conflicts]);
      const prune = opts.prune === true && plan.remove.length > 0;
      // The file this database last applied, unchanged in every entry: nothing is written (no audit entry, no catalog
      // version bump that would clear every replica's caches), so a restart or a rolling deploy is not a change.
      const entries = JSON.stringify(ex.entries);
      const fileName = file.file.slice(0, 1024);
      if (!prune && !ex.extensions.some((x) => x.write) && !ex.sources.some((s) => s.write) && ex.appliedRow?.hash === plan.hash && ex.appliedRow.entries === entries && ex.appliedRow.file === fileName) {
        return { plan, pruned: false, written: false };
      }
      for (const x of ex.extensions) if (x.write) await this.tools.storeConfigExtension(m, x.prepared, x.input, x.keep);
      for (const s of ex.sources) if (s.write) await this.sources.writeConfigSource(m, s.input);
      if (prune) {
        for (const r of plan.remove) {
          if (r.kind === 'extension') await this.tools.removeExtensionIn(m, r.id);
          else await this.sources.removeSourceIn(m, r.id);
        }
      }
      const repo = m.getRepository(ConfigApplicationEntity);
      await repo.save(repo.create({ id: 1, hash: plan.hash, file: fileName, entries, appliedAt: nowIso(), appliedBy: `${opts.by} on ${hostname()} pid ${process.pid}`.slice(0, 256) }));
      await writeAudit(m, {
        targetType: 'config', targetId: plan.hash, tenantId: null,
        before: plan.applied ? { file: plan.applied.file, hash: plan.applied.hash } : null,
        after: {
          file: file.file, hash: plan.hash, added: plan.add.map((i) => i.id), changed: plan.change.map((i) => i.id),
          removed: prune ? plan.remove.map((i) => i.id) : [], notRemoved: prune ? [] : plan.remove.map((i) => i.id), drift: plan.drift.map((d) => d.id),
        },
      }, 'applyConfigFile');
      await bumpCatalogVersion(m);
      return { plan, pruned: prune, written: true };
    });
  }

  private async examine(m: EntityManager, file: ConfigFile, resetDrift: boolean): Promise<Examined> {
    const appliedRow = await m.getRepository(ConfigApplicationEntity).findOne({ where: { id: 1 } });
    const prev: Entries = appliedRow ? (JSON.parse(appliedRow.entries) as Entries) : { extensions: {}, mcpServers: {} };
    const problems: Array<{ at: string; problem: string }> = [];
    const conflicts: Array<{ at: string; problem: string }> = [];
    const add: PlanItem[] = [];
    const change: Array<PlanItem & { fields: string[] }> = [];
    const unchanged: PlanItem[] = [];
    const drift: Array<PlanItem & { what: string }> = [];
    const classifications: Array<{ toolId: string; effect: string }> = [];
    const entries: Entries = { extensions: {}, mcpServers: {} };
    const extensions: Examined['extensions'] = [];
    const sources: Examined['sources'] = [];

    for (const [i, input] of file.extensions.entries()) {
      const at = `/extensions/${i}`;
      const toolId = hostExtensionToolId(input.name);
      const item: PlanItem = { kind: 'extension', id: toolId, at };
      const hash = sha256Hex(canonicalJson(input));
      const classificationHash = sha256Hex(canonicalJson({ safetyTier: input.safetyTier, replayPolicy: input.replayPolicy, egress: input.egress }));
      entries.extensions[input.name] = { hash, classificationHash };
      let prepared: PreparedTool;
      try {
        prepared = this.tools.prepareConfigExtension(input);
      } catch (err) {
        if (!(err instanceof CatalogError)) throw err;
        problems.push({ at, problem: err.message });
        continue;
      }
      if (input.tenantId && !(await m.getRepository(TenantEntity).findOne({ where: { id: input.tenantId } }))) {
        problems.push({ at: `${at}/tenantId`, problem: `no tenant with id "${input.tenantId}"` });
        continue;
      }
      const row = await m.getRepository(ToolEntity).findOne({ where: { toolId } });
      const before = prev.extensions[input.name];
      if (row && (row.source !== 'host-extension' || row.origin !== 'config')) {
        conflicts.push({ at: `${at}/name`, problem: `${toolId} exists and is owned by the API (made through GraphQL); delete it there or rename this entry` });
        continue;
      }
      if (!row) {
        if (before?.hash === hash && !resetDrift) {
          drift.push({ ...item, what: 'deleted through the API; not re-created (apply with --reset-drift to re-create it)' });
        } else {
          add.push(item);
          extensions.push({ input, prepared, keep: null, write: true });
        }
        continue;
      }
      const decision = await m.getRepository(ClassificationEntity).findOne({ where: { toolId } });
      const fileClass = `${input.safetyTier}/${input.replayPolicy}/${input.egress}`;
      const storedClass = decision ? `${decision.safetyTier}/${decision.replayPolicy}/${decision.egress}` : null;
      // The file's classification replaces the API's only when the file changed it since it was last applied.
      const fileChangedClass = before !== undefined && before.classificationHash !== classificationHash;
      const apiDecision = decision && ownerOfDecision(decision.decidedBy) === 'api' ? decision : null;
      const keep = apiDecision && !fileChangedClass && !resetDrift ? apiDecision : null;
      if (keep && storedClass !== fileClass) {
        drift.push({ ...item, what: `classification ${storedClass} set through the API by ${keep.decidedBy} at ${keep.decidedAt}, the file says ${fileClass}; kept` });
      }
      const fields: string[] = [];
      if (row.contentHash !== prepared.record.contentHash) fields.push('definition');
      if ((row.tenantId ?? null) !== (prepared.record.tenantId ?? null)) fields.push('tenantId');
      if (!keep && storedClass !== fileClass) {
        fields.push('classification');
        if (apiDecision) classifications.push({ toolId, effect: `the API's ${storedClass} (by ${apiDecision.decidedBy}) is replaced by the file's ${fileClass}` });
      }
      if (!fields.length && before !== undefined && before.hash !== hash) fields.push('implementation');
      if (fields.length || before === undefined) {
        // Not recorded before (a database from before issue 19): written again, which changes nothing the API made.
        if (fields.length) change.push({ ...item, fields });
        else unchanged.push(item);
        extensions.push({ input, prepared, keep, write: true });
      } else unchanged.push(item);
    }

    for (const [i, s] of file.mcpServers.entries()) {
      const at = `/mcpServers/${i}`;
      const item: PlanItem = { kind: 'mcp-server', id: s.name, at };
      const hash = sha256Hex(canonicalJson(s));
      entries.mcpServers[s.name] = { hash };
      let tenantId: string | null = null;
      if (s.tenant) {
        tenantId = (await m.getRepository(TenantEntity).findOne({ where: { name: s.tenant } }))?.id ?? null;
        if (!tenantId) {
          problems.push({ at: `${at}/tenant`, problem: `no tenant named "${s.tenant}"` });
          continue;
        }
      }
      const input = toSourceInput(s, () => tenantId);
      try {
        validateSource(input.spec, input.secrets!);
      } catch (err) {
        if (!(err instanceof CatalogError)) throw err;
        for (const p of err.message.split('; ')) problems.push({ at: `${at}${fieldOf(p)}`, problem: p });
        continue;
      }
      const row = await m.getRepository(McpSourceEntity).findOne({ where: { name: s.name } });
      const before = prev.mcpServers[s.name];
      if (row && row.origin !== 'config') {
        conflicts.push({ at: `${at}/name`, problem: `source "${s.name}" exists and is owned by the API (registered through GraphQL); remove it there or rename this entry` });
        continue;
      }
      if (!row) {
        if (before?.hash === hash && !resetDrift) drift.push({ ...item, what: 'removed through the API; not re-registered (apply with --reset-drift to register it again)' });
        else {
          add.push(item);
          sources.push({ input, write: true });
        }
        continue;
      }
      const fields = sourceDiff(row, input);
      if (before?.hash === hash && fields.length && !resetDrift) {
        drift.push({ ...item, what: `changed through the API (${fields.join(', ')}); kept` });
        unchanged.push(item);
      } else if (fields.length || (before !== undefined && before.hash !== hash)) {
        change.push({ ...item, fields: fields.length ? fields : ['secrets'] });
        sources.push({ input, write: true });
      } else {
        unchanged.push(item);
        if (before === undefined) sources.push({ input, write: true }); // secrets may differ: not readable to compare
      }
    }

    const declaredTools = new Set(file.extensions.map((x) => hostExtensionToolId(x.name)));
    const remove: PlanItem[] = [];
    for (const t of await m.getRepository(ToolEntity).find({ where: { source: 'host-extension', origin: 'config' }, order: { toolId: 'ASC' } })) {
      if (declaredTools.has(t.toolId)) continue;
      remove.push({ kind: 'extension', id: t.toolId, at: null });
      classifications.push({ toolId: t.toolId, effect: 'removed with the extension' });
    }
    const declaredSources = new Set(file.mcpServers.map((s) => s.name));
    for (const s of await m.getRepository(McpSourceEntity).find({ where: { origin: 'config' }, order: { name: 'ASC' } })) {
      if (declaredSources.has(s.name)) continue;
      remove.push({ kind: 'mcp-server', id: s.name, at: null });
      for (const d of await m.getRepository(ClassificationEntity).find({ where: { toolId: Like(`mcp.${s.name}.%`) }, order: { toolId: 'ASC' } })) {
        classifications.push({ toolId: d.toolId, effect: `removed with source ${s.name}` });
      }
    }
    const plan: ConfigPlan = {
      file: file.file,
      hash: file.hash,
      applied: appliedRow ? { file: appliedRow.file, hash: appliedRow.hash, appliedAt: appliedRow.appliedAt, appliedBy: appliedRow.appliedBy } : null,
      add, change, remove, unchanged, drift, conflicts, classifications,
    };
    return { plan, problems, extensions, sources, entries, appliedRow };
  }
}

/** Which spec fields of a stored source differ from a config entry (secrets are write-only: not compared). */
function sourceDiff(row: McpSourceEntity, input: SourceInput): string[] {
  const { spec } = input;
  const out: string[] = [];
  if (row.transport !== spec.transport) out.push('transport');
  if ((row.command ?? null) !== (spec.command ?? null)) out.push('command');
  if (row.args !== JSON.stringify(spec.args)) out.push('args');
  if ((row.publicUrl ?? null) !== publicUrl(input.secrets?.url ?? null)) out.push('url');
  if ((row.tenantId ?? null) !== spec.tenantId) out.push('tenant');
  if (row.driftPolicy !== spec.driftPolicy) out.push('driftPolicy');
  if (row.syncIntervalSeconds !== spec.syncIntervalSeconds) out.push('syncIntervalSeconds');
  if (Boolean(row.enabled) !== spec.enabled) out.push('enabled');
  return out;
}

/** The entry field a source problem is about (`/command` for "stdio sources need a command"), or '' for the entry. */
function fieldOf(problem: string): string {
  const hit = SOURCE_FIELDS.map((f) => ({ f, i: problem.search(new RegExp(`\\b${f}\\b`)) })).filter((x) => x.i >= 0).sort((a, b) => a.i - b.i)[0];
  return hit ? `/${hit.f}` : '';
}

/** The plan as the lines `toolcat config plan` prints and start-up logs (one format, issue 19). */
export function planLines(plan: ConfigPlan, opts: { prune?: boolean } = {}): string[] {
  const lines: string[] = [];
  const short = (h: string) => h.slice(0, 12);
  lines.push(`config file ${plan.file} (sha256 ${short(plan.hash)})`);
  if (!plan.applied) lines.push('database: no config file applied yet');
  else if (plan.applied.hash === plan.hash) lines.push(`database: this file is applied (at ${plan.applied.appliedAt} by ${plan.applied.appliedBy})`);
  else lines.push(`database: ANOTHER file is applied: ${plan.applied.file} (sha256 ${short(plan.applied.hash)}, at ${plan.applied.appliedAt} by ${plan.applied.appliedBy})`);
  const name = (i: PlanItem) => `${i.kind} ${i.id}${i.at ? ` (${i.at})` : ''}`;
  for (const i of plan.add) lines.push(`  + add ${name(i)}`);
  for (const i of plan.change) lines.push(`  ~ change ${name(i)}: ${i.fields.join(', ')}`);
  for (const i of plan.remove) lines.push(`  - remove ${name(i)}: no longer in the file${opts.prune ? '' : ' (kept: removals need --prune)'}`);
  for (const d of plan.drift) lines.push(`  ! drift ${name(d)}: ${d.what}`);
  for (const c of plan.conflicts) lines.push(`  x conflict at ${c.at}: ${c.problem}`);
  for (const c of plan.classifications) lines.push(`  classification ${c.toolId}: ${c.effect}${c.effect.startsWith('removed') && !opts.prune ? ' (only with --prune)' : ''}`);
  lines.push(
    `${plan.add.length} to add, ${plan.change.length} to change, ${plan.remove.length} to remove, ${plan.unchanged.length} unchanged, ` +
      `${plan.drift.length} drift, ${plan.conflicts.length} conflicts`,
  );
  return lines;
}
