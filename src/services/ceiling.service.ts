import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { writeAudit } from '../audit/audit';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { isSafetyTier, isToolSource } from '../catalog/descriptor';
import { type GrantShape, grantWithinCeiling } from '../catalog/grant-scope';
import type { Principal } from '../catalog/principal';
import { isValidToolPattern } from '../catalog/tool-id';
import { grantMatchColumns } from '../persistence/grant-match';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { TenantCeilingEntity } from '../persistence/tenant-ceiling.entity';
import { TenantEntity } from '../persistence/tenant.entity';
import { nowIso } from '../shared/clock';
import { notFound, requireRole, tenantScopeOf } from '../catalog/admin-scope';
import { writeTransaction } from '../persistence/write-transaction';

/** Most entries one ceiling may hold: each is an EXISTS term of every visibility query. */
const MAX_CEILING_ENTRIES = 32;

/**
 * Tenant ceilings (issue 11 defect 6): the host admin decides the most a tenant's grants may allow; tenant
 * admins read theirs. The visibility query enforces the ceiling (so lowering it hides tools at once, whatever
 * grants say), and GrantService refuses a grant that no entry contains.
 */
export class CeilingService {
  constructor(private readonly ds: DataSource) {}

  async get(actor: Principal | null, tenantId: string): Promise<GrantShape[]> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    if (scope && scope !== tenantId) throw notFound('tenant');
    if (!(await this.ds.getRepository(TenantEntity).findOne({ where: { id: tenantId } }))) throw notFound('tenant');
    return readCeiling(this.ds.manager, tenantId);
  }

  /** host-admin only: replaces the tenant's ceiling as a whole. */
  async set(actor: Principal | null, tenantId: string, entries: readonly { toolPattern: string; source?: string | null; maxSafetyTier?: string | null }[]): Promise<GrantShape[]> {
    requireRole(actor, 'host-admin');
    return this.setUnchecked(tenantId, entries);
  }

  /** Operator path (CLI, demo). */
  async setUnchecked(tenantId: string, entries: readonly { toolPattern: string; source?: string | null; maxSafetyTier?: string | null }[]): Promise<GrantShape[]> {
    const shaped = validateEntries(entries);
    // A tenant deleted after the check fails the foreign key: NOT_FOUND as well (issue 12 defect 5).
    return writeTransaction(this.ds, { refersTo: 'tenant' }, async (m) => {
      // Ceiling writes of one tenant take turns on its row: under READ COMMITTED two delete-then-insert writes
      // would both insert, leaving the union of two ceilings (issue 12 defect 5). NO KEY UPDATE does not hold up
      // grants being added meanwhile (their foreign key takes KEY SHARE). SQLite runs one transaction at a time.
      const lock = m.connection.options.type === 'postgres' ? { mode: 'for_no_key_update' as const } : undefined;
      if (!(await m.getRepository(TenantEntity).findOne({ where: { id: tenantId }, lock }))) throw notFound('tenant');
      const before = await readCeiling(m, tenantId);
      await m.getRepository(TenantCeilingEntity).delete({ tenantId });
      await writeCeiling(m, tenantId, shaped);
      await writeAudit(m, { targetType: 'ceiling', targetId: tenantId, tenantId, before, after: shaped }, 'setTenantCeiling');
      await bumpCatalogVersion(m);
      return shaped;
    });
  }
}

/** The tenant's ceiling entries, in the order they were given. */
export async function readCeiling(m: EntityManager, tenantId: string): Promise<GrantShape[]> {
  const rows = await m.getRepository(TenantCeilingEntity).find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
  return rows.map(shapeOf);
}

export async function writeCeiling(m: EntityManager, tenantId: string, entries: readonly GrantShape[]): Promise<void> {
  const at = nowIso();
  const repo = m.getRepository(TenantCeilingEntity);
  // createdAt is equal within one write: the id order below keeps the given order stable on every driver.
  const ids = entries.map(() => randomUUID()).sort();
  await repo.save(
    entries.map((e, i) =>
      repo.create({
        id: ids[i], tenantId, toolPattern: e.toolPattern, ...grantMatchColumns(e), source: e.source, maxSafetyTier: e.maxSafetyTier, createdAt: at,
      }),
    ),
  );
}

/** Throws CEILING_EXCEEDED, naming what was asked and what the ceiling allows, unless the grant fits. */
export async function assertWithinCeiling(m: EntityManager, tenantId: string, grant: GrantShape, describe: (c: GrantShape[]) => string): Promise<void> {
  const ceiling = await readCeiling(m, tenantId);
  if (!grantWithinCeiling(grant, ceiling)) throw new CatalogError(CatalogErrorCode.CeilingExceeded, describe(ceiling));
}

function shapeOf(r: TenantCeilingEntity): GrantShape {
  return { toolPattern: r.toolPattern, source: isToolSource(r.source) ? r.source : null, maxSafetyTier: isSafetyTier(r.maxSafetyTier) ? r.maxSafetyTier : null };
}

function validateEntries(entries: readonly { toolPattern: string; source?: string | null; maxSafetyTier?: string | null }[]): GrantShape[] {
  const problems: string[] = [];
  if (!Array.isArray(entries) || entries.length > MAX_CEILING_ENTRIES) problems.push(`a ceiling has at most ${MAX_CEILING_ENTRIES} entries`);
  const out: GrantShape[] = [];
  (Array.isArray(entries) ? entries : []).forEach((e, i) => {
    if (!isValidToolPattern(e.toolPattern)) problems.push(`entry ${i}: toolPattern must be 1-200 characters of A-Z a-z 0-9 . _ ~ - and * (any run of characters)`);
    if (e.source != null && !isToolSource(e.source)) problems.push(`entry ${i}: source must be mcp or host-extension`);
    if (e.maxSafetyTier != null && !isSafetyTier(e.maxSafetyTier)) problems.push(`entry ${i}: maxSafetyTier must be pure, read, write or exec`);
    out.push({ toolPattern: e.toolPattern, source: (e.source ?? null) as GrantShape['source'], maxSafetyTier: (e.maxSafetyTier ?? null) as GrantShape['maxSafetyTier'] });
  });
  if (problems.length) throw new CatalogError(CatalogErrorCode.InvalidArgument, problems.join('; '));
  return out;
}
