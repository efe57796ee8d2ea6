import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { isSafetyTier, isToolSource } from '../catalog/descriptor';
import { type Principal, normalizeGroupName } from '../catalog/principal';
import { isValidToolPattern } from '../catalog/tool-id';
import { grantMatchColumns } from '../persistence/grant-match';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { GrantEntity } from '../persistence/grant.entity';
import { PrincipalEntity } from '../persistence/principal.entity';
import { TenantEntity } from '../persistence/tenant.entity';
import { nowIso } from '../shared/clock';
import { writeAudit } from '../audit/audit';
import { notFound, requireRole, tenantScopeOf } from '../catalog/admin-scope';
import { type GrantShape, describeCeiling, describeGrant, grantWithinCeiling } from '../catalog/grant-scope';
import { assertWithinCeiling, readCeiling } from './ceiling.service';
import { writeTransaction } from '../persistence/write-transaction';
import { ToolRepository } from '../persistence/tool.repository';
import type { ToolRecord } from '../catalog/tool-record';

/** The most draft grants one previewTools(draftGrants:) may add (each is checked and inserted under the write lock). */
export const MAX_DRAFT_GRANTS = 50;

export interface GrantInput {
  readonly tenantId: string;
  /** Narrow one principal (its own grants then intersect the tenant's); null/absent: the whole tenant. */
  readonly principalId?: string | null;
  /** Narrow every JWT principal whose groups claim holds this name (issue 11 defect 7). */
  readonly group?: string | null;
  readonly toolPattern: string;
  readonly source?: string | null;
  readonly maxSafetyTier?: string | null;
}

/** Group names as they come from a groups claim (auth/claims.ts bounds them the same way). */
const GROUP_NAME = /^[^\u0000-\u001f\u007f]{1,128}$/;

/**
 * Grants decide which tools a tenant (and optionally one principal or group) may invoke; they feed the scoped
 * query. Every grant must fit inside the tenant's ceiling (issue 11 defect 6): CEILING_EXCEEDED otherwise.
 */
export class GrantService {
  constructor(private readonly ds: DataSource) {}

  async createGrant(actor: Principal | null, input: GrantInput): Promise<GrantEntity> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    if (scope && scope !== input.tenantId) throw notFound('tenant');
    return this.createGrantUnchecked(input);
  }

  async createGrantUnchecked(input: GrantInput): Promise<GrantEntity> {
    // A tenant or principal deleted after the checks fails a foreign key: NOT_FOUND as well (issue 12 defect 5).
    return writeTransaction(this.ds, { refersTo: input.principalId ? 'tenant or principal' : 'tenant' }, async (m) => {
      const saved = await insertGrant(m, input);
      await writeAudit(m, { targetType: 'grant', targetId: saved.id, tenantId: saved.tenantId, after: { ...saved } }, 'createGrant');
      await bumpCatalogVersion(m);
      return saved;
    });
  }

  /**
   * What `subject` would see with `drafts` added to its tenant's grants (issue 20: the console previews a grant
   * before it is saved). The drafts are checked and inserted exactly as createGrant does (validation, principal of
   * the tenant, the tenant's ceiling: the same errors), the visible set is read by the catalog's own visibility
   * query inside that transaction, and the transaction is rolled back: nothing is saved, audited or announced, and
   * nothing else ever reads the drafts (no request is decided by them: on SQLite other flows wait for this transaction
   * to end, persistence/sqlite-immediate.ts). Authorized like createGrant for each draft.
   */
  async previewWithDrafts(actor: Principal | null, subject: Principal, drafts: readonly Omit<GrantInput, 'tenantId'>[]): Promise<ToolRecord[]> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    if (scope && scope !== subject.tenantId) throw notFound('tenant');
    // Bounded before the transaction (red team, issue 20): each draft is an insert and a ceiling check under the
    // write lock, and on SQLite the whole transaction runs without yielding, so 15,000 drafts held every tenant's
    // reads for 4.6 s. A console edits one grant at a time; the bound leaves room for a whole tenant's set.
    if (drafts.length > MAX_DRAFT_GRANTS) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, `draftGrants holds ${drafts.length} grants; a preview takes at most ${MAX_DRAFT_GRANTS}.`);
    }
    let seen: ToolRecord[] = [];
    try {
      await writeTransaction(this.ds, { refersTo: 'tenant or principal' }, async (m) => {
        for (const d of drafts) await insertGrant(m, { ...d, tenantId: subject.tenantId });
        seen = await new ToolRepository(m).findVisibleRecords(subject);
        throw ROLLBACK;
      });
    } catch (err) {
      if (err !== ROLLBACK) throw err;
    }
    return seen;
  }

  /** The tenant's grants, each saying whether the tenant's current ceiling still contains it (issue 11 defect 6). */
  async listGrants(actor: Principal | null, tenantId: string): Promise<Array<GrantEntity & { withinCeiling: boolean }>> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    if (scope && scope !== tenantId) return [];
    const rows = await this.ds.getRepository(GrantEntity).find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
    const ceiling = await readCeiling(this.ds.manager, tenantId);
    return rows.map((g) =>
      Object.assign(g, {
        withinCeiling: grantWithinCeiling({ toolPattern: g.toolPattern, source: (g.source ?? null) as GrantShape['source'], maxSafetyTier: (g.maxSafetyTier ?? null) as GrantShape['maxSafetyTier'] }, ceiling),
      }),
    );
  }

  async deleteGrant(actor: Principal | null, id: string): Promise<boolean> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    return writeTransaction(this.ds, {}, async (m) => {
      const before = await m.getRepository(GrantEntity).findOne({ where: scope ? { id, tenantId: scope } : { id } });
      if (!before) throw notFound('grant');
      await m.getRepository(GrantEntity).delete({ id });
      await writeAudit(m, { targetType: 'grant', targetId: id, tenantId: before.tenantId, before: { ...before } });
      await bumpCatalogVersion(m);
      return true;
    });
  }
}

