/**
 * Real MCP tools (test/fixtures/mcp-tools/*.json, captured by scripts/capture-mcp-fixtures.ts): every
 * tool compacts cleanly (TC-VIEW-3), compiles, is idempotent and deterministic, accepts the tool's own
 * examples and schema-guided instances the original accepts (G2); notes of a few hard tools are pinned.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compact, findBannedKeywords } from '../../src/catalog/compact';
import { compileSchema, fixturesDir, readJson, tryCompile } from './helpers';
import { mulberry32, sample } from './sampler';

interface Fixture {
  server: string;
  version: string;
  capturedWith: string;
  tools: Array<{ name: string; inputSchema?: unknown }>;
}

const dir = fixturesDir();
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ file: f, data: readJson(join(dir, f)) as Fixture }));

function tool(file: string, name: string): unknown {
  const f = fixtures.find((x) => x.file === file);
  const t = f?.data.tools.find((x) => x.name === name);
  if (t === undefined) throw new Error(`fixture ${file}:${name} missing`);
  return t.inputSchema;
}

function visibleNotes(schema: unknown): Array<[string, string]> {
  return compact(schema)
    .notes.filter((n) => n.rule !== 'ref' && n.rule !== 'infer-type' && n.rule !== 'root')
    .map((n): [string, string] => [n.path, n.text]);
}

describe('compact view: corpus of real MCP tools (test/fixtures/mcp-tools)', () => {
  it('holds at least six captured servers with pinned versions and raw tools', () => {
    expect(fixtures.length).to.be.at.least(6);
    for (const { data } of fixtures) {
      expect(data.server).to.be.a('string');
      expect(data.version).to.match(/^\d+\.\d+\.\d+/);
      expect(data.tools.length).to.be.greaterThan(0);
    }
    const servers = fixtures.map((f) => f.data.server);
    for (const s of ['@notionhq/notion-mcp-server', '@modelcontextprotocol/server-everything', '@playwright/mcp']) expect(servers).to.include(s);
  });

  for (const { file, data } of fixtures) {
    describe(`${data.server}@${data.version} (${data.tools.length} tools)`, () => {
      for (const t of data.tools) {
        it(`TC-VIEW-3: ${t.name} compacts cleanly`, () => {
          const r = compact(t.inputSchema);
          expect(r.fallback, 'no fallback').to.equal(false);
          expect(findBannedKeywords(r.schema)).to.deep.equal([]);
          expect(r.schema.type).to.equal('object');
          const validate = compileSchema(r.schema);
          expect(compact(r.schema).schema, 'idempotent').to.deep.equal(r.schema);
          expect(JSON.stringify(compact(structuredClone(t.inputSchema)).schema), 'deterministic').to.equal(JSON.stringify(r.schema));
          const own = (t.inputSchema as { examples?: unknown }).examples;
          for (const x of Array.isArray(own) ? own : []) expect(validate(x), `own example ${JSON.stringify(x)}`).to.equal(true);
          // G2 on schema-guided instances the original accepts (inferTypes off: §4.1 exception 2)
          const original = tryCompile(t.inputSchema);
          if (original === undefined) return;
          const relaxed = compileSchema(compact(t.inputSchema, { inferTypes: false }).schema);
          const rnd = mulberry32(t.name.length * 7919 + file.length);
          for (let i = 0; i < 40; i++) {
            const state = { cut: false };
            const x = sample(t.inputSchema, t.inputSchema, rnd, 0, true, state);
            if (!state.cut && x !== null && typeof x === 'object' && !Array.isArray(x) && original(x)) {
              expect(relaxed(x), `instance ${JSON.stringify(x)}`).to.equal(true);
            }
          }
        });
      }
    });
  }

  describe('pinned notes of hard tools', () => {
    it('notion API-post-page: parent oneOf of input sources, non-allowlisted formats', () => {
      // issue 16: {database_id, type: "workspace"} matches only the workspace branch (the data-source branch pins
      // type = database_id), so it is valid: "exactly one of" was false here, "at least one of" holds
      expect(visibleNotes(tool('notion.json', 'API-post-page'))).to.deep.equal([
        ['/properties/parent', 'At least one of: page_id, database_id, type.'],
        ['/properties/icon', 'Format: json.'],
        ['/properties/cover', 'Format: json.'],
      ]);
    });

    it('notion API-move-page: discriminated parent (pitfall 18)', () => {
      expect(visibleNotes(tool('notion.json', 'API-move-page'))).to.deep.equal([
        ['/properties/parent', 'Variants by type: page_id {page_id*} | database_id {database_id*} | workspace.'],
        ['/properties/parent/properties/page_id', 'Only when type = page_id (required there).'],
        ['/properties/parent/properties/database_id', 'Only when type = database_id (required there).'],
      ]);
    });

    it('notion API-patch-block-children: block union by type', () => {
      expect(visibleNotes(tool('notion.json', 'API-patch-block-children'))).to.deep.equal([
        ['/properties/children/items', 'Variants by type: paragraph {paragraph} | bulleted_list_item {bulleted_list_item}.'],
        ['/properties/children/items/properties/paragraph', 'Only when type = paragraph.'],
        ['/properties/children/items/properties/bulleted_list_item', 'Only when type = bulleted_list_item.'],
      ]);
    });

    it('github create_pull_request_review: closed anyOf branches, draft-07 header dropped', () => {
      const schema = tool('github.json', 'create_pull_request_review');
      expect(visibleNotes(schema)).to.deep.equal([['/properties/comments/items', 'At least one of: position, line.']]);
      const items = ((compact(schema).schema.properties as Record<string, Record<string, unknown>>).comments.items as Record<string, unknown>);
      expect(items.required).to.deep.equal(['path', 'body']);
      expect(items.additionalProperties).to.equal(false);
      expect(compact(schema).schema.$schema).to.equal(undefined);
    });

    it('everything gzip-file-as-resource: format uri dropped, type kept (T34)', () => {
      expect(visibleNotes(tool('everything.json', 'gzip-file-as-resource'))).to.deep.equal([['/properties/data', 'Format: uri.']]);
    });
  });
});
