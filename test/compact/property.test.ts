/**
 * Property-based tests of the compactor contract (design/compact-view.md §4.1, clause TC-VIEW-3):
 * total, ban-free (G1), compiles in Ajv 2020, deterministic, idempotent, and a declared superset of
 * the original (G2) on generated schemas. numRuns are bounded so the file runs in a few seconds.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { compact, findBannedKeywords } from '../../src/catalog/compact';
import { draft07Schema, hostileInput, rootSchema } from './arbitraries';
import { compileSchema, tryCompile } from './helpers';
import { mulberry32, sample } from './sampler';

// fixed seed for reproducible CI runs; FC_SEED / FC_SCALE explore more locally (FC_SCALE=20 ≈ a minute)
const SEED = Number(process.env.FC_SEED ?? 20250501);
const SCALE = Math.max(0.1, Number(process.env.FC_SCALE ?? 1));
const params = (numRuns: number) => ({ numRuns: Math.max(1, Math.round(numRuns * SCALE)), seed: SEED });

function assertClean(input: unknown): void {
  const r = compact(input);
  expect(findBannedKeywords(r.schema)).to.deep.equal([]);
  expect(r.schema.type).to.equal('object');
  expect(r.schema.properties).to.be.an('object');
  compileSchema(r.schema);
  // deterministic: byte-identical output for the same input and for a structural copy of it
  expect(JSON.stringify(compact(structuredClone(input)).schema)).to.equal(JSON.stringify(r.schema));
  // idempotent
  expect(compact(r.schema).schema).to.deep.equal(r.schema);
}

/** G2: every candidate the ORIGINAL accepts, the compact schema accepts too (inferTypes off, §4.1 exc. 2). */
function assertSuperset(schema: unknown, seed: number): number {
  const original = tryCompile(schema);
  if (original === undefined) return 0; // e.g. Ajv itself overflows on a ref loop without progress
  const compacted = compileSchema(compact(schema, { inferTypes: false }).schema);
  const rnd = mulberry32(seed);
  let checked = 0;
  for (let i = 0; i < 60; i++) {
    const x = sample(schema, schema, rnd);
    if (x === null || typeof x !== 'object' || Array.isArray(x)) continue; // the root is narrowed to object (§4.1 exc. 1)
    let valid: boolean;
    try {
      valid = original(x) === true;
    } catch {
      continue; // e.g. an original that recurses on the same instance (`allOf: [{$ref: "#"}]`) overflows Ajv
    }
    if (!valid) continue;
    checked++;
    expect(compacted(x), `instance ${JSON.stringify(x)} of ${JSON.stringify(schema)}`).to.equal(true);
  }
  return checked;
}

describe('compact view: properties (fast-check)', function () {
  this.timeout(60_000);

  it('TC-VIEW-3: never throws and always yields a ban-free, compilable, deterministic, idempotent object schema (2020-12 schemas)', () => {
    fc.assert(fc.property(rootSchema(false), (s) => assertClean(s)), params(60));
  });

  it('TC-VIEW-3: the same on draft-07 schemas (definitions, tuple items, dependencies)', () => {
    fc.assert(fc.property(draft07Schema(), (s) => assertClean(s)), params(40));
  });

  it('is total on hostile input (garbage values, keyword soup, OpenAPI / draft-04 quirks)', () => {
    fc.assert(
      fc.property(hostileInput(), (x) => {
        const r = compact(x);
        expect(findBannedKeywords(r.schema)).to.deep.equal([]);
        compileSchema(r.schema);
        expect(compact(r.schema).schema).to.deep.equal(r.schema);
      }),
      params(200),
    );
  });

  it('G2: instances valid under the original are accepted by the compact schema (2020-12, features below a plain root)', () => {
    let total = 0;
    fc.assert(fc.property(rootSchema(true, 3, false), fc.integer(), (s, seed) => { total += assertSuperset(s, seed); }), params(60));
    expect(total, 'enough valid instances were checked').to.be.greaterThan(300 * SCALE);
  });

  it('G2: the same with every object keyword on the root itself (2020-12)', () => {
    let total = 0;
    fc.assert(fc.property(rootSchema(true), fc.integer(), (s, seed) => { total += assertSuperset(s, seed); }), params(30));
    expect(total, 'enough valid instances were checked').to.be.greaterThan(60 * SCALE);
  });

  it('G2: instances valid under the original are accepted by the compact schema (draft-07)', () => {
    let total = 0;
    fc.assert(fc.property(draft07Schema(), fc.integer(), (s, seed) => { total += assertSuperset(s, seed); }), params(30));
    expect(total, 'enough valid instances were checked').to.be.greaterThan(200 * SCALE);
  });
});
