import { randomBytes } from 'node:crypto';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { type Classification, EGRESS_VALUES, REPLAY_POLICIES, SAFETY_TIERS } from '../catalog/descriptor';
import { type Role, isRole } from '../catalog/principal';
import type { App } from '../app';
import { compareCodeUnits } from '../catalog/stable-compare';
import { ownerOfOrigin } from '../services/ownership';
import { UsageError } from './exit-codes';
import { printObject, printRows, withOperator } from './operator';

/**
 * The operator's admin commands (issue 19): tenants, keys, grants, sources, tools, audit. Each runs through the
 * services GraphQL uses, as a host admin, audited with the operator as the actor. Loaded only when one runs.
 */
interface Json {
  readonly json?: boolean;
}

async function tenantNamed(app: App, name: string) {
  const t = await app.services.tenancy.findTenantByName(name);
  if (!t) throw new CatalogError(CatalogErrorCode.NotFound, `no tenant named "${name}"`);
  return t;
}

export const tenants = {
  list: (o: Json) =>
    withOperator('tenants list', async (app, op) => {
      const rows = await app.services.tenancy.listTenants(op);
      printRows(rows.map((t) => ({ id: t.id, name: t.name, createdAt: t.createdAt })), ['id', 'name', 'createdAt'], o.json);
    }),
  create: (name: string, o: Json) =>
    withOperator('tenants create', async (app, op) => {
      const t = await app.services.tenancy.createTenant(op, name);
      if (o.json) printObject({ id: t.id, name: t.name, createdAt: t.createdAt }, true);
      else process.stdout.write(`${t.id}\n`);
    }),
  delete: (name: string, o: Json) =>
    withOperator('tenants delete', async (app, op) => {
      const t = await tenantNamed(app, name);
      await app.services.tenancy.deleteTenant(op, t.id);
      if (o.json) printObject({ id: t.id, name: t.name, deleted: true }, true);
      else process.stderr.write(`deleted tenant ${name} (${t.id}) with its keys and grants\n`);
    }),
};

export const keys = {
  list: (o: Json & { tenant: string; all?: boolean }) =>
    withOperator('keys list', async (app, op) => {
      const t = await tenantNamed(app, o.tenant);
      const rows = (await app.services.tenancy.listPrincipals(op, t.id)).filter((p) => o.all || !p.revokedAt);
      printRows(rows.map((p) => ({ id: p.id, name: p.name, role: p.role, keyPrefix: p.keyPrefix, createdAt: p.createdAt, revokedAt: p.revokedAt })), ['id', 'name', 'role', 'keyPrefix', 'createdAt', 'revokedAt'], o.json);
    }),
  create: (o: Json & { tenant: string; name?: string; admin?: boolean; role?: string }) => {
    // Issue 19: --admin means --role host-admin; both with different roles is a contradiction, refused.
    if (o.admin && o.role !== undefined && o.role !== 'host-admin') throw new UsageError(`--admin (host-admin) conflicts with --role ${o.role}; give one of them`);
    const role = o.admin ? 'host-admin' : (o.role ?? 'agent');
    if (!isRole(role)) throw new UsageError(`--role must be one of agent, tenant-admin, host-admin (got "${role}")`);
    return withOperator('keys create', async (app, op) => {
      const t = await tenantNamed(app, o.tenant);
      const created = await app.services.tenancy.createPrincipal(op, t.id, o.name ?? `${role}-${randomBytes(3).toString('hex')}`, role as Role, { uniqueName: true });
      if (o.json) printObject({ id: created.principal.id, name: created.principal.name, role: created.principal.role, tenant: t.name, apiKey: created.apiKey }, true);
      else process.stdout.write(`${created.apiKey}\n`);
    });
  },
  revoke: (id: string | undefined, o: Json & { tenant?: string; name?: string }) => {
    if (id !== undefined && (o.name !== undefined || o.tenant !== undefined)) throw new UsageError('give a principal id, or --tenant and --name, not both');
    if (id === undefined && (o.name === undefined || o.tenant === undefined)) throw new UsageError('give a principal id, or --tenant and --name');
    return withOperator('keys revoke', async (app, op) => {
      let principalId = id;
      if (principalId === undefined) {
        const t = await tenantNamed(app, o.tenant!);
        const p = (await app.services.tenancy.listPrincipals(op, t.id)).find((x) => x.name === o.name && !x.revokedAt);
        if (!p) throw new CatalogError(CatalogErrorCode.NotFound, `no active key named "${o.name}" in tenant "${o.tenant}"`);
        principalId = p.id;
      }
      const row = await app.services.tenancy.revokePrincipal(op, principalId);
      if (o.json) printObject({ id: row.id, name: row.name, revokedAt: row.revokedAt }, true);
      else process.stderr.write(`revoked ${row.name} (${row.id})\n`);
    });
  },
};

