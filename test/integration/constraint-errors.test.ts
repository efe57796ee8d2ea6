/**
 * Issue 12 defect 5: bad input and write races answered as INTERNAL_SERVER_ERROR. A foreign key, unique key or
 * column bound the pre-checks cannot cover (an unknown or non-UUID tenantId, two admins creating one name at
 * once, a tenant deleted while something is added to it) must answer a clear client code (NOT_FOUND, CONFLICT,
 * BAD_USER_INPUT), on SQLite and on PostgreSQL, and leave exactly the rows one serial order would leave.
 * An anonymous `subscription` (the schema has none) is a client error and writes no error-level log line.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { raceAgainstHeldTransaction } from '../helpers/held-transaction';
import { type GqlResult, type TestHost, aTenantWithKey, hostPerSuite } from '../helpers/test-host';
import { aSimulatedSource, applyListing } from '../conformance/scenario';

const CREATE_TENANT = 'mutation($n: String!) { createTenant(name: $n) { id } }';
const DELETE_TENANT = 'mutation($id: ID!) { deleteTenant(id: $id) }';
const UPSERT_EXT = 'mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId tenantId } }';
const REGISTER_SOURCE = 'mutation($i: SourceInput!) { registerSource(input: $i) { name } }';
const CREATE_PRINCIPAL = 'mutation($i: CreatePrincipalInput!) { createPrincipal(input: $i) { principal { id } } }';
const CREATE_GRANT = 'mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }';
const SET_CEILING = 'mutation($t: ID!, $e: [CeilingEntryInput!]!) { setTenantCeiling(tenantId: $t, entries: $e) { toolPattern } }';

const CONCURRENCY = 40;

/** Ids that name no tenant, principal or grant: unknown UUIDs and strings of every other shape. */
const NOT_IDS = [randomUUID(), 'not-a-uuid', ' ', 'x'.repeat(100), "'; DROP TABLE tenant; --", 'ünïcödé-ïd', '00000000-0000-0000-0000-00000000000g'];

function extension(name: string, tenantId?: string | null): Record<string, unknown> {
  return { name, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', description: `${name} tool`, inputSchema: { type: 'object', properties: {} }, tenantId };
}

/** The code of a GraphQL answer: 'OK' without errors, else the first error's code. */
function codeOf(r: GqlResult<unknown>): string {
  return r.errors?.length ? String(r.errors[0].extensions?.code) : 'OK';
}

/** How many answers had each code, e.g. { OK: 1, CONFLICT: 39 }. */
function tally(results: ReadonlyArray<GqlResult<unknown>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) out[codeOf(r)] = (out[codeOf(r)] ?? 0) + 1;
  return out;
}

/** Error-level (pino 50+) log lines written since `from`. */
function errorLines(host: TestHost, from: number): string[] {
  return host.logs.slice(from).filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
}

async function count(host: TestHost, sql: string, params: unknown[] = []): Promise<number> {
  const rows = (await host.app.dataSource.query(sql, params)) as Array<{ n: number | string }>;
  return Number(rows[0].n);
}

/** `?` on SQLite, `$n` on PostgreSQL. */
function p(host: TestHost, n: number): string {
  return host.app.dataSource.options.type === 'postgres' ? `$${n}` : '?';
}