/** Thrown to roll the preview's transaction back; never escapes previewWithDrafts. */
const ROLLBACK = Symbol('rollback the grants preview');

/** One grant, checked and inserted in `m` (createGrant and the preview share it, so they refuse the same drafts). */
async function insertGrant(m: EntityManager, input: GrantInput): Promise<GrantEntity> {
  const problems: string[] = [];
  if (!isValidToolPattern(input.toolPattern)) problems.push('toolPattern must be 1-200 characters of A-Z a-z 0-9 . _ ~ - and * (any run of characters)');
  if (input.source != null && !isToolSource(input.source)) problems.push('source must be mcp or host-extension');
  if (input.maxSafetyTier != null && !isSafetyTier(input.maxSafetyTier)) problems.push('maxSafetyTier must be pure, read, write or exec');
  const group = typeof input.group === 'string' ? normalizeGroupName(input.group) : input.group;
  if (group != null && (typeof group !== 'string' || !GROUP_NAME.test(group))) problems.push('group must be 1-128 printable characters');
  if (input.group != null && input.principalId != null) problems.push('a grant narrows either one principal or one group, not both');
  if (problems.length) throw new CatalogError(CatalogErrorCode.InvalidArgument, problems.join('; '));
  const shape: GrantShape = { toolPattern: input.toolPattern, source: (input.source ?? null) as GrantShape['source'], maxSafetyTier: (input.maxSafetyTier ?? null) as GrantShape['maxSafetyTier'] };
  if (!(await m.getRepository(TenantEntity).findOne({ where: { id: input.tenantId } }))) throw notFound('tenant');
  if (input.principalId && !(await m.getRepository(PrincipalEntity).findOne({ where: { id: input.principalId, tenantId: input.tenantId } }))) {
    throw notFound('principal');
  }
  await assertWithinCeiling(m, input.tenantId, shape, (c) => `The grant (${describeGrant(shape)}) exceeds the tenant's ceiling, which allows ${describeCeiling(c)}. A host admin can change the ceiling (setTenantCeiling).`);
  const repo = m.getRepository(GrantEntity);
  const g = repo.create({
    id: randomUUID(),
    tenantId: input.tenantId,
    principalId: input.principalId ?? null,
    groupName: group ?? null,
    toolPattern: input.toolPattern,
    ...grantMatchColumns(shape),
    source: input.source ?? null,
    maxSafetyTier: input.maxSafetyTier ?? null,
    createdAt: nowIso(),
  });
  return repo.save(g);
}
