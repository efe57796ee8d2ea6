/**
 * Tenant isolation as a property (issue 5, issue 11 defects 1/6/7; TC-CAT-3, TC-CAT-4, TC-VIEW-2): random tenants,
 * principals, grants (`*` patterns, source, maxSafetyTier), ceilings and tools (host extensions with random tiers,
 * MCP tools classified or not, global or tenant-scoped) are put into one real host. Principals are of every kind:
 * stored principals with API keys (some narrowed by their own grants) and JWT principals whose subjects are drawn
 * from a small pool shared by all tenants, with groups that narrowing grants name, in the agent and tenant-admin
 * roles. Every principal must then see exactly what an independent in-test model of the README rules says, on REST
 * and GraphQL; every other id must be a 404 indistinguishable from an id that never existed; and a list's ETag
 * revalidates (304) for another principal exactly when the model gives both the same list.
 * One host per database; every fast-check run gets its own name prefix, and the model keeps every tool ever
 * created in the host, so runs also check each other (a generic `*` grant sees earlier runs' global tools).
 * Seeded (ISOLATION_SEED, printed); requests for principals sharing a JWT subject run back to back, so that any
 * cache or budget keyed by less than the whole decision would hand one tenant's answer to the other.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { type CryptoKey, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { testConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { expectCompactList, expectStandardDescriptor, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aPrincipal, anExtension, startHost } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';
import { TIERS, type Tier, runRequests, visibleTo } from './model';
import type { ModelGrant, ModelTool } from './model';

const NUM_RUNS = Number(process.env.ISOLATION_RUNS ?? 27);
const SEED = Number(process.env.ISOLATION_SEED ?? 110_001);
const ISS = 'https://idp.isolation.test/';
const AUD = 'toolcat';
/** JWT subjects and groups shared by every tenant and run: the same `sub` in several tenants is the point. */
const SUBJECTS = ['alice', 'bob', 'carol'] as const;
const GROUPS = ['g1', 'g2', 'g3'] as const;
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

/** Ceilings are mostly broad (a tier or source limit over a wide pattern), as host admins write them. */
const ceilingEntryArb = fc.record({
  pattern: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('*', 'ext.*', 'mcp.*', 'ext.{p}*', 'mcp.{p}-*', '*.{p}*').map((t) => ({ t, cuts: [] as Array<[number, number]> })) },
    { weight: 1, arbitrary: patternArb },
  ),
  source: fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom(...SOURCES.slice(1)) }),
  maxTier: fc.option(tierArb, { nil: null, freq: 3 }),
});

const jwtArb = fc.record({
  subject: fc.constantFrom(...SUBJECTS),
  groups: fc.subarray([...GROUPS]),
  role: fc.constantFrom('agent', 'tenant-admin'),
});

