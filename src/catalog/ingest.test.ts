import { expect } from 'chai';
import { CatalogError } from './catalog.errors';
import { prepareTool } from './ingest';
import { DEFAULT_INGEST_BOUNDS } from './ingest-bounds';
import { serializeStandard, toStandard } from './projection';
import type { ToolDefinition } from './tool-record';

const base: ToolDefinition = { source: 'mcp', origin: 'srv', toolId: 'mcp.srv.t', name: 't', description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } };
const refuse = (def: Partial<ToolDefinition>, re: RegExp) => expect(() => prepareTool({ ...base, ...def }, null)).to.throw(CatalogError, re);

describe(prepareTool.name, () => {
  it('stores the schema as canonical text and serves exactly those bytes', () => {
    const { record } = prepareTool({ ...base, inputSchema: { type: 'object', properties: { z: {}, a: {} } } }, null);
    expect(record.inputSchemaText).to.equal('{"type":"object","properties":{"z":{},"a":{}}}');
    expect(serializeStandard(record)).to.include(`"inputSchema":${record.inputSchemaText}`);
    expect(serializeStandard(record)).to.equal(JSON.stringify(toStandard(record)));
  });

  it('never copies upstream claims into the classification (TC-DESC-5/6)', () => {
    const { record } = prepareTool({ ...base, claims: { readOnlyHint: true, destructiveHint: false } }, null);
    expect(record.classification).to.deep.equal({ safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open' });
    expect(record.claimsText).to.equal('{"readOnlyHint":true,"destructiveHint":false}');
    expect(serializeStandard(record)).not.to.include('claims');
  });

  it('refuses what breaks the bounds or is not a JSON Schema, naming the problem', () => {
    refuse({ toolId: 'has space' }, /not a valid tool id/);
    refuse({ name: '' }, /name must not be empty/);
    refuse({ name: 'x'.repeat(200) }, /name is 200 characters long; the limit is 128/);
    refuse({ name: 'a\u0000b' }, /control characters/);
    refuse({ inputSchema: [] as unknown }, /inputSchema must be a JSON object/);
    refuse({ inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } }, /not a valid JSON Schema/);
    refuse({ inputSchema: { type: 'object', description: 'x'.repeat(DEFAULT_INGEST_BOUNDS.maxSchemaBytes) } }, /larger than/);
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { x: deep } };
    refuse({ inputSchema: deep }, /nested deeper than 64/);
    refuse({ description: 42 as unknown }, /description must be a string/);
  });

  it('accepts draft-07 schemas as MCP servers often send them', () => {
    const { record } = prepareTool({ ...base, inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } }, null);
    expect(record.inputSchemaText).to.include('draft-07');
  });

  it('TC-DESC-4: redacts text, removes annotation values, refuses meaningful values; reports place and kind only', () => {
    const token = 'xoxb-1234567890-abcdefghij';
    const { record, findings } = prepareTool(
      {
        ...base,
        description: `Posts with ${token}`,
        inputSchema: { type: 'object', properties: { channel: { type: 'string', default: token, description: 'channel' }, password: { type: 'string', examples: ['opensesame1'] } } },
      },
      null,
    );
    expect(record.description).to.equal('Posts with [redacted]');
    expect(record.inputSchemaText).not.to.include(token);
    expect(record.inputSchemaText).not.to.include('opensesame1');
    expect(findings.map((f) => [f.path, f.action])).to.deep.equal([
      ['/description', 'redacted'],
      ['/inputSchema/properties/channel/default', 'removed'],
      ['/inputSchema/properties/password/examples', 'removed'],
    ]);
    expect(JSON.stringify(findings)).not.to.include(token);
    refuse({ inputSchema: { type: 'object', properties: { k: { enum: [token] } } } }, /credential material \(slack-token\) at \/inputSchema\/properties\/k\/enum/);
    refuse({ name: `tool ${token}` }, /name contains credential material/);
  });

  it('TC-DESC-4 (issue 11): walks schema positions with the compactor\'s keyword table, judging literals by the property they sit under', () => {
    const pass = 'Hunter2-Vault-9x';
    const { record, findings } = prepareTool(
      {
        ...base,
        inputSchema: {
          type: 'object',
          properties: { mode: { type: 'string' }, user: { type: 'string' }, q: { type: 'string', 'x-vendor-hint': 'plain words', 'x-example': 'ghp_' + 'a1B2'.repeat(9) } },
          // draft-07 `dependencies`: a schema (walked) and a name list (data).
          dependencies: { mode: { properties: { password: { type: 'string', default: pass } } }, user: ['mode'] },
          $defs: { ApiKey: { type: 'string', examples: [pass] } },
          not: { properties: { token: { default: `Bearer ${'Zx9'.repeat(8)}` } } },
        },
      },
      null,
    );
    expect(findings.map((f) => [f.path, f.action])).to.deep.equal([
      ['/inputSchema/properties/q/x-example', 'removed'],
      ['/inputSchema/dependencies/mode/properties/password/default', 'removed'],
      ['/inputSchema/$defs/ApiKey/examples', 'removed'],
      ['/inputSchema/not/properties/token/default', 'removed'],
    ]);
    const schema = JSON.parse(record.inputSchemaText);
    expect(schema.properties.q).to.deep.equal({ type: 'string', 'x-vendor-hint': 'plain words' });
    expect(schema.dependencies.user).to.deep.equal(['mode']);
    expect(record.inputSchemaText).not.to.include(pass);
  });

  it('TC-DESC-4 (issue 11): const/enum under a secret-like name refuse the tool only when the literal is a secret', () => {
    const schema = (p: Record<string, unknown>) => ({ inputSchema: { type: 'object', properties: p } });
    refuse(schema({ passwords: { type: 'array', items: { type: 'string', const: 'hunter2hunter2' } } }), /credential material \(secret-like-name\) at \/inputSchema\/properties\/passwords\/items\/const/);
    refuse(schema({ password: { oneOf: [{ const: 'letmeinplease' }, { const: 'x' }] } }), /secret-like-name\) at \/inputSchema\/properties\/password\/oneOf\/0\/const/);
    refuse(schema({ access_token: { enum: ['none', 'Zk3Qx9Lm2Vb7Rt5Wp8Yc4Nd6'] } }), /secret-like-name/);
    refuse(schema({ q: { type: 'string', pattern: `^${'ghp_'}${'a1B2'.repeat(9)}$` } }), /credential material \(github-token\) at \/inputSchema\/properties\/q\/pattern/);
    for (const kept of [
      { auth: { enum: ['none', 'basic', 'oauth2', 'bearer'] } },
      { password: { const: '${PASSWORD}' } },
      { token_type: { enum: ['access_token', 'refresh_token'] } },
      { mode: { const: 'hunter2hunter2' } },
    ]) expect(() => prepareTool({ ...base, ...schema(kept) }, null), JSON.stringify(kept)).not.to.throw();
  });

  it('keeps a property named like a keyword as data (default, description) while scrubbing', () => {
    const { record } = prepareTool({ ...base, inputSchema: { type: 'object', properties: { default: { type: 'string' }, description: { type: 'string' } } } }, null);
    expect(JSON.parse(record.inputSchemaText).properties).to.have.keys('default', 'description');
  });

  it('keeps a __proto__ property name as data', () => {
    const { record } = prepareTool({ ...base, inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') }, null);
    expect(record.inputSchemaText).to.equal('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
  });
});
