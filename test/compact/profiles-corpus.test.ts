/**
 * Issue 16: the 8-server corpus of real MCP tools (test/fixtures/mcp-tools) through every provider profile. For
 * each tool and profile: 0 violations of the profile's rule table (its checker, profiles/rule-table.ts), 0
 * fallbacks, TC-VIEW-3 still holds, and the declared superset property with Ajv: an instance the ORIGINAL accepts,
 * adjusted only as the profile declares (openai strict: null for a field the original leaves optional, no field
 * the closed object does not declare), is accepted by the profile's schema, or is refused only at a node where a
 * narrowing was declared (a note of a narrowing rule: gemini's one-type-per-node and typed-node rules, the neutral
 * view's inferred types and root rule, §4.1 exceptions 1, 2 and 4). The violation counts before (the neutral view)
 * and after are pinned: they are the closing note of the issue.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { applyProfile, compact, findBannedKeywords, PROFILE_NAMES, profileViolations, type ProfileName } from '../../src/catalog/compact';
import { fixturesDir, readJson, tryCompile } from './helpers';
import { mulberry32, sample } from './sampler';

interface Fixture {
  server: string;
  version: string;
  tools: Array<{ name: string; inputSchema?: unknown }>;
}

const dir = fixturesDir();
const tools = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((f) => (readJson(join(dir, f)) as Fixture).tools.map((t) => ({ file: f, ...t })));

const ajv = new Ajv2020({ strict: false, logger: false, allErrors: true });
addFormats(ajv);

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const acceptsNull = (s: unknown): boolean => isObj(s) && (s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || s.nullable === true);

/** openai strict's declared adjustments of an instance (docs/profiles.md): undeclared keys of a closed object go, missing optional fields are null. */
function adjustForStrict(x: unknown, s: unknown): unknown {
  if (!isObj(s)) return x;
  if (Array.isArray(x) && isObj(s.items)) return x.map((v) => adjustForStrict(v, s.items));
  if (!isObj(x) || !isObj(s.properties)) return x;
  const props = s.properties;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) {
    if (Object.prototype.hasOwnProperty.call(props, k)) out[k] = adjustForStrict(x[k], props[k]);
    else if (s.additionalProperties !== false) out[k] = x[k];
  }
  for (const k of Array.isArray(s.required) ? (s.required as string[]) : []) if (!(k in out) && acceptsNull(props[k])) out[k] = null;
  return out;
}

/** Rules whose notes declare a narrowing (a subset the contract allows, noted): refusals at their nodes are declared. */
const NARROWING_RULES = new Set(['gemini.single-type', 'gemini.typed', 'infer-type', 'root']);

describe('issue 16: the fixture corpus through every provider profile', () => {
  it('holds the 8 captured servers', () => {
    expect(new Set(tools.map((t) => t.file)).size).to.equal(8);
    expect(tools.length).to.be.greaterThan(100);
  });

  it('violations of each profile\'s rule table before (neutral compact view) and after (profile), per tool', () => {
    const counts: Record<string, { before: number; after: number }> = {};
    for (const p of PROFILE_NAMES) counts[p] = { before: 0, after: 0 };
    let strict = 0;
    for (const t of tools) {
      const neutral = compact(t.inputSchema).schema;
      for (const p of PROFILE_NAMES) {
        // "before" judges the neutral view by the strictest form of each table (openai: strict mode)
        if (profileViolations(p, neutral, p === 'openai' ? true : undefined).length > 0) counts[p].before++;
        const r = applyProfile(p, neutral);
        if (profileViolations(p, r.schema, r.strict).length > 0) counts[p].after++;
        if (p === 'openai' && r.strict === true) strict++;
      }
    }
    console.log(`      corpus of ${tools.length} tools, tools violating each table: ${JSON.stringify(counts)}; openai strict: ${strict}`);
    expect(counts).to.deep.equal({ gemini: { before: 65, after: 0 }, openai: { before: 101, after: 0 }, anthropic: { before: 0, after: 0 } });
    expect(strict).to.equal(101);
  });

  for (const p of PROFILE_NAMES) {
    describe(`profile ${p}`, () => {
      for (const t of tools) {
        it(`${t.file}:${t.name}: 0 violations, 0 fallbacks, TC-VIEW-3, declared superset`, () => {
          const neutral = compact(t.inputSchema);
          expect(neutral.fallback, 'no fallback').to.equal(false);
          const r = applyProfile(p as ProfileName, neutral.schema);
          expect(profileViolations(p as ProfileName, r.schema, r.strict)).to.deep.equal([]);
          expect(findBannedKeywords(r.schema)).to.deep.equal([]);
          expect(r.schema.type).to.equal('object');
          expect(JSON.stringify(applyProfile(p as ProfileName, structuredClone(neutral.schema)).schema), 'deterministic').to.equal(JSON.stringify(r.schema));
          if (p === 'openai' && r.strict === false) expect(r.schema, 'strict:false serves the neutral schema').to.deep.equal(neutral.schema);
          const original = tryCompile(t.inputSchema);
          if (original === undefined) return;
          const validate = ajv.compile(r.schema);
          const declared = new Set([...neutral.notes, ...r.notes].filter((n) => NARROWING_RULES.has(n.rule)).map((n) => n.path));
          const rnd = mulberry32(t.name.length * 7919 + t.file.length + p.length);
          for (let i = 0; i < 40; i++) {
            const state = { cut: false };
            const x = sample(t.inputSchema, t.inputSchema, rnd, 0, true, state);
            if (state.cut || !isObj(x) || !original(x)) continue;
            const y = p === 'openai' && r.strict === true ? adjustForStrict(x, r.schema) : x;
            if (validate(y)) continue;
            for (const e of validate.errors ?? []) {
              const node = e.schemaPath.replace(/^#/, '').split('/').slice(0, -1).join('/');
              expect(declared.has(node), `instance ${JSON.stringify(y)} refused at ${e.schemaPath} (${e.message}) without a declared narrowing`).to.equal(true);
            }
          }
        });
      }
    });
  }
});

