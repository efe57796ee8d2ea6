/**
 * Issue 20: the console previews a grant before it is saved. previewTools(draftGrants:) must answer exactly what the
 * principal's own GET /tools answers once those grants are saved (same tools, same descriptor bytes, both views),
 * refuse what createGrant refuses (pattern, ceiling, another tenant), and save nothing: no grant, no audit row, no
 * catalog change (the ETag of GET /tools stays). Property-tested over random draft sets (fast-check, seed printed).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_DRAFT_GRANTS } from '../../src/services/grant.service';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

const SEED = Number(process.env.DRAFT_PREVIEW_SEED ?? 20_001);
const NUM_RUNS = 12;
const FIELDS = 'toolId name title description source safetyTier replayPolicy egress inputSchema outputSchema annotations { readOnlyHint destructiveHint idempotentHint openWorldHint }';
const COMPACT = 'toolId name description source safetyTier replayPolicy egress inputSchema annotations { readOnlyHint destructiveHint idempotentHint openWorldHint }';
const PREVIEW = `query($p: ID!, $d: [DraftGrantInput!], $v: String) { previewTools(principalId: $p, draftGrants: $d, view: $v) { appliedView tools { ... on ToolDescriptor { ${FIELDS} } ... on CompactToolDescriptor { ${COMPACT} } } } }`;

/** GraphQL answers every selected field (null where absent); REST leaves absent fields out. */
const withoutNulls = (tools: Array<Record<string, unknown>>) => tools.map((t) => Object.fromEntries(Object.entries(t).filter(([, v]) => v !== null)));