forEachDatabase('issue 12 defect 5: constraint violations answer client codes', (database) => {
  const s = hostPerSuite(database);

  it('issue 12 defect 5: upsertHostExtension with an unknown or non-UUID tenantId is NOT_FOUND (no row, no error log)', async () => {
    const logsFrom = s.host.logs.length;
    const answers: Record<string, string> = {};
    for (const [i, tenantId] of NOT_IDS.entries()) {
      const r = await s.host.gql(UPSERT_EXT, { i: extension(`orphan_${i}`, tenantId) });
      answers[JSON.stringify(tenantId)] = `${codeOf(r)}: ${r.errors?.[0].message}`;
    }
    expect(answers).to.deep.equal(Object.fromEntries(NOT_IDS.map((id) => [JSON.stringify(id), 'NOT_FOUND: No tenant with this id in your scope.'])));
    expect(await count(s.host, "SELECT COUNT(*) AS n FROM tool WHERE tool_id LIKE 'ext.orphan%'")).to.equal(0);
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  it('issue 12 defect 5: every admin operation naming an unknown or non-UUID id answers NOT_FOUND, never INTERNAL', async () => {
    const t = await aTenantWithKey(s.host, 'known-ids');
    const logsFrom = s.host.logs.length;
    const ops: Array<[string, (id: string) => Promise<GqlResult<unknown>>]> = [
      ['createPrincipal.tenantId', (id) => s.host.gql(CREATE_PRINCIPAL, { i: { tenantId: id, name: 'p' } })],
      ['createGrant.tenantId', (id) => s.host.gql(CREATE_GRANT, { i: { tenantId: id, toolPattern: 'ext.*' } })],
      ['createGrant.principalId', (id) => s.host.gql(CREATE_GRANT, { i: { tenantId: t.tenantId, principalId: id, toolPattern: 'ext.*' } })],
      ['setTenantCeiling.tenantId', (id) => s.host.gql(SET_CEILING, { t: id, e: [{ toolPattern: '*' }] })],
      ['tenantCeiling.tenantId', (id) => s.host.gql('query($t: ID!) { tenantCeiling(tenantId: $t) { toolPattern } }', { t: id })],
      ['registerSource.tenantId', (id) => s.host.gql(REGISTER_SOURCE, { i: { name: 'orphan-src', transport: 'stdio', command: '/nonexistent/binary', enabled: false, syncIntervalSeconds: 0, tenantId: id } })],
      ['deleteTenant.id', (id) => s.host.gql(DELETE_TENANT, { id })],
      ['revokePrincipal.id', (id) => s.host.gql('mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id })],
      ['deleteGrant.id', (id) => s.host.gql('mutation($id: ID!) { deleteGrant(id: $id) }', { id })],
      ['previewTools.principalId', (id) => s.host.gql('query($p: ID!) { previewTools(principalId: $p) { appliedView } }', { p: id })],
    ];
    const wrong: string[] = [];
    for (const [label, op] of ops) {
      for (const id of NOT_IDS) {
        const code = codeOf(await op(id));
        if (code !== 'NOT_FOUND') wrong.push(`${label}=${JSON.stringify(id).slice(0, 40)}: ${code}`);
      }
    }
    expect(wrong).to.deep.equal([]);
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  it(`issue 12 defect 5: ${CONCURRENCY} concurrent createTenant with one name: exactly one succeeds, the rest are CONFLICT`, async () => {
    const logsFrom = s.host.logs.length;
    const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => s.host.gql(CREATE_TENANT, { n: 'same-name' })));
    expect(tally(results)).to.deep.equal({ OK: 1, CONFLICT: CONCURRENCY - 1 });
    for (const r of results.filter((x) => x.errors)) expect(r.errors![0].message).to.equal('A tenant named "same-name" already exists.');
    expect(await count(s.host, `SELECT COUNT(*) AS n FROM tenant WHERE name = ${p(s.host, 1)}`, ['same-name'])).to.equal(1);
    // The one tenant got its one default ceiling entry, and its id is the one answered.
    const id = (results.find((r) => !r.errors)!.data as { createTenant: { id: string } }).createTenant.id;
    expect(await count(s.host, `SELECT COUNT(*) AS n FROM tenant_ceiling WHERE tenant_id = ${p(s.host, 1)}`, [id])).to.equal(1);
    expect(await count(s.host, `SELECT COUNT(*) AS n FROM tenant WHERE id = ${p(s.host, 1)}`, [id])).to.equal(1);
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  it(`issue 12 defect 5: ${CONCURRENCY} concurrent upsertHostExtension of one name all succeed, leaving exactly one tool and one classification`, async () => {
    const logsFrom = s.host.logs.length;
    const t = await aTenantWithKey(s.host, 'ext-race');
    const results = await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => s.host.gql(UPSERT_EXT, { i: { ...extension('raced'), description: `version ${i}`, tenantId: i % 2 ? t.tenantId : null } })));
    // An upsert that lost a race is still an upsert: it applies (last writer wins), it is not a conflict.
    expect(tally(results)).to.deep.equal({ OK: CONCURRENCY });
    expect(await count(s.host, "SELECT COUNT(*) AS n FROM tool WHERE tool_id = 'ext.raced'")).to.equal(1);
    expect(await count(s.host, "SELECT COUNT(*) AS n FROM tool_classification WHERE tool_id = 'ext.raced'")).to.equal(1);
    expect(await count(s.host, "SELECT COUNT(*) AS n FROM audit_log WHERE target_id = 'ext.raced'")).to.equal(CONCURRENCY);
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  it(`issue 12 defect 5: ${CONCURRENCY} concurrent registerSource with one name: exactly one succeeds, the rest are CONFLICT`, async () => {
    const logsFrom = s.host.logs.length;
    const input = { name: 'raced-src', transport: 'stdio', command: '/nonexistent/binary', enabled: false, syncIntervalSeconds: 0, env: [{ name: 'K', value: 'v' }] };
    const results = await Promise.all(Array.from({ length: CONCURRENCY }, () => s.host.gql(REGISTER_SOURCE, { i: input })));
    expect(tally(results)).to.deep.equal({ OK: 1, CONFLICT: CONCURRENCY - 1 });
    for (const r of results.filter((x) => x.errors)) expect(r.errors![0].message).to.equal('A source named "raced-src" already exists.');
    expect(await count(s.host, "SELECT COUNT(*) AS n FROM mcp_source WHERE name = 'raced-src'")).to.equal(1);
    expect(await count(s.host, "SELECT COUNT(*) AS n FROM mcp_source_secret WHERE source_name = 'raced-src'")).to.equal(1);
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  it('issue 12 defect 5: createPrincipal, createGrant, setTenantCeiling and upsertHostExtension racing deleteTenant succeed or are NOT_FOUND, and leave no orphan', async () => {
    const logsFrom = s.host.logs.length;
    const rounds: Array<Record<string, number>> = [];
    for (let round = 0; round < 4; round++) {
      const t = await aTenantWithKey(s.host, `doomed-${round}`);
      const writes = Array.from({ length: CONCURRENCY }, (_, i) => {
        switch (i % 4) {
          case 0: return s.host.gql(CREATE_PRINCIPAL, { i: { tenantId: t.tenantId, name: `p${i}` } });
          case 1: return s.host.gql(CREATE_GRANT, { i: { tenantId: t.tenantId, principalId: t.principalId, toolPattern: `ext.g${i}` } });
          case 2: return s.host.gql(SET_CEILING, { t: t.tenantId, e: [{ toolPattern: 'ext.*' }, { toolPattern: `mcp.c${i}.*` }] });
          default: return s.host.gql(UPSERT_EXT, { i: extension(`doomed_${round}_${i}`, t.tenantId) });
        }
      });
      // The delete lands among the writes: some run before it, some after, some at the same time.
      const deleted = s.host.gql(DELETE_TENANT, { id: t.tenantId });
      const results = await Promise.all([...writes.slice(0, CONCURRENCY / 2), deleted, ...writes.slice(CONCURRENCY / 2)]);
      expect(codeOf(await deleted)).to.equal('OK');
      const counts = tally(results);
      rounds.push(counts);
      expect(Object.keys(counts).filter((c) => c !== 'OK' && c !== 'NOT_FOUND'), JSON.stringify(counts)).to.deep.equal([]);
      for (const table of ['principal', 'tool_grant', 'tenant_ceiling', 'tool']) {
        expect(await count(s.host, `SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = ${p(s.host, 1)}`, [t.tenantId]), table).to.equal(0);
      }
    }
    expect(errorLines(s.host, logsFrom), JSON.stringify(rounds)).to.deep.equal([]);
  });

  it('issue 12 defect 5: concurrent setTenantCeiling leaves exactly one of the ceilings given, never a mix', async () => {
    const t = await aTenantWithKey(s.host, 'ceiling-race');
    const results = await Promise.all(Array.from({ length: CONCURRENCY / 2 }, (_, i) => s.host.gql(SET_CEILING, { t: t.tenantId, e: [{ toolPattern: `ext.a${i}*` }, { toolPattern: `ext.b${i}*` }] })));
    expect(tally(results)).to.deep.equal({ OK: CONCURRENCY / 2 });
    const ceiling = (await s.host.gqlOk<{ tenantCeiling: Array<{ toolPattern: string }> }>('query($t: ID!) { tenantCeiling(tenantId: $t) { toolPattern } }', { t: t.tenantId })).tenantCeiling.map((e) => e.toolPattern);
    expect(ceiling).to.have.length(2);
    expect(ceiling[0].replace('ext.a', 'ext.b'), JSON.stringify(ceiling)).to.equal(ceiling[1]);
  });

  it('issue 12 defect 5: U+0000 in text PostgreSQL cannot store is BAD_USER_INPUT on both databases', async () => {
    const logsFrom = s.host.logs.length;
    const answers = [
      await s.host.gql(UPSERT_EXT, { i: { ...extension('nul_desc'), description: 'a\u0000b' } }),
      await s.host.gql(UPSERT_EXT, { i: { ...extension('nul_title'), title: 'a\u0000b' } }),
      await s.host.gql(REGISTER_SOURCE, { i: { name: 'nul-src', transport: 'stdio', command: '/bin/a\u0000b', enabled: false, syncIntervalSeconds: 0 } }),
    ].map((r) => `${codeOf(r)}: ${r.errors?.[0].message}`);
    expect(answers).to.deep.equal([
      'BAD_USER_INPUT: title and description cannot contain U+0000 (NUL).',
      'BAD_USER_INPUT: title and description cannot contain U+0000 (NUL).',
      'BAD_USER_INPUT: command cannot contain U+0000 (NUL).',
    ]);
    // Escaped inside JSON, U+0000 in a schema is stored fine on both.
    expect(codeOf(await s.host.gql(UPSERT_EXT, { i: { ...extension('nul_schema'), inputSchema: { type: 'object', properties: { 'a\u0000': { type: 'string' } } } } }))).to.equal('OK');
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  it('issue 12 defect 5: a GraphQL subscription (the schema has none) is a client error, for anyone, with no error-level log line', async () => {
    const agent = await aTenantWithKey(s.host, 'subscriber');
    const logsFrom = s.host.logs.length;
    const docs = ['subscription { tools { toolId } }', 'subscription S { anything }', 'subscription { __typename }'];
    const seen: string[] = [];
    for (const key of [null, agent.key, s.host.adminKey]) {
      for (const doc of docs) {
        const r = await s.host.gql(doc, {}, key);
        seen.push(`${key === null ? 'anonymous' : key === agent.key ? 'agent' : 'admin'} ${doc}: ${r.status} ${codeOf(r)}`);
        if (key !== null) expect(r.errors?.[0].message, doc).to.equal('The subscription operation is not supported by the schema.');
      }
    }
    // Anonymous requests are answered 401 before their query is parsed (issue 11, defect 4); for callers with a
    // principal validation refuses the operation type before any resolver runs.
    expect(seen).to.deep.equal([
      ...docs.map((doc) => `anonymous ${doc}: 401 UNAUTHENTICATED`),
      ...['agent', 'admin'].flatMap((who) => docs.map((doc) => `${who} ${doc}: 400 GRAPHQL_VALIDATION_FAILED`)),
    ]);
    expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
  });

  // The exact interleavings behind the PostgreSQL counts above, made deterministic: another session holds the
  // conflicting row or key until the write waits on it. On SQLite one connection runs each transaction without
  // yielding to other requests (better-sqlite3 is synchronous), so a check and its write cannot be split there.
  if (database.name === 'postgres') {
    describe('issue 12 defect 5: each race a pre-check cannot see [postgres, deterministic]', () => {
      const url = () => (s.db as { url: string }).url;
      const deleteTenant = (id: string): [string, unknown[]] => ['DELETE FROM tenant WHERE id = $1', [id]];
      const now = new Date().toISOString();
      /** The write's answer, once it is certain the write met the race (it waited on the other session). */
      async function raced(url: string, statements: ReadonlyArray<readonly [string, unknown[]]>, write: () => Promise<GqlResult<unknown>>): Promise<GqlResult<unknown>> {
        const { result, waited } = await raceAgainstHeldTransaction(url, statements, write);
        expect(waited, `the write did not wait on the other transaction: ${JSON.stringify(result.errors ?? result.data)}`).to.equal(true);
        return result;
      }

      it('issue 12 defect 5: createTenant whose name is committed meanwhile is CONFLICT naming it', async () => {
        const r = await raced(url(), [['INSERT INTO tenant (id, name, created_at) VALUES ($1, $2, $3)', [randomUUID(), 'held-name', now]]], () => s.host.gql(CREATE_TENANT, { n: 'held-name' }));
        expect(`${codeOf(r)}: ${r.errors?.[0].message}`).to.equal('CONFLICT: A tenant named "held-name" already exists.');
      });

      it('issue 12 defect 5: registerSource whose name is committed meanwhile is CONFLICT naming it', async () => {
        const insert = "INSERT INTO mcp_source (name, transport, args, drift_policy, sync_interval_seconds, enabled, origin, status, tool_count, quarantined_count, created_at) VALUES ($1, 'stdio', '[]', 'withhold', 0, false, 'graphql', 'never-synced', 0, 0, $2)";
        const r = await raced(url(), [[insert, ['held-src', now]]], () =>
          s.host.gql(REGISTER_SOURCE, { i: { name: 'held-src', transport: 'stdio', command: '/nonexistent/binary', enabled: false, syncIntervalSeconds: 0 } }));
        expect(`${codeOf(r)}: ${r.errors?.[0].message}`).to.equal('CONFLICT: A source named "held-src" already exists.');
      });

      it('issue 12 defect 5: upsertHostExtension whose classification row is committed meanwhile still applies (one row, its values)', async () => {
        const insert = "INSERT INTO tool_classification (tool_id, safety_tier, replay_policy, egress, decided_by, decided_at) VALUES ('ext.held', 'exec', 'non-idempotent', 'open', 'other', $1)";
        const r = await raced(url(), [[insert, [now]]], () => s.host.gql(UPSERT_EXT, { i: extension('held') }));
        expect(codeOf(r)).to.equal('OK');
        const rows = (await s.host.app.dataSource.query("SELECT safety_tier FROM tool_classification WHERE tool_id = 'ext.held'")) as Array<{ safety_tier: string }>;
        expect(rows).to.deep.equal([{ safety_tier: 'read' }]);
      });

      const refersToDeleted: Array<[string, (t: { tenantId: string; principalId: string }) => Promise<GqlResult<unknown>>]> = [
        ['createPrincipal', (t) => s.host.gql(CREATE_PRINCIPAL, { i: { tenantId: t.tenantId, name: 'late' } })],
        ['createGrant', (t) => s.host.gql(CREATE_GRANT, { i: { tenantId: t.tenantId, toolPattern: 'ext.*' } })],
        ['createGrant (narrowing a principal)', (t) => s.host.gql(CREATE_GRANT, { i: { tenantId: t.tenantId, principalId: t.principalId, toolPattern: 'ext.*' } })],
        ['setTenantCeiling', (t) => s.host.gql(SET_CEILING, { t: t.tenantId, e: [{ toolPattern: 'ext.*' }] })],
        ['upsertHostExtension', (t) => s.host.gql(UPSERT_EXT, { i: extension('late_ext', t.tenantId) })],
        ['registerSource', (t) => s.host.gql(REGISTER_SOURCE, { i: { name: 'late-src', transport: 'stdio', command: '/nonexistent/binary', enabled: false, syncIntervalSeconds: 0, tenantId: t.tenantId } })],
      ];
      for (const [label, write] of refersToDeleted) {
        it(`issue 12 defect 5: ${label} on a tenant deleted meanwhile is NOT_FOUND and leaves nothing`, async () => {
          const t = await aTenantWithKey(s.host, `gone-${label.replace(/\W+/g, '-').toLowerCase()}`.slice(0, 60).replace(/-$/, ''));
          const logsFrom = s.host.logs.length;
          const r = await raced(url(), [deleteTenant(t.tenantId)], () => write(t));
          expect(`${codeOf(r)}: ${r.errors?.[0].message}`).to.equal('NOT_FOUND: No tenant with this id in your scope.');
          for (const table of ['principal', 'tool_grant', 'tenant_ceiling', 'tool', 'mcp_source']) {
            expect(await count(s.host, `SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = $1`, [t.tenantId]), table).to.equal(0);
          }
          expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
        });
      }

      it('issue 12 defect 5: createGrant narrowing a principal deleted meanwhile is NOT_FOUND naming the principal', async () => {
        const t = await aTenantWithKey(s.host, 'gone-principal');
        const r = await raced(url(), [['DELETE FROM principal WHERE id = $1', [t.principalId]]], () =>
          s.host.gql(CREATE_GRANT, { i: { tenantId: t.tenantId, principalId: t.principalId, toolPattern: 'ext.*' } }));
        expect(`${codeOf(r)}: ${r.errors?.[0].message}`).to.equal('NOT_FOUND: No principal with this id in your scope.');
      });

      it('issue 12 defect 5: classifyTool racing another classification of one MCP tool is CONFLICT, never INTERNAL', async () => {
        await aSimulatedSource(s.host, 'heldsrc');
        await applyListing(s.host, 'heldsrc', [{ name: 'op', description: 'an op', inputSchema: { type: 'object' } }]);
        const insert = "INSERT INTO tool_classification (tool_id, safety_tier, replay_policy, egress, decided_by, decided_at) VALUES ('mcp.heldsrc.op', 'read', 'idempotent', 'none', 'other', $1)";
        const logsFrom = s.host.logs.length;
        const r = await raced(url(), [[insert, [now]]], () =>
          s.host.gql('mutation { classifyTool(input: { toolId: "mcp.heldsrc.op", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }'));
        expect(codeOf(r)).to.equal('CONFLICT');
        expect(r.errors?.[0].message).not.to.match(/duplicate|constraint|tool_classification|PK_|INSERT/i);
        expect(errorLines(s.host, logsFrom)).to.deep.equal([]);
      });
    });
  }
});
