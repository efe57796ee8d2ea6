import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type DataSource, IsNull } from 'typeorm';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { type Principal, type Role, isRole } from '../catalog/principal';
import { bumpCatalogVersion } from '../persistence/catalog-version';
import { PrincipalEntity } from '../persistence/principal.entity';
import { TenantEntity } from '../persistence/tenant.entity';
import { generateApiKey, hashApiKey, looksLikeApiKey } from '../tenancy/api-key';
import { nowIso } from '../shared/clock';
import { writeAudit } from '../audit/audit';
import type { CatalogGeneration } from '../cache/catalog-generation';
import { notFound, requireRole, tenantScopeOf } from '../catalog/admin-scope';
import { type GrantShape, UNRESTRICTED_CEILING } from '../catalog/grant-scope';
import { writeCeiling } from './ceiling.service';
import { writeTransaction } from '../persistence/write-transaction';

const TENANT_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
const PRINCIPAL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,127}$/;

export interface CreatedPrincipal {
  readonly principal: PrincipalEntity;
  /** Shown once; only its hash is stored. */
  readonly apiKey: string;
}

/** Tenants, principals and API keys. Every admin read and write is scoped by the actor's tenant in the query. */
export class TenancyService {
  /** Accepted keys only (by hash), valid for one catalog generation: revocation bumps it (never negatives). */
  private readonly authCache = new LRUCache<string, { generation: string; principal: Principal }>({ max: 10_000 });

  constructor(
    private readonly ds: DataSource,
    private readonly generation: CatalogGeneration,
    /** The ceiling every new tenant starts with (issue 11 defect 6; TOOLCAT_TENANT_DEFAULT_MAX_TIER). */
    private readonly defaultCeiling: readonly GrantShape[] = UNRESTRICTED_CEILING,
  ) {}

  async authenticate(apiKey: string): Promise<Principal | null> {
    if (!looksLikeApiKey(apiKey)) return null;
    const hash = hashApiKey(apiKey);
    const generation = this.generation.current;
    const hit = this.authCache.get(hash);
    if (hit && hit.generation === generation) return hit.principal;
    const principal = await this.lookup(hash);
    if (principal) this.authCache.set(hash, { generation, principal });
    return principal;
  }

  private async lookup(hash: string): Promise<Principal | null> {
    const r = (await this.ds
      .getRepository(PrincipalEntity)
      .createQueryBuilder('p')
      .innerJoin(TenantEntity, 't', 't.id = p.tenant_id')
      .select(['p.id AS id', 'p.tenant_id AS tenant_id', 'p.name AS name', 'p.role AS role', 't.name AS tenant_name'])
      .where('p.key_hash = :hash AND p.revoked_at IS NULL', { hash })
      .getRawOne()) as { id: string; tenant_id: string; name: string; role: string; tenant_name: string } | undefined;
    if (!r || !isRole(r.role)) return null;
    return { id: r.id, kind: 'api-key', tenantId: r.tenant_id, tenantName: r.tenant_name, name: r.name, role: r.role, groups: [] };
  }

  /**
   * Is an API-key principal still active (not revoked, tenant not deleted)? Asked before a queued call is sent
   * (issue 14): authentication happened when the request arrived, the call may leave its queue much later. A JWT
   * principal has no row: its token was verified when the request arrived and it stays valid for that request.
   */
  async stillActive(p: Principal): Promise<boolean> {
    if (p.kind !== 'api-key') return true;
    const row = await this.ds.getRepository(PrincipalEntity).findOne({ where: { id: p.id, tenantId: p.tenantId } });
    return row !== null && row.revokedAt === null;
  }

  async createTenant(actor: Principal | null, name: string): Promise<TenantEntity> {
    requireRole(actor, 'host-admin');
    return this.createTenantUnchecked(name);
  }

