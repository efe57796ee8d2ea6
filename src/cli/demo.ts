import { join } from 'node:path';
import type { App } from '../app';
import { PrincipalEntity } from '../persistence/principal.entity';

export const DEMO_TENANT = 'demo';
export const DEMO_EXTENSIONS_FILE = join(__dirname, '..', '..', '..', 'demo', 'extensions.yaml');

/**
 * Demo bootstrap: a `demo` tenant granted every tool, and fresh agent and host-admin keys printed once.
 * Earlier demo keys are revoked, so only the keys of the running demo work.
 */
export async function seedDemo(app: App): Promise<{ agentKey: string; adminKey: string }> {
  const { tenancy, grants } = app.services;
  let tenant = await tenancy.findTenantByName(DEMO_TENANT);
  if (!tenant) {
    tenant = await tenancy.createTenantUnchecked(DEMO_TENANT);
    await grants.createGrantUnchecked({ tenantId: tenant.id, toolPattern: '*' });
  }
  await app.dataSource
    .createQueryBuilder()
    .update(PrincipalEntity)
    .set({ revokedAt: new Date().toISOString() })
    .where('tenant_id = :tenantId AND name IN (:...names) AND revoked_at IS NULL', { tenantId: tenant.id, names: ['demo-agent', 'demo-admin'] })
    .execute();
  const agent = await tenancy.createPrincipalUnchecked(tenant.id, 'demo-agent', 'agent');
  const admin = await tenancy.createPrincipalUnchecked(tenant.id, 'demo-admin', 'host-admin');
  return { agentKey: agent.apiKey, adminKey: admin.apiKey };
}
