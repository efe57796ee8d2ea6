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
    for (const caller of ['anonymous', 'refused credential', 'agent']) {
      it(`issue 11 defect 4: schema enumeration — ${env}, ${caller}: no "Did you mean" suggestion and no introspection`, async () => {
        const key = keys[env][caller];
        for (const p of PROBES) {
          const r = await ask(env, key, p.query, p.variables);
          expect(r.body.errors, `${p.what}: ${r.text}`).to.be.an('array').that.is.not.empty;
          expect(r.text, p.what).not.to.match(/did you mean/i);
          expect(r.status, `${p.what}: ${r.text}`).to.equal(400);
        }
        for (const q of INTROSPECTION) {
          const r = await ask(env, key, q);
          expect(r.status, `${q}: ${r.text}`).to.equal(400);
          expect(r.body.errors?.[0].extensions?.code).to.equal('GRAPHQL_VALIDATION_FAILED');
          expect(r.body.errors?.[0].message).to.match(/introspection is not allowed/i);
          expect(r.body.data ?? null).to.equal(null);
          expect(r.text).not.to.match(/"queryType"|"fields"|"types"/);
        }
        // __typename is not introspection of the schema: it stays available to everyone.
        expect((await ask(env, key, '{ __typename }')).body).to.deep.equal({ data: { __typename: 'Query' } });
      });
    }
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
