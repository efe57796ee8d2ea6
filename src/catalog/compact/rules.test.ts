/**
 * Unit tests of the merge rules (design/compact-view.md §4.4–4.6) on doc cases that are not in
 * compact-cases.json: T12, T14, T19, T21, T22, T25, T37, T39, `not` rewrites, dialect quirks.
 */
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import { compact, type JsonObject } from './index';

const prop = (s: unknown, name: string): JsonObject => (compact(s).schema.properties as Record<string, JsonObject>)[name];
const accepts = (schema: JsonObject, x: unknown): boolean => new Ajv2020({ strict: false, logger: false }).validate(schema, x) as boolean;

describe('compact(): union rules (§4.5)', () => {
  it('T12: a discriminated union folds into one object with a tag enum and variant notes', () => {
    const shape = prop(
      {
        type: 'object',
        properties: {
          shape: {
            oneOf: [
              { type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number' } }, required: ['kind', 'radius'] },
              { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
            ],
            discriminator: { propertyName: 'kind' },
          },
        },
      },
      'shape',
    );
    expect(shape).to.deep.equal({
      type: 'object',
      description: 'Variants by kind: circle {radius*} | square {side*}.',
      properties: {
        kind: { type: 'string', enum: ['circle', 'square'] },
        radius: { type: 'number', description: 'Only when kind = circle (required there).' },
        side: { type: 'number', description: 'Only when kind = square (required there).' },
      },
      required: ['kind'],
    });
  });

  it('T19: null is not added to an enum that lacked it; T18-style literal unions add it', () => {
    expect(prop({ type: 'object', properties: { m: { type: ['string', 'null'], enum: ['a', 'b'] } } }, 'm')).to.deep.equal({ type: ['string', 'null'], enum: ['a', 'b'] });
    expect(prop({ type: 'object', properties: { m: { anyOf: [{ enum: ['a'] }, { const: null }] } } }, 'm')).to.deep.equal({ type: ['string', 'null'], enum: ['a', null] });
  });

  it('T37: a name shared by object branches unions its schemas', () => {
    const x = prop({ type: 'object', properties: { x: { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { a: { type: 'integer' } } }] } } }, 'x');
    expect(x).to.deep.equal({ type: 'object', properties: { a: { type: ['string', 'integer'] } } });
  });

  it('T39: a parent distributed over anyOf [{required:[a]},{required:[b]}] keeps its properties and notes "At least one of"', () => {
    const r = compact({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, anyOf: [{ required: ['a'] }, { required: ['b'] }] });
    expect(r.schema).to.deep.equal({ type: 'object', description: 'At least one of: a, b.', properties: { a: { type: 'string' }, b: { type: 'string' } } });
  });

  it('integer and number branches merge into number with the loosest bounds and a note', () => {
    const n = prop({ type: 'object', properties: { n: { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'number', maximum: -1 }] } } }, 'n');
    expect(n).to.deep.equal({ type: 'number', description: 'One of: integer ≥ 0 or number ≤ -1.' });
  });

  it('never picks one branch: every branch value stays valid (pitfall 10)', () => {
    const s = { type: 'object', properties: { v: { oneOf: [{ type: 'string', maxLength: 3 }, { type: 'array', items: { type: 'integer' } }, { type: 'boolean' }] } } };
    const c = compact(s).schema;
    for (const v of ['abc', [1, 2], true]) expect(accepts(c, { v })).to.equal(true);
    for (const v of ['abcd', ['x'], 1]) expect(accepts(c, { v })).to.equal(false);
  });
});