export const grants = {
  list: (o: Json & { tenant: string }) =>
    withOperator('grants list', async (app, op) => {
      const t = await tenantNamed(app, o.tenant);
      const rows = await app.services.grants.listGrants(op, t.id);
      printRows(
        rows.map((g) => ({ id: g.id, pattern: g.toolPattern, source: g.source, maxTier: g.maxSafetyTier, principalId: g.principalId, group: g.groupName, withinCeiling: g.withinCeiling })),
        ['id', 'pattern', 'source', 'maxTier', 'principalId', 'group', 'withinCeiling'],
        o.json,
      );
    }),
  create: (o: Json & { tenant: string; pattern: string; source?: string; maxTier?: string; principal?: string; group?: string }) => {
    if (o.principal !== undefined && o.group !== undefined) throw new UsageError('--principal and --group conflict: a grant narrows to one principal or one group');
    return withOperator('grants create', async (app, op) => {
      const t = await tenantNamed(app, o.tenant);
      const g = await app.services.grants.createGrant(op, { tenantId: t.id, toolPattern: o.pattern, source: o.source, maxSafetyTier: o.maxTier, principalId: o.principal, group: o.group });
      if (o.json) printObject({ id: g.id, tenant: t.name, pattern: g.toolPattern, source: g.source, maxTier: g.maxSafetyTier }, true);
      else process.stdout.write(`${g.id}\n`);
    });
  },
  delete: (id: string, o: Json) =>
    withOperator('grants delete', async (app, op) => {
      await app.services.grants.deleteGrant(op, id);
      if (o.json) printObject({ id, deleted: true }, true);
      else process.stderr.write(`deleted grant ${id}\n`);
    }),
};

export const sources = {
  list: (o: Json) =>
    withOperator('sources list', async (app, op) => {
      const rows = await app.services.sources.list(op);
      printRows(
        rows.map((s) => ({ name: s.name, transport: s.transport, owner: ownerOfOrigin(s.origin), enabled: Boolean(s.enabled), status: s.status, tools: s.toolCount, quarantined: s.quarantinedCount, lastSyncAt: s.lastSyncAt })),
        ['name', 'transport', 'owner', 'enabled', 'status', 'tools', 'quarantined', 'lastSyncAt'],
        o.json,
      );
    }),
  remove: (name: string, o: Json) =>
    withOperator('sources remove', async (app, op) => {
      await app.services.sources.remove(op, name);
      if (o.json) printObject({ name, removed: true }, true);
      else process.stderr.write(`removed source ${name} and the tools it served\n`);
    }),
};

const TIERS: readonly string[] = SAFETY_TIERS;
const REPLAY: readonly string[] = REPLAY_POLICIES;
const EGRESS: readonly string[] = EGRESS_VALUES;

export const tools = {
  list: (o: Json & { source?: string }) =>
    withOperator('tools list', async (app, op) => {
      const own = await app.services.toolAdmin.ownership(op);
      const rows = (await app.services.toolAdmin.listTools(op))
        .filter((r) => !o.source || r.source === o.source)
        .sort((a, b) => compareCodeUnits(a.toolId, b.toolId))
        .map((r) => {
          const { owner, classificationOwner } = own(r);
          return { toolId: r.toolId, source: r.source, owner, safetyTier: r.classification.safetyTier, replayPolicy: r.classification.replayPolicy, egress: r.classification.egress, classified: r.classified, classificationOwner };
        });
      printRows(rows, ['toolId', 'source', 'owner', 'safetyTier', 'replayPolicy', 'egress', 'classificationOwner'], o.json);
    }),
  classify: (toolId: string, o: Json & { tier: string; replay: string; egress: string }) => {
    const bad = [
      ['--tier', o.tier, TIERS],
      ['--replay', o.replay, REPLAY],
      ['--egress', o.egress, EGRESS],
    ].find(([, v, allowed]) => !(allowed as string[]).includes(v as string));
    if (bad) throw new UsageError(`${bad[0] as string} must be one of ${(bad[2] as string[]).join(', ')} (got "${bad[1] as string}")`);
    return withOperator('tools classify', async (app, op) => {
      const r = await app.services.toolAdmin.classifyTool(op, toolId, { safetyTier: o.tier, replayPolicy: o.replay, egress: o.egress } as Classification);
      if (o.json) printObject({ toolId: r.toolId, ...r.classification }, true);
      else process.stderr.write(`classified ${r.toolId}: ${r.classification.safetyTier}/${r.classification.replayPolicy}/${r.classification.egress}\n`);
    });
  },
  unclassify: (toolId: string, o: Json) =>
    withOperator('tools unclassify', async (app, op) => {
      const r = await app.services.toolAdmin.unclassifyTool(op, toolId);
      if (o.json) printObject({ toolId: r.toolId, ...r.classification, classified: r.classified }, true);
      else process.stderr.write(`unclassified ${r.toolId}: now ${r.classification.safetyTier} (the fail-closed default)\n`);
    }),
};

export function audit(o: Json & { first: string; action?: string; target?: string }): Promise<void> {
  const first = Number(o.first);
  if (!Number.isInteger(first) || first < 1 || first > 500) throw new UsageError(`--first must be an integer from 1 to 500 (got "${o.first}")`);
  return withOperator('audit', async (app, op) => {
    const rows = await app.services.audit.list(op, { first, offset: 0, action: o.action ?? null, targetId: o.target ?? null });
    printRows(
      rows.map((r) => ({ at: r.at, actor: r.actorName, role: r.actorRole, action: r.action, targetType: r.targetType, targetId: r.targetId, ...(o.json ? { before: parse(r.before), after: parse(r.after) } : {}) })),
      ['at', 'actor', 'action', 'targetType', 'targetId'],
      o.json,
    );
  });
}

function parse(text: string | null): unknown {
  return text === null ? null : (JSON.parse(text) as unknown);
}