forEachDatabase('issue 20: previewTools(draftGrants:), a grant previewed before it is saved', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let tenant: { tenantId: string; principalId: string; key: string };
  let admin: { principalId: string; key: string };
  let other: { tenantId: string; principalId: string; key: string };

  before(async function () {
    this.timeout(60000);
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db);
    for (const [name, safetyTier] of [['alpha', 'pure'], ['beta', 'read'], ['gamma', 'write'], ['delta', 'read'], ['alpine', 'write']] as const) {
      await anExtension(host, { name, safetyTier, replayPolicy: 'idempotent', egress: 'none' });
    }
    tenant = await aTenantWithKey(host, 'draft-acme');
    admin = await aPrincipal(host, tenant.tenantId, 'draft-acme-admin', 'tenant-admin');
    other = await aTenantWithKey(host, 'draft-globex');
    await aGrant(host, { tenantId: tenant.tenantId, toolPattern: 'ext.al*' });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  const state = async () => {
    const grants = await host.gqlOk<{ grants: unknown[] }>('query($t: ID!) { grants(tenantId: $t) { id } }', { t: tenant.tenantId });
    const audit = await host.gqlOk<{ auditLog: unknown[] }>('{ auditLog(first: 500) { id } }');
    return { grants: grants.grants.length, audit: audit.auditLog.length, etag: (await host.get('/tools', tenant.key)).headers.get('etag') };
  };

  it(`equals the principal's own GET /tools once the drafts are saved, in both views, and saves nothing (${NUM_RUNS} runs, seed ${SEED})`, async function () {
    this.timeout(120000);
    const draft = fc.record({
      toolPattern: fc.constantFrom('ext.*', 'ext.a*', 'ext.beta', 'ext.*ta', 'ext.gamma', 'nothing.*'),
      maxSafetyTier: fc.constantFrom(null, 'pure', 'read', 'write'),
      narrow: fc.boolean(),
    });
    console.log(`      draft preview [${database.name}] seed ${SEED}`);
    await fc.assert(
      fc.asyncProperty(fc.array(draft, { minLength: 1, maxLength: 3 }), async (drafts) => {
        const input = drafts.map((d) => ({ toolPattern: d.toolPattern, maxSafetyTier: d.maxSafetyTier, principalId: d.narrow ? tenant.principalId : null }));
        const before = await state();
        const previews: Record<string, unknown> = {};
        for (const v of ['standard', 'compact']) {
          previews[v] = (await host.gqlOk<{ previewTools: { tools: Array<Record<string, unknown>> } }>(PREVIEW, { p: tenant.principalId, d: input, v }, admin.key)).previewTools.tools;
        }
        expect(await state(), 'a preview saves nothing').to.deep.equal(before);
        const ids: string[] = [];
        for (const i of input) ids.push(await aGrant(host, { tenantId: tenant.tenantId, ...i, principalId: i.principalId ?? undefined, maxSafetyTier: i.maxSafetyTier ?? undefined }));
        try {
          expect(withoutNulls(previews.standard as Array<Record<string, unknown>>)).to.deep.equal((await host.get('/tools', tenant.key)).json());
          expect(withoutNulls(previews.compact as Array<Record<string, unknown>>)).to.deep.equal(((await host.get('/tools?view=compact', tenant.key)).json() as { tools: unknown[] }).tools);
        } finally {
          for (const id of ids) await host.gqlOk('mutation($id: ID!) { deleteGrant(id: $id) }', { id });
        }
      }),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
    );
  });

  it('refuses what createGrant refuses: a bad pattern, a grant past the ceiling, a principal or tenant out of scope', async () => {
    const ask = (d: Record<string, unknown>, p = tenant.principalId, key = admin.key) => host.gql(PREVIEW, { p, d: [d] }, key);
    expect((await ask({ toolPattern: 'bad pattern!' })).errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    expect((await ask({ toolPattern: 'ext.*', principalId: other.principalId })).errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    expect((await ask({ toolPattern: 'ext.*' }, other.principalId)).errors?.[0]?.extensions?.code, "another tenant's principal").to.equal('NOT_FOUND');
    await host.gqlOk('mutation($t: ID!) { setTenantCeiling(tenantId: $t, entries: [{ toolPattern: "ext.*", maxSafetyTier: "read" }]) { toolPattern } }', { t: tenant.tenantId });
    try {
      const past = await ask({ toolPattern: 'ext.*' });
      expect(past.errors?.[0]?.extensions?.code).to.equal('CEILING_EXCEEDED');
      const inside = await host.gqlOk<{ previewTools: { tools: Array<{ toolId: string }> } }>(PREVIEW, { p: tenant.principalId, d: [{ toolPattern: 'ext.*', maxSafetyTier: 'read' }] }, admin.key);
      expect(inside.previewTools.tools.map((t) => t.toolId)).to.deep.equal(['ext.alpha', 'ext.beta', 'ext.delta']);
    } finally {
      await host.gqlOk('mutation($t: ID!) { setTenantCeiling(tenantId: $t, entries: [{ toolPattern: "*" }]) { toolPattern } }', { t: tenant.tenantId });
    }
  });

  it(`refuses more than ${MAX_DRAFT_GRANTS} drafts at once, before any is inserted (red team: 15,000 drafts held the write lock for seconds)`, async () => {
    const before = await state();
    const drafts = (n: number) => Array.from({ length: n }, (_, i) => ({ toolPattern: `x${i}.*` }));
    const over = await host.gql(PREVIEW, { p: tenant.principalId, d: drafts(MAX_DRAFT_GRANTS + 1) }, admin.key);
    expect(over.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    expect(over.errors?.[0]?.message).to.equal(`draftGrants holds ${MAX_DRAFT_GRANTS + 1} grants; a preview takes at most ${MAX_DRAFT_GRANTS}.`);
    const atBound = await host.gqlOk<{ previewTools: { tools: Array<{ toolId: string }> } }>(PREVIEW, { p: tenant.principalId, d: drafts(MAX_DRAFT_GRANTS) }, admin.key);
    expect(atBound.previewTools.tools.map((t) => t.toolId)).to.deep.equal(['ext.alpha', 'ext.alpine']);
    expect(await state(), 'nothing saved').to.deep.equal(before);
  });
});