  /** Bootstrap path (CLI, demo): no actor exists yet. */
  async createTenantUnchecked(name: string): Promise<TenantEntity> {
    if (!TENANT_NAME_PATTERN.test(name)) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Tenant names are 1-64 characters of a-z, 0-9 and "-", starting with a letter or digit.');
    }
    const taken = `A tenant named "${name}" already exists.`;
    // The check gives the answer in the normal case; two creations at once meet at the unique key (issue 12 defect 5).
    return writeTransaction(this.ds, { taken }, async (m) => {
      const repo = m.getRepository(TenantEntity);
      if (await repo.findOne({ where: { name } })) throw new CatalogError(CatalogErrorCode.Conflict, taken);
      const t = await repo.save(repo.create({ id: randomUUID(), name, createdAt: nowIso() }));
      await writeCeiling(m, t.id, this.defaultCeiling);
      await writeAudit(m, { targetType: 'tenant', targetId: t.id, tenantId: t.id, after: { ...t, ceiling: this.defaultCeiling } }, 'createTenant');
      return t;
    });
  }

  async listTenants(actor: Principal | null): Promise<TenantEntity[]> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    return this.ds.getRepository(TenantEntity).find({ where: scope ? { id: scope } : {}, order: { name: 'ASC' } });
  }

  async findTenantById(id: string): Promise<TenantEntity | null> {
    return this.ds.getRepository(TenantEntity).findOne({ where: { id } });
  }

  async findTenantByName(name: string): Promise<TenantEntity | null> {
    return this.ds.getRepository(TenantEntity).findOne({ where: { name } });
  }

  async deleteTenant(actor: Principal | null, id: string): Promise<boolean> {
    const p = requireRole(actor, 'host-admin');
    if (p.tenantId === id) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'You cannot delete the tenant your own principal belongs to.');
    return writeTransaction(this.ds, {}, async (m) => {
      const before = await m.getRepository(TenantEntity).findOne({ where: { id } });
      if (!before) throw notFound('tenant');
      await m.getRepository(TenantEntity).delete({ id });
      await writeAudit(m, { targetType: 'tenant', targetId: id, tenantId: id, before: { ...before } });
      await bumpCatalogVersion(m);
      return true;
    });
  }

  async createPrincipal(actor: Principal | null, tenantId: string, name: string, role: Role, opts: { uniqueName?: boolean } = {}): Promise<CreatedPrincipal> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    if (p.role !== 'host-admin' && role === 'host-admin') {
      throw new CatalogError(CatalogErrorCode.Forbidden, 'Only a host admin can create host-admin principals.');
    }
    const scope = tenantScopeOf(p);
    if (scope && scope !== tenantId) throw notFound('tenant');
    return this.createPrincipalUnchecked(tenantId, name, role, opts);
  }

  /**
   * `uniqueName` (issue 19; `toolcat keys create`): a name an active principal of the tenant already has is refused,
   * so `keys revoke --name` and the audit log name one key. GraphQL keeps accepting repeated names (existing clients).
   */
  async createPrincipalUnchecked(tenantId: string, name: string, role: Role, opts: { uniqueName?: boolean } = {}): Promise<CreatedPrincipal> {
    if (!PRINCIPAL_NAME_PATTERN.test(name)) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Principal names are 1-128 characters of letters, digits, space and ._@-');
    }
    if (!isRole(role)) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'role must be agent, tenant-admin or host-admin');
    // A tenant deleted after the check fails the foreign key: NOT_FOUND as well (issue 12 defect 5).
    return writeTransaction(this.ds, { refersTo: 'tenant' }, async (m) => {
      if (!(await m.getRepository(TenantEntity).findOne({ where: { id: tenantId } }))) throw notFound('tenant');
      if (opts.uniqueName && (await m.getRepository(PrincipalEntity).findOne({ where: { tenantId, name, revokedAt: IsNull() } }))) {
        throw new CatalogError(CatalogErrorCode.Conflict, `The tenant already has an active principal named "${name}"; choose another name or revoke that one first.`);
      }
      const key = generateApiKey();
      const repo = m.getRepository(PrincipalEntity);
      const principal = await repo.save(
        repo.create({ id: randomUUID(), tenantId, name, role, keyHash: key.hash, keyPrefix: key.prefix, createdAt: nowIso(), revokedAt: null }),
      );
      await writeAudit(m, { targetType: 'principal', targetId: principal.id, tenantId, after: publicPrincipal(principal) }, 'createPrincipal');
      return { principal, apiKey: key.key };
    });
  }

  async listPrincipals(actor: Principal | null, tenantId: string): Promise<PrincipalEntity[]> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    if (scope && scope !== tenantId) return [];
    return this.ds.getRepository(PrincipalEntity).find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * The subject of an admin preview, inside the actor's scope: a stored principal by id, or the principal a JWT
   * with these claims would be (issue 11 defect 7), mapped by exactly the authenticator's rules. Out of scope is
   * not found, as for anything else an admin cannot see.
   */
  async previewSubject(
    actor: Principal,
    subject: { principalId: string | null; claims: Readonly<Record<string, unknown>> | null },
    fromClaims: ((claims: Readonly<Record<string, unknown>>) => Promise<Principal | string>) | null,
  ): Promise<Principal> {
    if ((subject.principalId === null) === (subject.claims === null)) {
      throw new CatalogError(CatalogErrorCode.InvalidArgument, 'Give exactly one of principalId (a stored principal) and claims (a JWT payload).');
    }
    const scope = tenantScopeOf(actor);
    if (subject.claims !== null) {
      if (!fromClaims) throw new CatalogError(CatalogErrorCode.InvalidArgument, 'OIDC/JWT is not configured (TOOLCAT_JWT_ISSUER), so no principal can be described by claims.');
      const p = await fromClaims(subject.claims);
      // A tenant admin is told nothing about claims outside its tenant: "no tenant has that name" would say which
      // names other tenants have (red team, issue 20), so for it every claims that describe nobody in its scope are
      // not found, with the same bytes as another tenant's. A host admin sees everything and gets the reason.
      if (typeof p === 'string') throw scope ? notFound('principal') : new CatalogError(CatalogErrorCode.InvalidArgument, `No principal: ${p}.`);
      if (scope && p.tenantId !== scope) throw notFound('principal');
      return p;
    }
    const row = await this.ds.getRepository(PrincipalEntity).findOne({ where: scope ? { id: subject.principalId!, tenantId: scope } : { id: subject.principalId! } });
    const tenant = row ? await this.ds.getRepository(TenantEntity).findOne({ where: { id: row.tenantId } }) : null;
    if (!row || !tenant || !isRole(row.role)) throw notFound('principal');
    return { id: row.id, kind: 'api-key', tenantId: row.tenantId, tenantName: tenant.name, name: row.name, role: row.role, groups: [] };
  }

  /** Bootstrap path (demo): revokes the named principals of a tenant. */
  async revokeByNameUnchecked(tenantId: string, names: readonly string[]): Promise<number> {
    return writeTransaction(this.ds, {}, async (m) => {
      const rows = (await m.getRepository(PrincipalEntity).find({ where: { tenantId } })).filter((r) => names.includes(r.name) && !r.revokedAt);
      for (const row of rows) {
        const before = publicPrincipal(row);
        row.revokedAt = nowIso();
        await m.getRepository(PrincipalEntity).save(row);
        await writeAudit(m, { targetType: 'principal', targetId: row.id, tenantId, before, after: publicPrincipal(row) }, 'revokePrincipal');
      }
      await bumpCatalogVersion(m);
      return rows.length;
    });
  }

  async revokePrincipal(actor: Principal | null, id: string): Promise<PrincipalEntity> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    return writeTransaction(this.ds, {}, async (m) => {
      const repo = m.getRepository(PrincipalEntity);
      const row = await repo.findOne({ where: scope ? { id, tenantId: scope } : { id } });
      if (!row) throw notFound('principal');
      if (row.role === 'host-admin' && p.role !== 'host-admin') throw notFound('principal');
      const before = publicPrincipal(row);
      if (!row.revokedAt) {
        row.revokedAt = nowIso();
        await repo.save(row);
        await bumpCatalogVersion(m);
      }
      await writeAudit(m, { targetType: 'principal', targetId: row.id, tenantId: row.tenantId, before, after: publicPrincipal(row) });
      return row;
    });
  }
}

/** What the audit log keeps of a principal: never the key hash. */
function publicPrincipal(p: PrincipalEntity): Record<string, unknown> {
  return { id: p.id, tenantId: p.tenantId, name: p.name, role: p.role, keyPrefix: p.keyPrefix, createdAt: p.createdAt, revokedAt: p.revokedAt };
}
