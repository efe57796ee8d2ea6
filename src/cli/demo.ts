import { join } from 'node:path';
import type { App } from '../app';

const DEMO_TENANT = 'demo';
export const DEMO_EXTENSIONS_FILE = join(__dirname, '..', '..', '..', 'demo', 'extensions.yaml');

/**
 * Demo bootstrap: a `demo` tenant granted every tool, and fresh agent and host-admin keys printed once.
 * Earlier demo keys are revoked, so only the keys of the running demo work (and the banner says so).
 */
export async function seedDemo(app: App): Promise<{ agentKey: string; adminKey: string; replaced: number }> {
  const { tenancy, grants } = app.services;
  let tenant = await tenancy.findTenantByName(DEMO_TENANT);
  if (!tenant) {
    tenant = await tenancy.createTenantUnchecked(DEMO_TENANT);
    await grants.createGrantUnchecked({ tenantId: tenant.id, toolPattern: '*' });
  }
  const replaced = await tenancy.revokeByNameUnchecked(tenant.id, ['demo-agent', 'demo-admin']);
  const agent = await tenancy.createPrincipalUnchecked(tenant.id, 'demo-agent', 'agent');
  const admin = await tenancy.createPrincipalUnchecked(tenant.id, 'demo-admin', 'host-admin');
  return { agentKey: agent.apiKey, adminKey: admin.apiKey, replaced };
}

/**
 * What `serve --demo` prints (stderr). Issue 19: it says that these keys replace the ones an earlier demo run
 * printed, which stop working now.
 */
export function demoBanner(url: string, keys: { agentKey: string; adminKey: string; replaced: number }, workspace: string): string {
  const replaced = keys.replaced
    ? `  These keys replace the demo keys printed by an earlier run (${keys.replaced} revoked; they no longer work).\n`
    : '';
  return (
    `\ntoolcat demo is running at ${url}\n` +
    `  agent key (tenant "demo"): ${keys.agentKey}\n` +
    `  host-admin key:            ${keys.adminKey}\n` +
    replaced +
    `\n  curl -H "Authorization: Bearer ${keys.agentKey}" ${url}/tools\n` +
    `  curl -H "Authorization: Bearer ${keys.agentKey}" -H "Content-Type: application/json" \\\n` +
    `       -d '{"arguments":{"expression":"(2 + 3) * 4"}}' ${url}/tools/ext.calculator/calls\n` +
    `  demo workspaces (read_file, write_file; one folder per tenant): ${workspace}\n` +
    `  admin console:             ${url}/admin/  (sign in with the host-admin key)\n` +
    `  GraphQL IDE:               ${url}/graphql  (in a browser: GraphiQL unless TOOLCAT_GRAPHQL_IDE says otherwise; give it the host-admin key)\n\n`
  );
}
