/**
 * Issue 16: the provider profiles' rules on minimal schemas (each rewrite and its fixed-wording note), and the
 * provider-safe function names: a seeded fast-check property over adversarial toolIds (long ids, `~` escapes, ids
 * differing only in `.` vs `_`): valid for the provider, stable, collision-free within a list, reversible.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { compact, type JsonObject } from '../index';
import { applyProfile, argumentsFromProfile, functionNameFor, PROFILE_NAMES, PROFILE_TABLES, profileViolations, toolIdForFunctionName } from './index';
import { isValidToolId } from '../../tool-id';

const neutral = (s: unknown): JsonObject => compact(s).schema;
const props = (s: JsonObject): Record<string, JsonObject> => s.properties as Record<string, JsonObject>;

describe('profile gemini (OpenAPI 3.0 subset of function declarations)', () => {
  const g = (s: unknown) => applyProfile('gemini', neutral(s));

  it('[X, "null"] becomes nullable X (exact, report-only); several types keep the most structured one, noted', () => {
    const r = g({ type: 'object', properties: { a: { type: ['string', 'null'] }, b: { type: ['integer', 'string'], minimum: 1, maxLength: 3 } } });
    expect(props(r.schema).a).to.deep.equal({ type: 'string', nullable: true });
    expect(props(r.schema).b).to.deep.equal({ type: 'string', description: 'Typed as string here; the original also accepts integer.', maxLength: 3 });
    expect(r.notes.find((n) => n.path === '/properties/b')?.action).to.equal('dropped');
  });

  it('a nullable string enum loses null to `nullable`; a non-string enum becomes a note (the JSON type is never changed)', () => {
    const r = g({ type: 'object', properties: { m: { enum: ['a', 'b', null] }, n: { enum: [1, 2, 3] } } });
    expect(props(r.schema).m).to.deep.equal({ type: 'string', nullable: true, enum: ['a', 'b'] });
    expect(props(r.schema).n).to.deep.equal({ type: 'integer', description: 'One of: 1, 2, 3.' });
  });

  it('exclusiveMinimum: integers get minimum x+1 (exact), numbers minimum x and a note', () => {
    const r = g({ type: 'object', properties: { i: { type: 'integer', exclusiveMinimum: 0 }, x: { type: 'number', exclusiveMaximum: 1.5 } } });
    expect(props(r.schema).i).to.deep.equal({ type: 'integer', minimum: 1 });
    expect(props(r.schema).x).to.deep.equal({ type: 'number', description: 'Must be < 1.5.', maximum: 1.5 });
  });

  it('additionalProperties, formats outside the allowed set, multipleOf and uniqueItems are removed with notes', () => {
    const r = g({
      type: 'object',
      properties: {
        o: { type: 'object', properties: { k: { type: 'string' } }, additionalProperties: false },
        e: { type: 'string', format: 'email' },
        m: { type: 'integer', multipleOf: 5 },
        u: { type: 'array', items: { type: 'string' }, uniqueItems: true },
      },
    });
    expect(props(r.schema).o).to.deep.equal({ type: 'object', description: 'No other properties allowed in the original.', properties: { k: { type: 'string' } } });
    expect(props(r.schema).e).to.deep.equal({ type: 'string', description: 'Format: email.' });
    expect(props(r.schema).m).to.deep.equal({ type: 'integer', description: 'Must be a multiple of 5.' });
    expect(props(r.schema).u).to.deep.equal({ type: 'array', description: 'Items must be unique.', items: { type: 'string' } });
    expect(profileViolations('gemini', r.schema)).to.deep.equal([]);
  });

  it('every node is typed: an any-value node is typed string with a note (a string is valid in the original)', () => {
    const r = g({ type: 'object', properties: { v: { description: 'Any value' } } });
    expect(props(r.schema).v).to.deep.equal({ type: 'string', description: 'Any value. Typed as string here; the original also accepts any other JSON value.' });
  });

  it('a property name Gemini refuses is reported (never renamed: G3)', () => {
    const r = g({ type: 'object', properties: { 'a-b': { type: 'string' } } });
    expect(props(r.schema)['a-b']).to.deep.equal({ type: 'string' });
    expect(r.notes.map((n) => n.rule)).to.deep.equal(['gemini.parameter-names']);
  });
});

describe('profile openai (strict mode where possible)', () => {
  const o = (s: unknown) => applyProfile('openai', neutral(s));

  it('optional fields become required and nullable, objects closed, strict: true', () => {
    const r = o({ type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer', default: 10 }, m: { enum: ['a', 'b'] } }, required: ['q'] });
    expect(r.strict).to.equal(true);
    expect(r.schema).to.deep.equal({
      type: 'object',
      description: 'Optional in the original (null means not given): n, m.',
      properties: { q: { type: 'string' }, n: { type: ['integer', 'null'], description: 'Default: 10.' }, m: { type: ['string', 'null'], enum: ['a', 'b', null] } },
      required: ['q', 'n', 'm'],
      additionalProperties: false,
    });
  });

  it('a tool without parameters is strict with {} (the model calls it with no arguments)', () => {
    const r = o({ type: 'object', properties: {} });
    expect(r).to.deep.include({ strict: true, schema: { type: 'object', properties: {}, additionalProperties: false } });
  });

  it('an open map, several types or an untyped value: strict false, the neutral schema, and a report note', () => {
    for (const [s, why] of [
      [{ type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } }, 'open map at /properties/tags'],
      [{ type: 'object', properties: { v: { type: ['string', 'integer'] } } }, 'value of several types at /properties/v'],
      [{ type: 'object', properties: { v: {} } }, 'untyped value at /properties/v'],
      [{ type: 'object', properties: { meta: { type: 'object' } } }, 'object without declared fields at /properties/meta'],
    ] as const) {
      const r = o(s);
      expect(r.strict).to.equal(false);
      expect(r.schema).to.deep.equal(neutral(s));
      expect(r.notes[0]).to.deep.equal({ path: '', origin: '', rule: 'openai.strict', action: 'relaxed', text: `Not strict: ${why}; the neutral compact schema is served.` });
    }
  });

  it('the documented limits: more than 1000 enum values is not strict', () => {
    const values = Array.from({ length: 400 }, (_, i) => `v${i}`);
    const r = o({ type: 'object', properties: { a: { enum: values }, b: { enum: values }, c: { enum: values } } });
    expect(r.strict).to.equal(false);
    expect(r.notes[0].text).to.match(/^Not strict: 1200 enum values \(limit 1000\)/);
  });
});

describe('argumentsFromProfile: the reverse of openai strict\'s null-for-optional', () => {
  it('drops a null the original refuses for an optional field, keeps one it accepts, recurses, leaves other profiles alone', () => {
    const s = neutral({
      type: 'object',
      properties: { q: { type: 'string' }, n: { type: 'integer' }, z: { type: ['string', 'null'] }, o: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } } },
      required: ['q'],
    });
    const sent = { q: 'x', n: null, z: null, o: [{ a: null }, { a: 'y' }], extra: null };
    expect(argumentsFromProfile('openai', s, sent)).to.deep.equal({ q: 'x', z: null, o: [{}, { a: 'y' }], extra: null });
    expect(argumentsFromProfile('gemini', s, sent)).to.equal(sent);
    // what the profile serves and what it gives back meet: the strict schema's null is the original's absence
    const strict = applyProfile('openai', s);
    expect(strict.strict).to.equal(true);
  });
});

describe('profile anthropic', () => {
  it('serves the neutral schema unchanged: it already meets every rule', () => {
    const s = { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } };
    expect(applyProfile('anthropic', neutral(s))).to.deep.equal({ schema: neutral(s), notes: [], texts: [] });
  });
});

describe('provider-safe function names (toolIdForFunctionName)', () => {
  // seeded (issue 16 standards): FC_SEED reproduces a run, the seed in use is printed
  const SEED = Number(process.env.FC_SEED ?? 160016);
  before(() => console.log(`      fast-check seed ${SEED}`));

  const segment = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._~-]{0,70}$/);
  const toolId = fc
    .oneof(
      fc.tuple(segment, segment).map(([a, b]) => `mcp.${a}.${b}`),
      segment.map((s) => `ext.${s}`),
      fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._~-]{100,199}$/),
      segment.map((s) => `mcp.src.${s.replace(/\./g, '~2E')}`),
    )
    .filter(isValidToolId);
  /** twins: ids that differ only in `.` vs `_` (and `_` runs), the collisions a naive `.`→`_` mapping makes */
  const withTwins = fc.array(toolId, { minLength: 1, maxLength: 30 }).map((ids) => [...new Set(ids.flatMap((id) => [id, id.replace(/\./g, '_'), id.replace(/_/g, '.'), id.replace(/\./, '__')]).filter(isValidToolId))]);

  it('valid for the provider, stable, collision-free in a list, and resolved back to the toolId', () => {
    fc.assert(
      fc.property(withTwins, (ids) => {
        for (const p of PROFILE_NAMES) {
          const names = ids.map((id) => functionNameFor(p, id));
          for (const n of names) expect(n).to.match(PROFILE_TABLES[p].functionName.pattern);
          expect(ids.map((id) => functionNameFor(p, id)), 'stable').to.deep.equal(names);
          expect(new Set(names).size, `collision among ${JSON.stringify(ids)}`).to.equal(ids.length);
          ids.forEach((id, i) => expect(toolIdForFunctionName(p, names[i], ids)).to.equal(id));
        }
      }),
      { seed: SEED, numRuns: 100 },
    );
  });

  it('reads like the toolId where it can: mcp__github__create_issue (openai, anthropic), the id itself (gemini)', () => {
    expect(functionNameFor('openai', 'mcp.github.create_issue')).to.equal('mcp__github__create_issue');
    expect(functionNameFor('anthropic', 'mcp.github.create_issue')).to.equal('mcp__github__create_issue');
    expect(functionNameFor('gemini', 'mcp.github.create_issue')).to.equal('mcp.github.create_issue');
    // a `.`/`_` twin cannot read the same: one of the two is hashed
    expect(functionNameFor('openai', 'mcp.github.create__issue')).to.match(/^mcp_github_create__issue___[a-z2-7]{10}$/);
  });

  it('an unknown name, or a name not in the caller\'s list, resolves to null', () => {
    expect(toolIdForFunctionName('openai', 'mcp__github__create_issue', ['mcp.github.list_issues'])).to.equal(null);
    expect(toolIdForFunctionName('openai', 'nope', [])).to.equal(null);
    expect(toolIdForFunctionName('gemini', 'mcp.github.create_issue', new Set(['mcp.github.create_issue']))).to.equal('mcp.github.create_issue');
  });
});
