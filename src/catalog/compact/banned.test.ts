/**
 * TC-VIEW-3 checker unit tests: findBannedKeywords walks schema positions only (design/compact-view.md
 * pitfall 1, T28/T29): property NAMES and data values are not keywords.
 */
import { expect } from 'chai';
import { BANNED_KEYWORDS, findBannedKeywords } from './index';

describe('findBannedKeywords (TC-VIEW-3 checker)', () => {
  it('TC-VIEW-3: lists the seven banned keywords', () => {
    expect([...BANNED_KEYWORDS].sort()).to.deep.equal(['$ref', 'allOf', 'anyOf', 'dependentSchemas', 'not', 'oneOf', 'patternProperties']);
  });

  it('TC-VIEW-3: a property merely NAMED `not`, `$ref`, `anyOf` or `patternProperties` is data', () => {
    const schema = {
      type: 'object',
      properties: { not: { type: 'boolean' }, $ref: { type: 'string' }, anyOf: { type: 'array' }, patternProperties: { type: 'object' } },
      required: ['$ref', 'not'],
    };
    expect(findBannedKeywords(schema)).to.deep.equal([]);
  });

  it('TC-VIEW-3: finds a keyword inside properties.x.items.anyOf, with an RFC 6901 pointer', () => {
    const schema = { type: 'object', properties: { x: { type: 'array', items: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/y' }] } } } };
    expect(findBannedKeywords(schema)).to.deep.equal(['/properties/x/items/anyOf', '/properties/x/items/anyOf/1/$ref']);
  });

  it('TC-VIEW-3: keyword-looking keys inside enum / const / default / examples values are data', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { enum: [{ $ref: '#/x' }, { not: {} }] },
        b: { const: { anyOf: [] } },
        c: { default: { oneOf: [], allOf: [] } },
        d: { examples: [{ patternProperties: {} }], example: { dependentSchemas: {} } },
      },
    };
    expect(findBannedKeywords(schema)).to.deep.equal([]);
  });

  it('finds keywords at every schema position of the keyword table, escaping pointer tokens', () => {
    const schema = {
      not: { type: 'null' },
      $defs: { 'a/b': { oneOf: [true] } },
      definitions: { 'x~y': { allOf: [true] } },
      patternProperties: { '^z': { $ref: '#' } },
      dependentSchemas: { a: { anyOf: [true] } },
      items: [{ not: {} }],
      prefixItems: [{ $ref: '#' }],
      if: { then: {}, not: {} },
      additionalProperties: { oneOf: [true] },
      dependencies: { a: ['b'], c: { allOf: [true] } },
      contentSchema: { $ref: '#' },
    };
    expect(findBannedKeywords(schema)).to.have.members([
      '/not',
      '/patternProperties',
      '/dependentSchemas',
      '/$defs/a~1b/oneOf',
      '/definitions/x~0y/allOf',
      '/patternProperties/^z/$ref',
      '/dependentSchemas/a/anyOf',
      '/items/0/not',
      '/prefixItems/0/$ref',
      '/if/not',
      '/additionalProperties/oneOf',
      '/dependencies/c/allOf',
      '/contentSchema/$ref',
    ]);
  });

  it('is total: non-objects, cycles and hostile getters never throw', () => {
    for (const x of [undefined, null, 0, 'anyOf', [], [{ anyOf: [] }], true]) expect(findBannedKeywords(x)).to.deep.equal([]);
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    expect(findBannedKeywords(cyclic)).to.deep.equal([]);
    const hostile = Object.defineProperty({}, 'properties', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(findBannedKeywords(hostile)).to.deep.equal(['']);
    let deep: unknown = { anyOf: [] };
    for (let i = 0; i < 20_000; i++) deep = { items: deep };
    expect(findBannedKeywords(deep)).to.have.length(1);
  });
});
