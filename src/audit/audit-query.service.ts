import type { DataSource } from 'typeorm';
import type { Principal } from '../catalog/principal';
import { AuditEntity } from '../persistence/audit.entity';
import { logPage } from '../persistence/log-page';
import { requireRole, tenantScopeOf } from '../catalog/admin-scope';
import { auditTargetId, writeAudit } from './audit';

/** Reading the audit log: host admins see every row, tenant admins the rows of their tenant (scoped in the query). */
export class AuditQueryService {
  constructor(private readonly ds: DataSource) {}

  async list(actor: Principal | null, filter: { first: number; offset: number; action?: string | null; targetId?: string | null }): Promise<AuditEntity[]> {
    const p = requireRole(actor, 'host-admin', 'tenant-admin');
    const scope = tenantScopeOf(p);
    const where: Record<string, string> = {};
    if (scope) where.tenantId = scope;
    if (filter.action) where.action = filter.action;
    if (filter.targetId) where.targetId = auditTargetId(filter.targetId);
    return this.ds.getRepository(AuditEntity).find({
      where,
      order: { at: 'DESC', seq: 'DESC' },
      ...logPage(filter.first, filter.offset),
    });
  }

  /** For operations that are not one transaction of their own (an on-demand sync): a row of its own. */
  async record(change: Parameters<typeof writeAudit>[1]): Promise<void> {
    await this.ds.transaction((m) => writeAudit(m, change));
  }
}
