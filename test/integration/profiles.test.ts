/**
 * Issue 16 plumbing: `?view=compact&profile=<name>` on both endpoints (REST, a thin translation onto the fixed
 * GraphQL documents) and the GraphQL `profile` argument. An unknown, absent or repeated profile is the neutral
 * compact view; any other view is the standard view whatever the profile (TC-VIEW-4). Every profiled descriptor
 * validates against schemas/v2 (TC-SHAPE-1), carries its provider-safe functionName (openai: and `strict`), and
 * the ETag differs per profile. /capabilities lists the profiles.
 */
import { expect } from 'chai';
import { PROFILE_NAMES, PROFILE_TABLES, profileViolations, toolIdForFunctionName, type JsonObject } from '../../src/catalog/compact';
import { forEachDatabase } from '../helpers/databases';
import { expectCompactDescriptor, expectCompactList } from '../helpers/schema-assert';
import { aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

interface Profiled {
  toolId: string;
  functionName?: string;
  strict?: boolean;
  inputSchema: JsonObject;
}

forEachDatabase('issue 16: compact view profiles over REST and GraphQL', (database) => {
  const suite = hostPerSuite(database, {}, async (h) => {
    await anExtension(h, {
      name: 'alpha',
      safetyTier: 'read',
      replayPolicy: 'idempotent',
      egress: 'none',
      inputSchema: { type: 'object', properties: { q: { type: 'string', format: 'email' }, n: { type: ['integer', 'null'], exclusiveMinimum: 0 } }, required: ['q'] },
    });
    await anExtension(h, { name: 'beta_tool', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' } } } } });
  });
  let key = '';
  before(async () => {
    const t = await aTenantWithKey(suite.host, 'profiles');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: '*' });
    key = t.key;
  });
  const get = (path: string, headers?: Record<string, string>) => suite.host.get(path, key, headers);

  it('GET /tools?view=compact&profile=<name>: valid compact lists, provider-safe names, 0 rule violations', async () => {
    for (const p of PROFILE_NAMES) {
      const r = await get(`/tools?view=compact&profile=${p}`);
      expect(r.status).to.equal(200);
      const body = r.json() as { tools: Profiled[] };
      expectCompactList(body);
      const ids = body.tools.map((t) => t.toolId);
      for (const t of body.tools) {
        expect(t.functionName, p).to.match(PROFILE_TABLES[p].functionName.pattern);
        expect(toolIdForFunctionName(p, t.functionName!, ids)).to.equal(t.toolId);
        expect(profileViolations(p, t.inputSchema, t.strict)).to.deep.equal([]);
        expect('strict' in t).to.equal(p === 'openai');
      }
    }
    const openai = (await get('/tools?view=compact&profile=openai')).json() as { tools: Profiled[] };
    expect(openai.tools.map((t) => [t.toolId, t.functionName, t.strict])).to.deep.equal([
      ['ext.alpha', 'ext__alpha', true],
      ['ext.beta_tool', 'ext__beta_tool', false],
    ]);
    const gemini = (await get('/tools?view=compact&profile=gemini')).json() as { tools: Profiled[] };
    expect(gemini.tools[0].inputSchema.properties).to.deep.equal({ q: { type: 'string', description: 'Format: email.' }, n: { type: 'integer', nullable: true, minimum: 1 } });
  });

  it('GET /tools/{toolId}?view=compact&profile=<name>: one profiled descriptor, its own ETag, 304 on a match', async () => {
    const neutral = await get('/tools/ext.alpha?view=compact');
    const etags = new Set([neutral.headers.get('etag')]);
    for (const p of PROFILE_NAMES) {
      const r = await get(`/tools/ext.alpha?view=compact&profile=${p}`);
      expect(r.status).to.equal(200);
      expectCompactDescriptor(r.json());
      expect((r.json() as Profiled).functionName).to.be.a('string');
      etags.add(r.headers.get('etag'));
      const again = await get(`/tools/ext.alpha?view=compact&profile=${p}`, { 'If-None-Match': r.headers.get('etag')! });
      expect(again.status).to.equal(304);
    }
    expect(etags.size, 'one ETag per profile and the neutral view').to.equal(PROFILE_NAMES.length + 1);
    const lists = new Set<string | null>();
    for (const q of ['view=compact', ...PROFILE_NAMES.map((p) => `view=compact&profile=${p}`)]) lists.add((await get(`/tools?${q}`)).headers.get('etag'));
    expect(lists.size).to.equal(PROFILE_NAMES.length + 1);
  });

  it('an unknown, absent or repeated profile is the neutral compact view; another view is the standard view (TC-VIEW-4)', async () => {
    const neutral = (await get('/tools?view=compact')).text;
    const standard = (await get('/tools')).text;
    for (const q of ['profile=mistral', 'profile=', 'profile=openai&profile=openai', 'profile=OPENAI', 'profile[x]=openai']) expect((await get(`/tools?view=compact&${q}`)).text, q).to.equal(neutral);
    for (const q of ['profile=openai', 'view=standard&profile=gemini', 'view=compactx&profile=anthropic']) expect((await get(`/tools?${q}`)).text, q).to.equal(standard);
    expect((await get('/tools/ext.alpha?profile=openai')).text).to.equal((await get('/tools/ext.alpha')).text);
    expect((await get('/tools/ext.nope?view=compact&profile=openai')).status).to.equal(404);
  });

  it('GraphQL: tools / tool take `profile`, report appliedProfile, and parse the very bytes REST serves', async () => {
    const q = `query($p: String) { tools(view: "compact", profile: $p) { appliedView appliedProfile tools { ... on CompactToolDescriptor { toolId functionName strict } } }
      tool(toolId: "ext.alpha", view: "compact", profile: $p) { ... on CompactToolDescriptor { functionName strict } } }`;
    const r = await suite.host.gqlOk<{ tools: { appliedView: string; appliedProfile: string | null; tools: Array<{ toolId: string; functionName: string | null; strict: boolean | null }> }; tool: { functionName: string | null } }>(q, { p: 'openai' }, key);
    expect(r.tools.appliedView).to.equal('compact');
    expect(r.tools.appliedProfile).to.equal('openai');
    expect(r.tools.tools).to.deep.equal([
      { toolId: 'ext.alpha', functionName: 'ext__alpha', strict: true },
      { toolId: 'ext.beta_tool', functionName: 'ext__beta_tool', strict: false },
    ]);
    expect(r.tool.functionName).to.equal('ext__alpha');
    const none = await suite.host.gqlOk<{ tools: { appliedProfile: string | null; tools: Array<{ functionName: string | null }> } }>(q, { p: 'nope' }, key);
    expect(none.tools.appliedProfile).to.equal(null);
    expect(none.tools.tools.every((t) => t.functionName === null)).to.equal(true);
  });

  it('/capabilities lists the profiles', async () => {
    const c = (await get('/capabilities')).json() as { toolCatalog: { profiles: string[] } };
    expect(c.toolCatalog.profiles).to.deep.equal(['gemini', 'openai', 'anthropic']);
  });
});
