import { join } from 'node:path';
import type { App } from '../app';

const DEMO_TENANT = 'demo';
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
  await tenancy.revokeByNameUnchecked(tenant.id, ['demo-agent', 'demo-admin']);
  const agent = await tenancy.createPrincipalUnchecked(tenant.id, 'demo-agent', 'agent');
  const admin = await tenancy.createPrincipalUnchecked(tenant.id, 'demo-admin', 'host-admin');
  return { agentKey: agent.apiKey, adminKey: admin.apiKey };
}
