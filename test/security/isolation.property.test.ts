/**
 * Tenant isolation as a property (issue 5; TC-CAT-3, TC-CAT-4, TC-VIEW-2): random tenants, principals (some
 * narrowed by their own grants), grants (`*` patterns, source, maxSafetyTier) and tools (host extensions with
 * random tiers, MCP tools classified or not, global or tenant-scoped) are put into one real host; every
 * principal must then see exactly what an independent in-test model of the README rules says, on REST and
 * GraphQL, and every other id must be a 404 indistinguishable from an id that never existed.
 * One host per database; every fast-check run gets its own name prefix, and the model keeps every tool ever
 * created in the host, so runs also check each other (a generic `*` grant sees earlier runs' global tools).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { forEachDatabase } from '../helpers/databases';
import { expectCompactList, expectStandardDescriptor, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aPrincipal, anExtension, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';
import { TIERS, type Tier, runRequests, visibleTo } from './model';
import type { ModelGrant, ModelTool } from './model';

const NUM_RUNS = Number(process.env.ISOLATION_RUNS ?? 20);
const EXT_NAMES = ['calc', 'Calc', 'a_b', 'a-b', 'dot.x', 'shell'] as const; // case, `_` vs `-`, dots
const MCP_NAMES = [['list', 'list'], ['create_issue', 'create_issue'], ['Create_Issue', 'Create_Issue'], ['weird name/ü', 'weird~20name~2F~C3~BC'], ['a.b', 'a.b']] as const;
const GENERIC_PATTERNS = ['*', 'ext.*', 'mcp.*', '*_b', '*a*', '*.*.*', 'mcp.*.list', '*Calc', '*~*'];
const SOURCES = [null, 'mcp', 'host-extension'] as const;
const tierArb = fc.constantFrom(...TIERS);
// Per-request values that do not depend on the tool: the clock, the request id, the caller's remaining budget.
const IGNORED_HEADERS = new Set(['date', 'x-request-id', 'keep-alive', 'connection', 'ratelimit-remaining']);

/** Per run: template ids use `{p}` for the run prefix (`r7`), so shrinking re-runs never collide. */
const templateIds = (): string[] => [
  ...EXT_NAMES.map((n) => `ext.{p}_${n}`),
  ...[0, 1].flatMap((s) => MCP_NAMES.map(([, esc]) => `mcp.{p}-s${s}.${esc}`)),
];
const TEMPLATES = templateIds();

const patternArb = fc.oneof(
  { weight: 2, arbitrary: fc.nat(TEMPLATES.length - 1).map((i) => ({ t: TEMPLATES[i], cuts: [] as Array<[number, number]> })) },
  {
    weight: 5,
    arbitrary: fc.record({ i: fc.nat(TEMPLATES.length - 1), cuts: fc.array(fc.tuple(fc.nat(40), fc.nat(8)), { minLength: 1, maxLength: 2 }) }).map(({ i, cuts }) => ({ t: TEMPLATES[i], cuts })),
  },
  { weight: 2, arbitrary: fc.constantFrom(...GENERIC_PATTERNS).map((t) => ({ t, cuts: [] as Array<[number, number]> })) },
  // Prefix grants (`ext.r7*`, `mcp.r7-s1*`): broad within the run, nothing of other runs.
  { weight: 3, arbitrary: fc.constantFrom('ext.{p}*', 'mcp.{p}-*', 'mcp.{p}-s1*', '*.{p}*', '*{p}*').map((t) => ({ t, cuts: [] as Array<[number, number]> })) },
);
// Biased towards broad grants, so that a good share of the candidates is visible (not only 404s).
const grantArb = fc.record({
  pattern: patternArb,
  source: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 2, arbitrary: fc.constantFrom(...SOURCES.slice(1)) }),
  maxTier: fc.option(tierArb, { nil: null, freq: 2 }),
});

/** Most tools exist and are global; about a third belong to one tenant; a missing one is an unknown id. */
const presentArb = fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
const tenantOf = (n: number) => fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat(n - 1) });

