/**
 * Issue 11, defect 4: schema enumeration. graphql-js answers a misspelt field, argument, type or input field with
 * `Did you mean "…"?`, which hands the admin schema's names to anyone who guesses near them, and introspection
 * used to be on for every caller outside production. Now callers who may not see the admin schema (anonymous, a
 * refused credential, the agent role) never get a suggestion, and introspection is for admins only in
 * development and off in production unless TOOLCAT_GRAPHQL_INTROSPECTION says otherwise.
 */
import { expect } from 'chai';
import { loadConfig, testConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aTenantWithKey, startHost } from '../helpers/test-host';

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly body: { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

/** Misspelt probes, each of which graphql-js answers with a suggestion of a real name. */
const PROBES: ReadonlyArray<{ what: string; query: string; variables?: Record<string, unknown>; suggests: RegExp }> = [
  { what: 'a misspelt admin field', query: '{ sourcs { name } }', suggests: /Did you mean "source" or "sources"\?/ },
  { what: 'a misspelt admin mutation', query: 'mutation { registrSource(input: { name: "x", transport: "stdio" }) { name } }', suggests: /Did you mean "registerSource"/ },
  { what: 'a misspelt argument', query: '{ tools(veiw: "compact") { appliedView } }', suggests: /Did you mean "view"/ },
  { what: 'a misspelt field of a type', query: '{ me { nmae } }', suggests: /Did you mean "name"/ },
  { what: 'a misspelt type in a variable', query: 'query($i: SourceInptu) { __typename }', suggests: /Did you mean "SourceInput"/ },
  {
    what: 'a misspelt input field in variables (coercion, not validation)',
    query: 'mutation($i: SourceInput!) { registerSource(input: $i) { name } }',
    variables: { i: { nme: 'x', name: 'x', transport: 'stdio' } },
    suggests: /Did you mean "name"/,
  },
];
const INTROSPECTION = ['{ __schema { queryType { name } } }', '{ __type(name: "Mutation") { fields { name } } }', 'query { ...F } fragment F on Query { a: __schema { types { name } } }'];

forEachDatabase('issue 11: schema enumeration', (database) => {
  const hosts: Record<'development' | 'production', TestHost> = {} as never;
  const keys: Record<'development' | 'production', Record<string, string | null>> = {} as never;
  const drops: Array<() => Promise<void>> = [];

  before(async function () {
    this.timeout(60_000);
    const production = loadConfig({ TOOLCAT_SQLITE_PATH: ':memory:', PORT: '0', LOG_LEVEL: 'silent', NODE_ENV: 'production' }).security;
    for (const [env, security] of [['development', testConfig().security], ['production', production]] as const) {
      const created = await database.create();
      drops.push(created.drop);
      const host = await startHost(created.db, { security });
      hosts[env] = host;
      keys[env] = {
        anonymous: null,
        'refused credential': 'tc_this-key-was-never-issued-000000000000000000',
        agent: (await aTenantWithKey(host, 'enum-agents')).key,
        'tenant-admin': (await aTenantWithKey(host, 'enum-admins', 'tenant-admin')).key,
        'host-admin': host.adminKey,
      };
    }
  });
  after(async () => {
    for (const h of Object.values(hosts)) await h?.close();
    for (const d of drops) await d();
  });

  const ask = async (env: 'development' | 'production', key: string | null, query: string, variables: Record<string, unknown> = {}): Promise<Answer> => {
    const r = await hosts[env].request('POST', '/graphql', key, JSON.stringify({ query, variables }));
    return { status: r.status, text: r.text, body: JSON.parse(r.text) as Answer['body'] };
  };

  for (const env of ['development', 'production'] as const) {
    for (const caller of ['anonymous', 'refused credential']) {
      it(`issue 11 defect 4: schema enumeration — ${env}, ${caller}: every query answers the same 401, naming nothing`, async () => {
        const key = keys[env][caller];
        const answers = new Set<string>();
        for (const q of [...PROBES.map((p) => p.query), ...INTROSPECTION, '{ __typename }', '{ sources { name } }', '{ sourcez { name } }', 'subscription { x }']) {
          const r = await ask(env, key, q);
          expect(r.status, `${q}: ${r.text}`).to.equal(401);
          expect(r.body.errors?.[0].extensions?.code).to.equal('UNAUTHENTICATED');
          answers.add(r.text);
        }
        expect([...answers], 'one answer whatever the query: no field, type or existence oracle').to.have.length(1);
      });
    }
    it(`issue 11 defect 4: schema enumeration — ${env}, agent: the catalog schema only, no suggestions, no introspection`, async () => {
      const key = keys[env].agent;
      for (const p of PROBES) {
        const r = await ask(env, key, p.query, p.variables);
        expect(r.body.errors, `${p.what}: ${r.text}`).to.be.an('array').that.is.not.empty;
        expect(r.text, p.what).not.to.match(/did you mean/i);
        expect(r.status, `${p.what}: ${r.text}`).to.equal(400);
        // The answer may echo the caller's own words, never another admin name.
        const asked = p.query + JSON.stringify(p.variables ?? {});
        for (const name of ['SourceInput', 'registerSource', 'sources', 'McpSource', 'CreateGrantInput', 'Tenant', 'AdminTool']) {
          if (r.text.includes(name)) expect(asked, `${p.what} names ${name}`).to.include(name);
        }
      }
      // A real admin field and a made-up one are answered alike: nothing tells an agent that one exists.
      const real = await ask(env, key, '{ sources { name } }');
      const fake = await ask(env, key, '{ sourcez { name } }');
      expect([real.status, real.body.errors?.[0].extensions?.code]).to.deep.equal([fake.status, fake.body.errors?.[0].extensions?.code]);
      expect(real.body.errors?.[0].message.replace('sources', 'X')).to.equal(fake.body.errors?.[0].message.replace('sourcez', 'X'));
      const mutation = await ask(env, key, 'mutation { createTenant(name: "x") { id } }');
      const fakeMutation = await ask(env, key, 'mutation { createTenantz(name: "x") { id } }');
      expect(mutation.status).to.equal(400);
      expect(mutation.text).to.equal(fakeMutation.text);
      for (const q of INTROSPECTION) {
        const r = await ask(env, key, q);
        expect(r.status, `${q}: ${r.text}`).to.equal(400);
        expect(r.body.errors?.[0].extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
        expect(r.body.data ?? null).to.equal(null);
        expect(r.text).not.to.match(/"queryType"|"fields"|"types"/);
      }
      // __typename is not introspection of the schema: it stays available to every authenticated caller.
      expect((await ask(env, key, '{ __typename }')).body).to.deep.equal({ data: { __typename: 'Query' } });
    });
    for (const caller of ['tenant-admin', 'host-admin']) {
      it(`issue 11 defect 4: schema enumeration — ${env}, ${caller}: suggestions kept; introspection ${env === 'development' ? 'allowed' : 'off'}`, async () => {
        const key = keys[env][caller];
        for (const p of PROBES) {
          const r = await ask(env, key, p.query, p.variables);
          expect((r.body.errors ?? []).map((e) => e.message).join('\n'), p.what).to.match(p.suggests);
        }
        for (const q of INTROSPECTION) {
          const r = await ask(env, key, q);
          if (env === 'development') {
            expect(r.status, r.text).to.equal(200);
            expect(r.body.errors).to.equal(undefined);
          } else {
            expect(r.status, r.text).to.equal(400);
            expect(r.body.errors?.[0].message).to.match(/introspection is not allowed/i);
          }
        }
      });
    }
  }
});

forEachDatabase('issue 11 defect 4: introspection open to all (TOOLCAT_GRAPHQL_INTROSPECTION=all)', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  before(async () => {
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, { security: loadConfig({ TOOLCAT_SQLITE_PATH: ':memory:', TOOLCAT_GRAPHQL_INTROSPECTION: 'all' }).security });
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  it('an agent\'s introspection shows the catalog schema only; an admin\'s the whole', async () => {
    const agent = (await aTenantWithKey(host, 'intro-agent')).key;
    const types = async (key: string) =>
      (await host.gqlOk<{ __schema: { types: Array<{ name: string }>; mutationType: { name: string } | null } }>('{ __schema { mutationType { name } types { name } } }', {}, key)).__schema;
    const a = await types(agent);
    expect(a.mutationType).to.equal(null);
    expect(a.types.map((t) => t.name)).to.include('ToolDescriptor').and.not.to.include.members(['McpSource', 'AdminTool', 'Tenant', 'AuditEntry', 'SourceInput']);
    const admin = await types(host.adminKey);
    expect(admin.mutationType?.name).to.equal('Mutation');
    expect(admin.types.map((t) => t.name)).to.include.members(['McpSource', 'AdminTool', 'Tenant']);
  });
});

describe('issue 11 defect 4: TOOLCAT_GRAPHQL_INTROSPECTION', () => {
  const mode = (env: Record<string, string>) => loadConfig({ TOOLCAT_SQLITE_PATH: ':memory:', ...env }).security.introspection;
  it('defaults to admins in development and off in production', () => {
    expect(mode({})).to.equal('admins');
    expect(mode({ NODE_ENV: 'production' })).to.equal('off');
  });
  it('takes off | admins | all, and true/false for compatibility (true = all, false = off)', () => {
    for (const [v, want] of [['off', 'off'], ['admins', 'admins'], ['all', 'all'], ['true', 'all'], ['false', 'off'], ['ALL', 'all']] as const) {
      expect(mode({ TOOLCAT_GRAPHQL_INTROSPECTION: v }), v).to.equal(want);
      expect(mode({ TOOLCAT_GRAPHQL_INTROSPECTION: v, NODE_ENV: 'production' }), `${v} in production`).to.equal(want);
    }
  });
  it('refuses anything else, naming the allowed values', () => {
    expect(() => mode({ TOOLCAT_GRAPHQL_INTROSPECTION: 'agents' })).to.throw(/TOOLCAT_GRAPHQL_INTROSPECTION must be off, admins or all/);
  });
});
