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

  it('keeps a property named like a keyword as data (default, description) while scrubbing', () => {
    const { record } = prepareTool({ ...base, inputSchema: { type: 'object', properties: { default: { type: 'string' }, description: { type: 'string' } } } }, null);
    expect(JSON.parse(record.inputSchemaText).properties).to.have.keys('default', 'description');
  });

  it('keeps a __proto__ property name as data', () => {
    const { record } = prepareTool({ ...base, inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') }, null);
    expect(record.inputSchemaText).to.equal('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
  });
});
