import type { TestHost } from '../helpers/test-host';
import { aGrant, aPrincipal, aTenantWithKey, anExtension } from '../helpers/test-host';

/**
 * The shared conformance fixture: four tenants with overlapping and disjoint grants, global and
 * tenant-scoped host extensions, and MCP tools whose upstream hints lie.
 *
 *   acme     ext.* up to write, plus every mcp.github.* tool (source mcp); one acme principal is narrowed to ext.c*
 *   globex   ext.calculator, ext.read_file, mcp.github.list_issues      (overlaps acme)
 *   initech  ext.run_shell                                               (disjoint from globex)
 *   hooli    *                                                           (everything global, nothing of acme's)
 */
export interface Scenario {
  readonly acme: Party;
  readonly acmeNarrow: Party;
  readonly globex: Party;
  readonly initech: Party;
  readonly hooli: Party;
}
interface Party {
  readonly tenantId: string;
  readonly principalId: string;
  readonly key: string;
}

const GITHUB_TOOLS = [
  {
    name: 'create_issue',
    description: 'Create an issue',
    inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title'] },
    // Lies: creating issues is not read-only. TC-DESC-5 says these are never copied.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'list_issues',
    description: 'List issues',
    inputSchema: { type: 'object', properties: { state: { type: 'string', enum: ['open', 'closed'] } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'delete_repo',
    description: 'Delete a repository',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' } }, required: ['repo'] },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
];

const GLOBAL_EXTENSIONS = [
  { name: 'calculator', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
  { name: 'read_file', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' },
  { name: 'web_fetch', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'restricted' },
  { name: 'write_file', safetyTier: 'write', replayPolicy: 'idempotent', egress: 'none' },
  { name: 'run_shell', safetyTier: 'exec', replayPolicy: 'non-idempotent', egress: 'restricted' },
  // Names that sort differently in code-unit order than in most locales (TC-CAT-7).
  { name: 'Zeta', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
  { name: 'a_b', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
  { name: 'a-b', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' },
] as const;

/** Registers an MCP source that is never contacted (disabled): its listings are applied directly. */
export async function aSimulatedSource(host: TestHost, name: string, tenantId?: string): Promise<void> {
  await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
    i: { name, transport: 'stdio', command: 'simulated-not-run', enabled: false, syncIntervalSeconds: 0, tenantId },
  });
}

/** Applies a listing through the same snapshot path a real sync takes after tools/list. */
export async function applyListing(host: TestHost, source: string, tools: readonly unknown[]) {
  return host.app.services.snapshots.apply(source, tools);
}

export async function ingestGithub(host: TestHost, order: 'forward' | 'reversed' = 'forward'): Promise<void> {
  const known = await host.gqlOk<{ source: { name: string } | null }>('{ source(name: "github") { name } }');
  if (!known.source) await aSimulatedSource(host, 'github');
  const tools = order === 'forward' ? GITHUB_TOOLS : [...GITHUB_TOOLS].reverse();
  const out = await applyListing(host, 'github', tools);
  if (out.quarantined) throw new Error('unexpected quarantine');
}

export async function buildScenario(host: TestHost): Promise<Scenario> {
  for (const x of GLOBAL_EXTENSIONS) await anExtension(host, { ...x });
  await ingestGithub(host);
  const acme = await aTenantWithKey(host, 'acme');
  const globex = await aTenantWithKey(host, 'globex');
  const initech = await aTenantWithKey(host, 'initech');
  const hooli = await aTenantWithKey(host, 'hooli');
  await anExtension(host, { name: 'acme_only', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: acme.tenantId });

  await aGrant(host, { tenantId: acme.tenantId, toolPattern: 'ext.*', maxSafetyTier: 'write' });
  await aGrant(host, { tenantId: acme.tenantId, toolPattern: 'mcp.github.*', source: 'mcp' });
  const narrow = await aPrincipal(host, acme.tenantId, 'acme-narrow');
  await aGrant(host, { tenantId: acme.tenantId, principalId: narrow.principalId, toolPattern: 'ext.c*' });
  for (const p of ['ext.calculator', 'ext.read_file', 'mcp.github.list_issues']) await aGrant(host, { tenantId: globex.tenantId, toolPattern: p });
  await aGrant(host, { tenantId: initech.tenantId, toolPattern: 'ext.run_shell' });
  await aGrant(host, { tenantId: hooli.tenantId, toolPattern: '*' });
  return { acme, acmeNarrow: { tenantId: acme.tenantId, ...narrow }, globex, initech, hooli };
}

/** What each party may see, written out literally (sorted in code-unit order). */
export const EXPECTED_VISIBLE: Readonly<Record<keyof Scenario, readonly string[]>> = {
  acme: [
    'ext.Zeta', 'ext.a-b', 'ext.a_b', 'ext.acme_only', 'ext.calculator', 'ext.read_file', 'ext.web_fetch', 'ext.write_file',
    'mcp.github.create_issue', 'mcp.github.delete_repo', 'mcp.github.list_issues',
  ],
  acmeNarrow: ['ext.calculator'],
  globex: ['ext.calculator', 'ext.read_file', 'mcp.github.list_issues'],
  initech: ['ext.run_shell'],
  hooli: [
    'ext.Zeta', 'ext.a-b', 'ext.a_b', 'ext.calculator', 'ext.read_file', 'ext.run_shell', 'ext.web_fetch', 'ext.write_file',
    'mcp.github.create_issue', 'mcp.github.delete_repo', 'mcp.github.list_issues',
  ],
};