const planArb = fc.integer({ min: 2, max: 5 }).chain((nTenants) =>
  fc.record({
    tenants: fc.array(
      fc.record({
        grants: fc.array(grantArb, { minLength: 0, maxLength: 4 }),
        principals: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(grantArb, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 3 }), // [] = not narrowed
      }),
      { minLength: nTenants, maxLength: nTenants },
    ),
    exts: fc.array(fc.record({ present: presentArb, tier: tierArb, tenant: tenantOf(nTenants) }), { minLength: EXT_NAMES.length, maxLength: EXT_NAMES.length }),
    sources: fc.array(
      fc.record({
        tenant: tenantOf(nTenants),
        tools: fc.array(fc.record({ present: presentArb, classify: fc.option(fc.constantFrom<Tier>('pure', 'read', 'write'), { nil: null }) }), { minLength: MCP_NAMES.length, maxLength: MCP_NAMES.length }),
      }),
      { minLength: 2, maxLength: 2 },
    ),
  }),
);
type Plan = typeof planArb extends fc.Arbitrary<infer T> ? T : never;
interface Principal {
  readonly tenantId: string;
  readonly key: string;
  readonly own: ModelGrant[];
  readonly label: string;
}

/** Turns a pattern plan into a valid grant pattern for prefix p: `*` replaces cut ranges of the id. */
function patternFor(plan: { t: string; cuts: Array<[number, number]> }, p: string): string {
  let s = plan.t.replace('{p}', p);
  for (const [at, len] of plan.cuts) {
    const i = at % (s.length + 1);
    s = `${s.slice(0, i)}*${s.slice(i + len)}`;
  }
  return s.replace(/\*+/g, '*');
}

