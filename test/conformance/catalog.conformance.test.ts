/**
 * Conformance suite for the host side of tool catalog v2 (../shared/spec/clauses.md), over real HTTP on
 * loopback against SQLite and PostgreSQL. Every response body is validated with ajv (TC-SHAPE-1).
 */
import { expect } from 'chai';
import { deriveAnnotations } from '../../src/catalog/annotations';
import { containsCredential } from '../../src/catalog/credentials';
import type { ToolDescriptor } from '../../src/catalog/descriptor';
import { forEachDatabase } from '../helpers/databases';
import { findBannedKeywords } from '../../src/catalog/compact';
import { expectCompactDescriptor, expectCompactList, expectStandardDescriptor, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, startHost } from '../helpers/test-host';
import { clause } from './clause';
import { startExtensionEndpoint } from '../helpers/extension-endpoint';
import { parseSse } from '../helpers/sse';
import { EXPECTED_VISIBLE, type Scenario, aSimulatedSource, applyListing, buildScenario, ingestGithub } from './scenario';

forEachDatabase('Tool catalog v2 conformance', (database) => {
  let host: TestHost;
  let s: Scenario;
  let drop: () => Promise<void>;
  const db = async () => (await database.create());

  before(async function () {
    this.timeout(60000);
    const created = await db();
    drop = created.drop;
    host = await startHost(created.db);
    s = await buildScenario(host);
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  const list = async (key: string, query = '') => {
    const r = await host.get(`/tools${query}`, key);
    expect(r.status, r.text).to.equal(200);
    const body = r.json() as ToolDescriptor[];
    expectStandardList(body);
    return { r, body, ids: body.map((d) => d.toolId) };
  };

  clause('TC-CAT-1', 'a host advertising toolCatalog serves GET /tools (a ToolDescriptor[]) and GET /tools/{toolId}', async () => {
    const caps = await host.get('/capabilities', s.acme.key);
    expect(caps.status).to.equal(200);
    expect(caps.json()).to.have.nested.property('toolCatalog.sources');
    const { body } = await list(s.acme.key);
    expect(body.length).to.equal(EXPECTED_VISIBLE.acme.length);
    for (const d of body) {
      const one = await host.get(`/tools/${d.toolId}`, s.acme.key);
      expect(one.status).to.equal(200);
      expect(one.headers.get('content-type')).to.match(/^application\/json/);
      expectStandardDescriptor(one.json());
      expect(one.json()).to.deep.equal(d);
    }
  });

  clause('TC-CAT-2', 'both endpoints are read-only: no request to them changes any state', async () => {
    const before = await list(s.acme.key);
    const version = async () => Number(((await host.app.dataSource.query('SELECT version FROM catalog_state')) as Array<{ version: number }>)[0].version);
    const v0 = await version();
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/tools', '/tools/ext.calculator', '/tools/mcp.github.create_issue']) {
        const r = await host.request(method, path, host.adminKey, JSON.stringify({ toolId: 'ext.evil', safetyTier: 'pure' }));
        expect(r.status, `${method} ${path}`).to.equal(405);
        expect(r.headers.get('allow')).to.equal('GET, HEAD');
      }
    }
    await list(s.acme.key);
    await host.get('/tools/ext.calculator', s.acme.key);
    expect(await version()).to.equal(v0);
    expect((await list(s.acme.key)).r.text).to.equal(before.r.text);
  });

  clause('TC-CAT-3', 'the list holds only the tools the caller may invoke in its tenant (four tenants, overlapping and disjoint grants)', async () => {
    for (const party of Object.keys(EXPECTED_VISIBLE) as Array<keyof Scenario>) {
      const { ids } = await list(s[party].key);
      expect(ids, party).to.deep.equal(EXPECTED_VISIBLE[party]);
    }
    // The tenant-scoped tool never reaches another tenant, even one granted `*`.
    expect((await list(s.hooli.key)).ids).not.to.include('ext.acme_only');
    // The tier ceiling holds: acme is granted ext.* up to write, so not the exec tool.
    expect((await list(s.acme.key)).ids).not.to.include('ext.run_shell');
  });

  clause('TC-CAT-4', 'unknown and unauthorized toolIds both return 404, indistinguishable in status, headers and body', async () => {
    const cases = [
      ['ext.no_such_tool', s.globex.key],
      ['ext.write_file', s.globex.key], // exists, not granted to globex
      ['ext.acme_only', s.hooli.key], // exists, another tenant's
      ['ext.run_shell', s.acme.key], // exists, above acme's tier ceiling
      ['ext.read_file', s.acmeNarrow.key], // granted to the tenant, narrowed away for this principal
      ['not a valid id', s.globex.key],
    ] as const;
    const answers = [];
    for (const [id, key] of cases) {
      const r = await host.get(`/tools/${encodeURIComponent(id)}`, key);
      answers.push({ status: r.status, body: r.text, type: r.headers.get('content-type'), length: r.headers.get('content-length'), etag: r.headers.get('etag'), cache: r.headers.get('cache-control'), auth: r.headers.get('www-authenticate') });
    }
    expect(answers[0].status).to.equal(404);
    for (const a of answers) expect(a).to.deep.equal(answers[0]);
    // The same through GraphQL: null for both.
    const q = 'query($id: String!) { tool(toolId: $id) { __typename } }';
    for (const [id, key] of cases) expect((await host.gqlOk<{ tool: null }>(q, { id }, key)).tool).to.equal(null);
  });

  clause('TC-CAT-5', 'toolCatalog.sources names the sources the host projects', async () => {
    const caps = (await host.get('/capabilities', s.hooli.key)).json() as { toolCatalog: { sources: string[] } };
    expect(caps.toolCatalog.sources).to.have.members(['host-extension', 'mcp']);
    const { body } = await list(s.hooli.key);
    for (const d of body) expect(caps.toolCatalog.sources).to.include(d.source);
  });

  clause('TC-CAT-7', 'tools are sorted by toolId in code-unit order and an unchanged catalog reads byte-identically', async () => {
    const a = await list(s.hooli.key);
    const b = await list(s.hooli.key);
    expect(b.r.text).to.equal(a.r.text);
    expect(b.r.headers.get('etag')).to.equal(a.r.headers.get('etag'));
    const sorted = [...a.ids].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    expect(a.ids).to.deep.equal(sorted);
    expect(a.ids.indexOf('ext.Zeta')).to.be.lessThan(a.ids.indexOf('ext.a-b'));
    expect(a.ids.indexOf('ext.a-b')).to.be.lessThan(a.ids.indexOf('ext.a_b'));
    // Revalidation with fetch() (which Express's own freshness check would mishandle): 304, no body.
    const etag = a.r.headers.get('etag')!;
    const r304 = await host.get('/tools', s.hooli.key, { 'if-none-match': etag, 'cache-control': 'no-cache' });
    expect(r304.status).to.equal(304);
    expect(r304.text).to.equal('');
    expect(r304.headers.get('etag')).to.equal(etag);
    expect(a.r.headers.get('cache-control')).to.include('private');
    expect(a.r.headers.get('vary')).to.equal('Authorization');
    const stale = await host.get('/tools', s.hooli.key, { 'if-none-match': '"something-else"' });
    expect(stale.status).to.equal(200);
  });

  clause('TC-DESC-1', 'toolId is unique in the catalog; a second definition with the same id is refused', async () => {
    const { ids } = await list(s.hooli.key);
    expect(new Set(ids).size).to.equal(ids.length);
    await aSimulatedSource(host, 'dup');
    const x = { name: 'x', inputSchema: { type: 'object' } };
    const out = await applyListing(host, 'dup', [x, { ...x, description: 'a different x' }, { name: 'y', inputSchema: { type: 'object' } }, { name: 'y', inputSchema: { type: 'object' } }]);
    expect(out).to.include({ quarantined: 1, served: 1 });
    const upstream = await host.gqlOk<{ upstreamTools: Array<{ name: string; quarantineReason: string | null }> }>('{ upstreamTools(source: "dup") { name quarantineReason } }');
    expect(upstream.upstreamTools).to.deep.equal([
      { name: 'x', quarantineReason: 'the server listed 2 different tools named "x"' },
      { name: 'y', quarantineReason: null },
    ]);
    expect((await host.get('/tools/mcp.dup.x', s.hooli.key)).status).to.equal(404);
    expect((await host.get('/tools/mcp.dup.y', s.hooli.key)).status).to.equal(200);
  });

  clause('TC-DESC-3', 'safetyTier "exec" only ever appears with source "host-extension"; exec is refused for MCP tools', async () => {
    const r = await host.gql('mutation { classifyTool(input: { toolId: "mcp.github.delete_repo", safetyTier: "exec", replayPolicy: "non-idempotent", egress: "open" }) { toolId } }');
    expect(r.errors?.[0].extensions?.code).to.equal('BAD_USER_INPUT');
    expect(r.errors?.[0].message).to.match(/exec.*host-extension/);
    for (const party of ['acme', 'hooli', 'initech'] as const) {
      for (const d of (await list(s[party].key)).body) if (d.safetyTier === 'exec') expect(d.source).to.equal('host-extension');
    }
    expect((await list(s.initech.key)).body[0]).to.include({ toolId: 'ext.run_shell', safetyTier: 'exec', source: 'host-extension' });
  });

  clause('TC-DESC-5', "the host assigns safetyTier, replayPolicy and egress; an MCP server's annotations are never copied", async () => {
    const lying = (await host.get('/tools/mcp.github.create_issue', s.acme.key)).json() as ToolDescriptor;
    expectStandardDescriptor(lying);
    // Upstream claimed readOnlyHint:true, destructiveHint:false, idempotentHint:true, openWorldHint:false.
    expect(lying).to.include({ safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open' });
    expect(lying.annotations).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    // Admins see the claim beside the decision.
    const admin = await host.gqlOk<{ adminTool: { claims: unknown; classified: boolean } }>('{ adminTool(toolId: "mcp.github.create_issue") { claims classified } }');
    expect(admin.adminTool).to.deep.equal({ claims: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }, classified: false });
    // The host's decision is what is served, and it survives a re-sync with different claims.
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.github.list_issues", safetyTier: "read", replayPolicy: "idempotent", egress: "restricted" }) { toolId } }');
    await ingestGithub(host, 'reversed');
    const listed = (await host.get('/tools/mcp.github.list_issues', s.globex.key)).json() as ToolDescriptor;
    expect(listed).to.include({ safetyTier: 'read', replayPolicy: 'idempotent', egress: 'restricted' });
  });

  clause('TC-DESC-6', 'a source "mcp" tool the host has not classified is safetyTier "write"', async () => {
    const d = (await host.get('/tools/mcp.github.delete_repo', s.acme.key)).json() as ToolDescriptor;
    expect(d).to.include({ source: 'mcp', safetyTier: 'write' });
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.github.delete_repo", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
    expect(((await host.get('/tools/mcp.github.delete_repo', s.acme.key)).json() as ToolDescriptor).safetyTier).to.equal('read');
    await host.gqlOk('mutation { unclassifyTool(toolId: "mcp.github.delete_repo") { toolId } }');
    const back = (await host.get('/tools/mcp.github.delete_repo', s.acme.key)).json() as ToolDescriptor;
    expect(back).to.include({ safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open' });
  });

  const everyServed = async () => (await list(s.hooli.key)).body.concat((await list(s.acme.key)).body);

  clause('TC-ANN-1', 'annotations carry all four MCP hints explicitly, never relying on MCP defaults', async () => {
    for (const d of await everyServed()) {
      expect(Object.keys(d.annotations).sort()).to.deep.equal(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint']);
      for (const v of Object.values(d.annotations)) expect(v).to.be.a('boolean');
    }
  });
  clause('TC-ANN-2', 'readOnlyHint is true iff safetyTier is pure or read', async () => {
    for (const d of await everyServed()) expect(d.annotations.readOnlyHint, d.toolId).to.equal(['pure', 'read'].includes(d.safetyTier));
  });
  clause('TC-ANN-3', 'destructiveHint is true iff safetyTier is write or exec', async () => {
    for (const d of await everyServed()) expect(d.annotations.destructiveHint, d.toolId).to.equal(['write', 'exec'].includes(d.safetyTier));
  });
  clause('TC-ANN-4', 'idempotentHint is true iff replayPolicy is deterministic or idempotent', async () => {
    for (const d of await everyServed()) expect(d.annotations.idempotentHint, d.toolId).to.equal(['deterministic', 'idempotent'].includes(d.replayPolicy));
  });
  clause('TC-ANN-5', 'openWorldHint is true unless egress is none', async () => {
    for (const d of await everyServed()) {
      expect(d.annotations.openWorldHint, d.toolId).to.equal(d.egress !== 'none');
      expect(d.annotations).to.deep.equal(deriveAnnotations(d));
    }
  });

  const compactList = async (key: string) => {
    const r = await host.get('/tools?view=compact', key);
    expect(r.status, r.text).to.equal(200);
    const body = r.json() as { tools: Array<{ toolId: string; inputSchema: Record<string, unknown> }> };
    expectCompactList(body);
    return { r, body };
  };

  clause('TC-VIEW-1', 'a host advertising compactView answers ?view=compact on both endpoints with CompactToolDescriptors; the list as { "tools": [...] }', async () => {
    const caps = (await host.get('/capabilities', s.acme.key)).json() as { toolCatalog: { compactView: boolean } };
    expect(caps.toolCatalog.compactView).to.equal(true);
    const { body } = await compactList(s.acme.key);
    expect(Object.keys(body)).to.deep.equal(['tools']);
    for (const d of body.tools) {
      const one = await host.get(`/tools/${d.toolId}?view=compact`, s.acme.key);
      expect(one.status).to.equal(200);
      expectCompactDescriptor(one.json());
      expect(one.json()).to.deep.equal(d);
      expect(one.json()).not.to.have.any.keys('title', 'outputSchema');
    }
    const gql = await host.gqlOk<{ tools: { appliedView: string; tools: Array<{ __typename: string }> } }>('{ tools(view: "compact") { appliedView tools { __typename } } }', {}, s.acme.key);
    expect(gql.tools.appliedView).to.equal('compact');
    expect(new Set(gql.tools.tools.map((t) => t.__typename))).to.deep.equal(new Set(['CompactToolDescriptor']));
  });

  clause('TC-VIEW-2', 'the compact list carries exactly the standard view\'s toolId set for the same caller', async () => {
    for (const party of Object.keys(EXPECTED_VISIBLE) as Array<keyof Scenario>) {
      const standard = (await list(s[party].key)).ids;
      const compact = (await compactList(s[party].key)).body.tools.map((d) => d.toolId);
      expect(compact, party).to.deep.equal(standard);
    }
  });

  clause('TC-VIEW-3', 'a compact inputSchema uses none of the seven composition keywords at any depth (over REST and GraphQL)', async () => {
    await aSimulatedSource(host, 'composite');
    await applyListing(host, 'composite', [
      {
        name: 'union_root',
        inputSchema: {
          $defs: { Node: { type: 'object', properties: { not: { type: 'string' }, $ref: { type: 'string' }, child: { $ref: '#/$defs/Node' } } } },
          anyOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { $ref: '#/$defs/Node' } } }],
          patternProperties: { '^x-': { type: 'string' } },
          dependentSchemas: { a: { properties: { c: { type: 'integer' } } } },
          allOf: [{ not: { required: ['zzz'] } }],
          oneOf: [{ properties: { d: { const: 1 } } }, { properties: { d: { const: 2 } } }],
        },
      },
    ]);
    const body = (await compactList(s.hooli.key)).body;
    const tool = body.tools.find((d) => d.toolId === 'mcp.composite.union_root');
    expect(tool, 'the composite tool is listed').to.not.equal(undefined);
    for (const d of body.tools) expect(findBannedKeywords(d.inputSchema), d.toolId).to.deep.equal([]);
    // Property *names* "not" and "$ref" are data and survive.
    expect(JSON.stringify(tool!.inputSchema)).to.include('"not"');
    const gql = await host.gqlOk<{ tools: { tools: Array<{ toolId: string; inputSchema: unknown }> } }>(
      '{ tools(view: "compact") { tools { ... on CompactToolDescriptor { toolId inputSchema } } } }', {}, s.hooli.key,
    );
    for (const d of gql.tools.tools) expect(findBannedKeywords(d.inputSchema), d.toolId).to.deep.equal([]);
    const notes = await host.gqlOk<{ adminTool: { compactNotes: Array<{ action: string }> } }>('{ adminTool(toolId: "mcp.composite.union_root") { compactNotes { action } } }');
    expect(notes.adminTool.compactNotes.length).to.be.greaterThan(0);
  });

  clause('TC-VIEW-4', 'any other view value, or a host not advertising compactView, yields the standard view', async () => {
    const standard = await list(s.acme.key);
    for (const q of ['?view=bogus', '?view=', '?view=COMPACT', '?view=standard', '?view=compact&view=compact', '?view[x]=compact']) {
      const r = await list(s.acme.key, q);
      expect(r.r.text, q).to.equal(standard.r.text);
    }
    expectStandardDescriptor((await host.get('/tools/ext.calculator?view=bogus', s.acme.key)).json());
    // The same database served by a host that does not advertise compactView.
    const opts = host.app.dataSource.options as { database?: string; url?: string };
    const plain = await startHost(database.name === 'sqlite' ? { type: 'sqlite', path: String(opts.database) } : { type: 'postgres', url: String(opts.url), poolSize: 2 }, { compactView: false, startSources: false });
    try {
      const caps = (await plain.get('/capabilities', s.acme.key)).json() as { toolCatalog: { compactView: boolean } };
      expect(caps.toolCatalog.compactView).to.equal(false);
      const r = await plain.get('/tools?view=compact', s.acme.key);
      expectStandardList(r.json());
      expect(r.text).to.equal(standard.r.text);
      expectStandardDescriptor((await plain.get('/tools/ext.calculator?view=compact', s.acme.key)).json());
    } finally {
      await plain.close();
    }
  });

  clause('TC-SESS-1', 'this host advertises sessionLifecycle and brackets every call with content-free tool.session.opened (first) and tool.session.closed (last)', async function () {
    this.timeout(20000);
    const caps = (await host.get('/capabilities', s.acme.key)).json() as { toolCatalog: { sessionLifecycle: boolean } };
    expect(caps.toolCatalog.sessionLifecycle).to.equal(true);
    const endpoint = await startExtensionEndpoint();
    try {
      await host.gqlOk('mutation($i: HostExtensionInput!) { upsertHostExtension(input: $i) { toolId } }', {
        i: {
          name: 'echo', tenantId: s.acme.tenantId, description: 'Echoes its arguments.', inputSchema: { type: 'object', properties: { secretWord: { type: 'string' } } },
          safetyTier: 'read', replayPolicy: 'deterministic', egress: 'none', implementation: { http: { url: { value: endpoint.url }, secret: { value: endpoint.secret } } },
        },
      });
      await host.gqlOk('mutation($i: CreateGrantInput!) { createGrant(input: $i) { id } }', { i: { tenantId: s.acme.tenantId, toolPattern: 'ext.echo' } });
      const word = 'PLUGH-argument-only-in-the-result';
      {
        const args = { secretWord: word };
        const res = await fetch(`${host.url}/tools/ext.echo/calls`, {
          method: 'POST',
          headers: { authorization: `Bearer ${s.acme.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify({ arguments: args }),
        });
        expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
        const events = parseSse(await res.text());
        const names = events.map((e) => e.event);
        expect(names[0]).to.equal('tool.session.opened');
        expect(names[names.length - 1]).to.equal('tool.session.closed');
        expect(names).to.include('tool.call.result');
        for (const e of events.filter((x) => x.event.startsWith('tool.session.'))) {
          // Content-free: a call id and a time, nothing else; no argument, no output.
          expect(Object.keys(e.data).sort()).to.deep.equal(['at', 'callId']);
          expect(JSON.stringify(e.data)).not.to.include(word);
          expect(Date.parse(String(e.data.at))).to.be.a('number').and.not.NaN;
        }
        const ids = new Set(events.map((e) => e.data.callId));
        expect(ids.size, 'one call id for the whole stream').to.equal(1);
        expect(JSON.stringify(events.find((e) => e.event === 'tool.call.result')!.data)).to.include(word);
      }
      // TC-CAT-2 still holds: listing shows no session events.
      expect((await host.get('/tools', s.acme.key)).text).not.to.include('tool.session.');
    } finally {
      await host.gqlOk('mutation { deleteHostExtension(toolId: "ext.echo") }').catch(() => undefined);
      await endpoint.close();
    }
  });

  clause('TC-SHAPE-1', 'every standard descriptor validates against schemas/v2/tool-descriptor.schema.json', async () => {
    for (const d of await everyServed()) expectStandardDescriptor(d);
    const gql = await host.gqlOk<{ tools: { tools: unknown[] } }>(
      '{ tools { tools { ... on ToolDescriptor { toolId name title description source safetyTier replayPolicy egress inputSchema outputSchema annotations { readOnlyHint destructiveHint idempotentHint openWorldHint } } } } }',
      {},
      s.hooli.key,
    );
    for (const d of gql.tools.tools) expectStandardDescriptor(Object.fromEntries(Object.entries(d as object).filter(([, v]) => v !== null)));
  });

  clause('TC-DESC-4', 'a descriptor carries no credential material, wherever an upstream tried to put it', async () => {
    const secret = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const aws = 'AKIA' + 'IOSFODNN7EXAMPLE';
    await aSimulatedSource(host, 'leaky');
    const out = await applyListing(host, 'leaky', [
      {
        name: 'search',
        title: `Search (token ${secret})`,
        description: `Searches. Use header Authorization: Bearer ${secret} and key ${aws}.`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: `e.g. https://admin:hunter2hunter2@db.internal/x` },
            apiKey: { type: 'string', default: 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' },
            password: { type: 'string', examples: ['correct-horse-battery'] },
            nested: { type: 'object', properties: { token: { type: 'string', default: secret } } },
          },
        },
      },
      { name: 'pinned', inputSchema: { type: 'object', properties: { key: { const: secret } } } },
    ]);
    expect(out).to.include({ served: 1, quarantined: 1 });
    const upstream = await host.gqlOk<{ upstreamTools: Array<{ name: string; quarantineReason: string | null }> }>('{ upstreamTools(source: "leaky") { name quarantineReason } }');
    expect(upstream.upstreamTools.find((u) => u.name === 'pinned')?.quarantineReason).to.match(/credential material \(github-token\)/);
    const r = await host.get('/tools/mcp.leaky.search', s.hooli.key);
    expect(r.status).to.equal(200);
    expectStandardDescriptor(r.json());
    for (const leaked of [secret, aws, 'hunter2', '4eC39HqLyjWDarjtT1zdp7dc', 'correct-horse-battery']) expect(r.text).not.to.include(leaked);
    expect(containsCredential(r.text)).to.equal(false);
    expect((await host.get('/tools/mcp.leaky.pinned', s.hooli.key)).status).to.equal(404);
    // The removal is logged (place and kind), and the log never carries the value either.
    const logged = host.logs.join('');
    expect(logged).to.include('credential material removed');
    expect(logged).to.include('/inputSchema/properties/apiKey/default');
    expect(logged).not.to.include(secret);
  });

  clause('TC-DESC-2', 'toolId is stable: restarts, re-syncs and re-ordering of a source never change it', async function () {
    this.timeout(30000);
    const before = await list(s.hooli.key);
    await ingestGithub(host, 'reversed');
    await ingestGithub(host, 'forward');
    expect((await list(s.hooli.key)).r.text).to.equal(before.r.text);
    // Restart on the same database: same ids, same bytes.
    const dbConfig = host.app.dataSource.options;
    await host.close();
    host = await startHost(database.name === 'sqlite' ? { type: 'sqlite', path: String(dbConfig.database) } : { type: 'postgres', url: String((dbConfig as { url: string }).url), poolSize: 5 }, {}, false);
    const after = await list(s.hooli.key);
    expect(after.ids).to.deep.equal(before.ids);
    expect(after.r.text).to.equal(before.r.text);
  });
});