const planArb = fc.integer({ min: 2, max: 5 }).chain((nTenants) =>
  fc.record({
    tenants: fc.array(
      fc.record({
        grants: fc.array(grantArb, { minLength: 0, maxLength: 4 }),
        principals: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 2, arbitrary: fc.array(grantArb, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 3 }), // [] = not narrowed
        jwts: fc.array(jwtArb, { minLength: 1, maxLength: 3 }),
        groupGrants: fc.array(fc.record({ group: fc.constantFrom(...GROUPS), grant: grantArb }), { minLength: 0, maxLength: 3 }),
        // null: the unrestricted default ceiling; otherwise set (lowered) after the grants were made.
        ceiling: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.array(ceilingEntryArb, { minLength: 0, maxLength: 2 }) }),
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
  /** An API key, or a signed JWT. */
  readonly key: string;
  readonly kind: 'api-key' | 'jwt';
  /** The narrowing grants that apply: its own (API key) or its groups' (JWT). */
  readonly own: ModelGrant[];
  readonly label: string;
  /** JWT subject, for ordering requests of shared subjects back to back. */
  readonly subject: string | null;
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
  let signingKey: CryptoKey;
  const world: ModelTool[] = []; // every tool created in this host, across runs
  let runNo = 0;
  const totals = { runs: 0, principals: 0, jwtPrincipals: 0, idChecks: 0, gqlIdChecks: 0, visible: 0, listed: 0, rechecks: 0, etagChecks: 0, revalidated: 0 };
  const earlierPrincipals: Array<{ pr: Principal; grants: ModelGrant[]; ceiling: ModelGrant[] | null }> = [];

  before(async function () {
    this.timeout(60_000);
    const pair = await generateKeyPair('ES256', { extractable: true });
    signingKey = pair.privateKey;
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, {
      security: {
        ...testConfig().security,
        // The property makes thousands of requests per principal budget: the limiter is tested elsewhere.
        rateLimit: { capacity: 1_000_000, refillPerSecond: 1_000_000, maxKeys: 100_000 },
        jwt: { config: { issuer: ISS, audience: AUD, staticKeys: [{ ...(await exportJWK(pair.publicKey)), kid: 'iso', alg: 'ES256' }] }, roleMap: undefined, defaultRole: null },
      },
    });
  });

  const signFor = (tenant: string, j: { subject: string; groups: string[]; role: string }) =>
    new SignJWT({ iss: ISS, aud: AUD, sub: j.subject, tenant, roles: [j.role], groups: j.groups, exp: Math.floor(Date.now() / 1000) + 3600 })
      .setProtectedHeader({ alg: 'ES256', kid: 'iso', typ: 'JWT' })
      .sign(signingKey);
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
    const ceilings = new Map<string, ModelGrant[] | null>();
    const grantOf = (g: Plan['tenants'][number]['grants'][number]): ModelGrant => ({ pattern: patternFor(g.pattern, p), source: g.source, maxTier: g.maxTier });
    const input = (g: ModelGrant) => ({ toolPattern: g.pattern, source: g.source ?? undefined, maxSafetyTier: g.maxTier ?? undefined });
    for (const [i, t] of plan.tenants.entries()) {
      const tg = t.grants.map(grantOf);
      for (const g of tg) await aGrant(host, { tenantId: tenants[i], ...input(g) });
      tenantGrants.set(tenants[i], tg);
      for (const [k, ownPlan] of t.principals.entries()) {
        const pr = await aPrincipal(host, tenants[i], `${p}-t${i}-p${k}`, k === 2 ? 'tenant-admin' : 'agent');
        const own = ownPlan.map(grantOf);
        for (const g of own) await aGrant(host, { tenantId: tenants[i], principalId: pr.principalId, ...input(g) });
        principals.push({ tenantId: tenants[i], key: pr.key, kind: 'api-key', own, label: `${p}-t${i}-p${k}`, subject: null });
      }
      const byGroup = new Map<string, ModelGrant[]>();
      for (const gg of t.groupGrants) {
        const g = grantOf(gg.grant);
        await host.gqlOk('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: tenants[i], group: gg.group, ...input(g) } });
        byGroup.set(gg.group, [...(byGroup.get(gg.group) ?? []), g]);
      }
      for (const [k, j] of t.jwts.entries()) {
        const own = j.groups.flatMap((name) => byGroup.get(name) ?? []);
        principals.push({ tenantId: tenants[i], key: await signFor(`${p}-t${i}`, j), kind: 'jwt', own, label: `${p}-t${i}-jwt${k}(${j.subject}|${j.groups.join(',')}|${j.role})`, subject: j.subject });
      }
      // A ceiling set after the grants lowers what they allow: the query must enforce it, whatever the grants say.
      const ceiling = t.ceiling === null ? null : t.ceiling.map(grantOf);
      if (ceiling) {
        await host.gqlOk('mutation($t: ID!, $e: [CeilingEntryInput!]!) { setTenantCeiling(tenantId: $t, entries: $e) { toolPattern } }', { t: tenants[i], e: ceiling.map(input) });
      }
      ceilings.set(tenants[i], ceiling);
    }
    world.push(...mine);
    // Shared JWT subjects back to back (alice of t0, alice of t1, ...): a cache keyed by subject would leak here.
    principals.sort((a, b) => (a.subject ?? '~').localeCompare(b.subject ?? '~'));
    return { principals, tenantGrants, ceilings };
  }

  async function checkPrincipal(pr: Principal, tenantGrants: ModelGrant[], ceiling: ModelGrant[] | null, candidates: string[]): Promise<{ etag: string; expected: string }> {
    const expected = world.filter((t) => visibleTo(t, pr, tenantGrants, ceiling)).map((t) => t.id).sort();
    const why = `${pr.label} tenant grants ${JSON.stringify(tenantGrants)} own ${JSON.stringify(pr.own)} ceiling ${JSON.stringify(ceiling)}`;
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
    if (pr.kind === 'jwt') totals.jwtPrincipals++;
    return { etag: list.headers.get('etag')!, expected: JSON.stringify(expected) };
  }

  it(`every principal (API key or JWT, shared subjects across tenants) sees exactly the modelled set, everything else is an indistinguishable 404 (${NUM_RUNS} runs, seed ${SEED})`, async function () {
    this.timeout(600_000);
    await fc.assert(
      fc.asyncProperty(planArb, fc.nat(), async (plan, pick) => {
        const p = `r${++runNo}`;
        const before = world.length;
        const { principals, tenantGrants, ceilings } = await build(plan, p);
        const earlier = world.slice(0, before);
        // Every id of this run's universe (created or not), some earlier runs' ids, and unknown look-alikes.
        const candidates = [
          ...TEMPLATES.map((t) => t.replace('{p}', p)),
          ...Array.from({ length: Math.min(6, earlier.length) }, (_, k) => earlier[(pick + k * 7919) % earlier.length].id),
          `ext.${p}_CALC`, `ext.${p}_aXb`, `ext.${p}_a`, `mcp.${p}-s0.LIST`, `mcp.${p}-s9.list`, `mcp.${p}-s0.weird~20name~2f~C3~BC`,
        ];
        const unique = [...new Set(candidates)];
        const seen: Array<{ pr: Principal; etag: string; expected: string }> = [];
        for (const pr of principals) seen.push({ pr, ...(await checkPrincipal(pr, tenantGrants.get(pr.tenantId)!, ceilings.get(pr.tenantId)!, unique)) });
        // Revalidation across principals: another principal's ETag answers 304 exactly when the model gives both
        // the same list (the bytes are the same then, so the ETag must be too); otherwise 200 with this one's list.
        for (const [a, mine] of seen.entries()) {
          for (const other of [seen[(a + 1) % seen.length], seen[(a + 1 + (pick % seen.length)) % seen.length]]) {
            const r = await host.get('/tools', mine.pr.key, { 'if-none-match': other.etag });
            const same = other.expected === mine.expected;
            expect(r.status, `${mine.pr.label} revalidating ${other.pr.label}'s ETag`).to.equal(same ? 304 : 200);
            totals.etagChecks++;
            if (same) totals.revalidated++;
          }
        }
        // Two principals of earlier runs again: this run's global tools may match their generic grants, so their
        // visible sets may have grown, and cached answers must have followed (cache invalidation across tenants).
        for (let k = 0; k < Math.min(2, earlierPrincipals.length); k++) {
          const old = earlierPrincipals[(pick + k * 31) % earlierPrincipals.length];
          await checkPrincipal(old.pr, old.grants, old.ceiling, unique);
          totals.rechecks++;
        }
        earlierPrincipals.push(...principals.map((pr) => ({ pr, grants: tenantGrants.get(pr.tenantId)!, ceiling: ceilings.get(pr.tenantId)! })));
        totals.runs++;
      }),
      { numRuns: NUM_RUNS, seed: SEED, endOnFailure: true },
    );
    // Not vacuous: across the runs some candidate ids were visible and (far more) were not.
    expect(totals.visible, 'some candidate ids were visible').to.be.greaterThan(0);
    expect(totals.idChecks - totals.visible, 'some candidate ids were invisible').to.be.greaterThan(0);
    expect(totals.jwtPrincipals, 'JWT principals were checked').to.be.greaterThan(0);
    expect(totals.revalidated, 'some ETags were shared (and revalidated) across principals').to.be.greaterThan(0);
    expect(totals.etagChecks - totals.revalidated, 'some ETags were refused for another principal').to.be.greaterThan(0);
    console.log(`      isolation [${database.name}] seed ${SEED}: ${totals.runs} runs, ${world.length} tools, ${totals.principals} principal checks (${totals.jwtPrincipals} JWT, ${totals.rechecks} re-checks of earlier runs); ` +
      `${totals.listed} listed entries; ${totals.idChecks} principal×id REST checks (${totals.visible} visible), ${totals.gqlIdChecks} principal×id GraphQL checks; ` +
      `${totals.etagChecks} cross-principal ETag checks (${totals.revalidated} 304)`);
  });
});