forEachDatabase('security: tenant isolation property', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  const world: ModelTool[] = []; // every tool created in this host, across runs
  let runNo = 0;
  const totals = { runs: 0, principals: 0, idChecks: 0, gqlIdChecks: 0, visible: 0, listed: 0, rechecks: 0 };
  const earlierPrincipals: Array<{ pr: Principal; grants: ModelGrant[] }> = [];

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db);
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  async function build(plan: Plan, p: string) {
    const tenants: string[] = [];
    for (let i = 0; i < plan.tenants.length; i++) {
      tenants.push((await host.gqlOk<{ createTenant: { id: string } }>('mutation($n: String!) { createTenant(name: $n) { id } }', { n: `${p}-t${i}` })).createTenant.id);
    }
    const mine: ModelTool[] = [];
    for (const [i, e] of plan.exts.entries()) {
      if (!e.present) continue;
      const tenantId = e.tenant === null ? undefined : tenants[e.tenant];
      await anExtension(host, { name: `${p}_${EXT_NAMES[i]}`, safetyTier: e.tier, replayPolicy: 'idempotent', egress: 'none', tenantId });
      mine.push({ id: `ext.${p}_${EXT_NAMES[i]}`, source: 'host-extension', tier: e.tier, tenantId: tenantId ?? null });
    }
    for (const [s, src] of plan.sources.entries()) {
      const name = `${p}-s${s}`;
      const tenantId = src.tenant === null ? undefined : tenants[src.tenant];
      await aSimulatedSource(host, name, tenantId);
      const listing = MCP_NAMES.filter((_, j) => src.tools[j].present).map(([n]) => ({ name: n, description: `${n} tool`, inputSchema: { type: 'object', properties: {} } }));
      const out = await applyListing(host, name, listing);
      expect(out.quarantined, 'no tool of the fixed universe is quarantined').to.not.be.ok;
      for (const [j, [, esc]] of MCP_NAMES.entries()) {
        const t = src.tools[j];
        if (!t.present) continue;
        const id = `mcp.${name}.${esc}`;
        if (t.classify) await host.gqlOk('mutation($i: ClassifyToolInput!) { classifyTool(input: $i) { toolId } }', { i: { toolId: id, safetyTier: t.classify, replayPolicy: 'idempotent', egress: 'open' } });
        mine.push({ id, source: 'mcp', tier: t.classify ?? 'write', tenantId: tenantId ?? null }); // unclassified MCP: write
      }
    }
    const principals: Principal[] = [];
    const tenantGrants = new Map<string, ModelGrant[]>();
    for (const [i, t] of plan.tenants.entries()) {
      const tg = t.grants.map((g) => ({ pattern: patternFor(g.pattern, p), source: g.source, maxTier: g.maxTier }));
      for (const g of tg) await aGrant(host, { tenantId: tenants[i], toolPattern: g.pattern, source: g.source ?? undefined, maxSafetyTier: g.maxTier ?? undefined });
      tenantGrants.set(tenants[i], tg);
      for (const [k, ownPlan] of t.principals.entries()) {
        const pr = await aPrincipal(host, tenants[i], `${p}-t${i}-p${k}`, k === 2 ? 'tenant-admin' : 'agent');
        const own = ownPlan.map((g) => ({ pattern: patternFor(g.pattern, p), source: g.source, maxTier: g.maxTier }));
        for (const g of own) await aGrant(host, { tenantId: tenants[i], principalId: pr.principalId, toolPattern: g.pattern, source: g.source ?? undefined, maxSafetyTier: g.maxTier ?? undefined });
        principals.push({ tenantId: tenants[i], key: pr.key, own, label: `${p}-t${i}-p${k}` });
      }
    }
    world.push(...mine);
    return { principals, tenantGrants };
  }

  async function checkPrincipal(pr: Principal, tenantGrants: ModelGrant[], candidates: string[]) {
    const expected = world.filter((t) => visibleTo(t, pr, tenantGrants)).map((t) => t.id).sort();
    const why = `${pr.label} tenant grants ${JSON.stringify(tenantGrants)} own ${JSON.stringify(pr.own)}`;
    // TC-CAT-3: the list is exactly the model's set, sorted in code-unit order (TC-CAT-7).
    const list = await host.get('/tools', pr.key);
    expect(list.status, list.text).to.equal(200);
    expectStandardList(list.json());
    expect((list.json() as Array<{ toolId: string }>).map((d) => d.toolId), why).to.deep.equal(expected);
    totals.listed += expected.length;
    // TC-VIEW-2: the compact list carries the same id set.
    const compact = await host.get('/tools?view=compact', pr.key);
    expect(compact.status).to.equal(200);
    expectCompactList(compact.json());
    expect((compact.json() as { tools: Array<{ toolId: string }> }).tools.map((d) => d.toolId), why).to.deep.equal(expected);
    // TC-CAT-4: the reference 404 of an id that never existed, for this caller.
    const never = await host.get(`/tools/ext.zz-never-existed-${pr.label}`, pr.key);
    expect(never.status).to.equal(404);
    expect(never.headers.get('etag'), 'a 404 carries no ETag').to.equal(null);
    expect(never.headers.get('www-authenticate'), 'a 404 carries no challenge').to.equal(null);
    const headerView = (h: Headers) => [...h.entries()].filter(([k]) => !IGNORED_HEADERS.has(k)).sort();
    const visibleSet = new Set(expected);
    const listById = new Map((list.json() as Array<{ toolId: string }>).map((d) => [d.toolId, d]));
    await runRequests(candidates, 6, async (id) => {
      const r = await host.get(`/tools/${id}`, pr.key);
      if (visibleSet.has(id)) {
        totals.visible++;
        expect(r.status, `${id} for ${why}`).to.equal(200);
        expectStandardDescriptor(r.json());
        expect(r.json(), id).to.deep.equal(listById.get(id));
      } else {
        expect(r.status, `${id} for ${why}`).to.equal(404);
        expect(r.text, id).to.equal(never.text); // byte-identical body
        expect(JSON.stringify(headerView(r.headers)), id).to.equal(JSON.stringify(headerView(never.headers))); // content-type/-length, cache-control, no etag, no challenge
      }
    });
    totals.idChecks += candidates.length;
    // GraphQL: tools is the same set; tool(toolId) is null for exactly the invisible ids.
    const frag = '... on ToolDescriptor { toolId } ... on CompactToolDescriptor { toolId }';
    const g = await host.gqlOk<{ tools: { tools: Array<{ toolId: string }> } }>(`{ tools { appliedView tools { ${frag} } } }`, {}, pr.key);
    expect(g.tools.tools.map((t) => t.toolId), `GraphQL tools ${why}`).to.deep.equal(expected);
    for (let i = 0; i < candidates.length; i += 25) {
      const chunk = candidates.slice(i, i + 25);
      const vars = Object.fromEntries(chunk.map((id, k) => [`v${k}`, id]));
      const doc = `query(${chunk.map((_, k) => `$v${k}: String!`).join(', ')}) { ${chunk.map((_, k) => `a${k}: tool(toolId: $v${k}) { ${frag} }`).join(' ')} }`;
      const d = await host.gqlOk<Record<string, { toolId: string } | null>>(doc, vars, pr.key);
      chunk.forEach((id, k) => expect(d[`a${k}`]?.toolId ?? null, `GraphQL tool(${id}) ${why}`).to.equal(visibleSet.has(id) ? id : null));
      totals.gqlIdChecks += chunk.length;
    }
    totals.principals++;
  }

  it(`every principal sees exactly the modelled set, everything else is an indistinguishable 404 (${NUM_RUNS} runs)`, async function () {
    this.timeout(240_000);
    await fc.assert(
      fc.asyncProperty(planArb, fc.nat(), async (plan, pick) => {
        const p = `r${++runNo}`;
        const before = world.length;
        const { principals, tenantGrants } = await build(plan, p);
        const earlier = world.slice(0, before);
        // Every id of this run's universe (created or not), some earlier runs' ids, and unknown look-alikes.
        const candidates = [
          ...TEMPLATES.map((t) => t.replace('{p}', p)),
          ...Array.from({ length: Math.min(6, earlier.length) }, (_, k) => earlier[(pick + k * 7919) % earlier.length].id),
          `ext.${p}_CALC`, `ext.${p}_aXb`, `ext.${p}_a`, `mcp.${p}-s0.LIST`, `mcp.${p}-s9.list`, `mcp.${p}-s0.weird~20name~2f~C3~BC`,
        ];
        const unique = [...new Set(candidates)];
        for (const pr of principals) await checkPrincipal(pr, tenantGrants.get(pr.tenantId)!, unique);
        // Two principals of earlier runs again: this run's global tools may match their generic grants, so their
        // visible sets may have grown, and cached answers must have followed (cache invalidation across tenants).
        for (let k = 0; k < Math.min(2, earlierPrincipals.length); k++) {
          const old = earlierPrincipals[(pick + k * 31) % earlierPrincipals.length];
          await checkPrincipal(old.pr, old.grants, unique);
          totals.rechecks++;
        }
        earlierPrincipals.push(...principals.map((pr) => ({ pr, grants: tenantGrants.get(pr.tenantId)! })));
        totals.runs++;
      }),
      { numRuns: NUM_RUNS, endOnFailure: true },
    );
    // Not vacuous: across the runs some candidate ids were visible and (far more) were not.
    expect(totals.visible, 'some candidate ids were visible').to.be.greaterThan(0);
    expect(totals.idChecks - totals.visible, 'some candidate ids were invisible').to.be.greaterThan(0);
    console.log(`      isolation [${database.name}]: ${totals.runs} runs, ${world.length} tools, ${totals.principals} principal checks (${totals.rechecks} re-checks of earlier runs); ` +
      `${totals.listed} listed entries; ${totals.idChecks} principal×id REST checks (${totals.visible} visible), ${totals.gqlIdChecks} principal×id GraphQL checks`);
  });
});