describe('compact(): intersection rules (§4.4)', () => {
  it('T14: additionalProperties:false in one allOf part does not discard the other part’s properties', () => {
    const x = prop({ type: 'object', properties: { x: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }, { type: 'object', properties: { b: { type: 'integer' } } }] } } }, 'x');
    expect(x.properties).to.deep.equal({ a: { type: 'string' }, b: { type: 'integer' } });
    expect(x.additionalProperties).to.equal(undefined);
    expect(x.description).to.equal('Parts of the original restrict extra properties differently (b); not enforced here.');
  });

  it('every closed allOf part keeps the object closed; integer multipleOf intersects by lcm', () => {
    const x = prop({ type: 'object', properties: { x: { allOf: [{ type: 'object', properties: { a: {} }, additionalProperties: false }, { properties: { a: { type: 'integer', multipleOf: 4 } }, additionalProperties: false }, { properties: { a: { multipleOf: 6 } }, additionalProperties: false }] } } }, 'x');
    expect(x).to.deep.equal({ type: 'object', properties: { a: { type: 'integer', multipleOf: 12 } }, additionalProperties: false });
  });

  it('UNSAT required property becomes {} with a note instead of failing (T15 counterpart)', () => {
    const r = compact({ type: 'object', properties: { p: { allOf: [{ type: 'string' }, { type: 'integer' }] } }, required: ['p'] });
    expect(r.schema.properties).to.deep.equal({ p: { description: 'p: contradictory in original.' } });
    expect(r.schema.required).to.deep.equal(['p']);
  });
});

describe('compact(): other keywords (§4.6)', () => {
  it('T21/T22: patternProperties intersect into matching declared names and keep open objects open', () => {
    const closed = compact({ type: 'object', properties: { x_a: { type: 'string' } }, patternProperties: { '^x_': { maxLength: 3 } }, additionalProperties: false }).schema;
    expect((closed.properties as Record<string, JsonObject>).x_a).to.deep.equal({ type: 'string', maxLength: 3 });
    expect(closed.additionalProperties).to.deep.equal({ maxLength: 3 });
    const open = compact({ type: 'object', properties: { q: { type: 'string' } }, patternProperties: { '^meta_': { type: 'string' } } }).schema;
    expect(open.additionalProperties).to.equal(undefined);
    expect(open.description).to.equal('Keys matching /^meta_/: string.');
    expect(accepts(open, { other: 5 })).to.equal(true);
  });

  it('T25 and exact `not` rewrites; other negations are dropped with a note (pitfall 26)', () => {
    const r = compact({
      type: 'object',
      properties: {
        alt: { not: {} },
        a: { type: ['string', 'null'], not: { type: 'null' } },
        b: { enum: ['x', 'y', 'z'], not: { enum: ['y'] } },
        c: { type: 'string', not: { const: '' } },
        d: { type: 'object', not: { required: ['p', 'q'] } },
        e: { not: { anyOf: [{ required: ['p'] }, { required: ['q'] }] } },
      },
    }).schema;
    expect(r.description).to.equal('Do not provide alt.');
    expect(r.properties).to.deep.equal({
      a: { type: 'string' },
      b: { type: 'string', enum: ['x', 'z'] },
      c: { type: 'string', minLength: 1 },
      d: { type: 'object', description: 'Do not provide p, q together.' },
      e: { description: 'Do not provide any of: p, q.' },
    });
  });

  it('if/then adds arm-only properties as optional with a conditional note', () => {
    const r = compact({ type: 'object', properties: { kind: { type: 'string' } }, if: { properties: { kind: { const: 'a' } } }, then: { properties: { extra: { type: 'integer' } }, required: ['extra'] } }).schema;
    expect(r.properties).to.deep.equal({ kind: { type: 'string' }, extra: { type: 'integer', description: 'Only when kind = a (required there).' } });
    expect(r.required).to.equal(undefined);
  });

  it('draft-04 boolean exclusiveMinimum and OpenAPI nullable/discriminator/example are normalised', () => {
    const r = compact({ type: 'object', properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true, example: 1 }, s: { type: 'string', nullable: true, 'x-foo': 1 } } }).schema;
    expect(r.properties).to.deep.equal({ n: { type: 'number', exclusiveMinimum: 0 }, s: { type: ['string', 'null'] } });
  });

  it('contains, propertyNames and unevaluatedProperties are described, never kept', () => {
    const r = compact({ type: 'object', properties: { l: { type: 'array', contains: { const: 'a' } }, o: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, properties: {}, allOf: [{ properties: { a: {} } }], unevaluatedProperties: false } } }).schema;
    const p = r.properties as Record<string, JsonObject>;
    expect(p.l).to.deep.equal({ type: 'array', description: 'Must contain at least one item: string, one of a.', items: {} });
    expect(p.o.description).to.equal('Keys must match /^[a-z]+$/. No other properties allowed in the original.');
  });
});
