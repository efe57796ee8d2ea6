/**
 * Issue 16 §3: the fidelity gaps of the neutral compactor found on real schemas, each pinned with a minimal
 * schema. Every test asserts both the kept structure and the fixed-wording note (design/compact-view.md §4.7).
 */
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import { compact, type JsonObject } from './index';

const prop = (s: unknown, name: string): JsonObject => (compact(s).schema.properties as Record<string, JsonObject>)[name];
const accepts = (schema: JsonObject, x: unknown): boolean => new Ajv2020({ strict: false, logger: false }).validate(schema, x) as boolean;

describe('compact(): issue 16 fidelity gaps', () => {
  it('a union of literals with an object branch keeps the object and notes the literals (sort: 1 | -1 | "asc" | "desc" | object)', () => {
    const schema = { type: 'object', properties: { sort: { anyOf: [{ const: 1 }, { const: -1 }, { const: 'asc' }, { const: 'desc' }, { type: 'object', additionalProperties: { type: 'integer' } }] } } };
    const sort = prop(schema, 'sort');
    expect(sort.type).to.deep.equal(['integer', 'string', 'object']);
    expect(sort.additionalProperties).to.deep.equal({ type: 'integer' });
    expect(sort.description).to.equal('Integer or string values: one of 1, -1, asc, desc.');
    for (const x of [1, -1, 'asc', { a: 1 }]) expect(accepts(compact(schema).schema, { sort: x })).to.equal(true);
  });

  it('a union of a pattern-constrained string with a string enum keeps the string type and notes both alternatives', () => {
    const d = prop({ type: 'object', properties: { d: { anyOf: [{ type: 'string', pattern: '^[0-9]+d$' }, { enum: ['today', 'yesterday'] }] } } }, 'd');
    expect(d).to.deep.equal({ type: 'string', description: 'Strings: matching /^[0-9]+d$/ | one of today, yesterday.' });
  });

  it('a pattern kept by only some string branches is noted, not dropped silently', () => {
    const s = prop({ type: 'object', properties: { s: { anyOf: [{ type: 'string', pattern: '^a' }, { type: 'string', maxLength: 3 }] } } }, 's');
    expect(s).to.deep.equal({ type: 'string', description: 'Strings: matching /^a/ | length ≤ 3.' });
  });

  it('a number enum next to a bounded number branch is noted', () => {
    const n = prop({ type: 'object', properties: { n: { anyOf: [{ enum: [0, 1] }, { type: 'number', minimum: 10 }] } } }, 'n');
    expect(n.type).to.equal('number');
    expect(n.description).to.equal('Numbers: one of 0, 1 | ≥ 10.');
  });

  it('the discriminator map is kept when branch descriptions would fill the per-node note cap (notes ranked before capping)', () => {
    const long = 'This variant has a long description explaining a lot of things about it, really quite a lot of things.';
    const branch = (k: string) => ({ type: 'object', description: `${long} (${k})`, properties: { kind: { const: k }, [`f${k}`]: { type: 'string' } }, required: ['kind', `f${k}`] });
    const x = prop({ type: 'object', properties: { x: { oneOf: [branch('a'), branch('b'), branch('c')] } } }, 'x');
    expect(x.description as string).to.match(/^Variants by kind: a \{fa\*\} \| b \{fb\*\} \| c \{fc\*\}\. Variants: /);
    expect((x.description as string).length).to.be.at.most(300);
  });

  it('`items` under a node typed object is noted, not dropped silently', () => {
    const o = prop({ type: 'object', properties: { o: { type: 'object', items: { type: 'string' } } } }, 'o');
    expect(o).to.deep.equal({ type: 'object', description: 'Original declares "items" on a node typed object; ignored.' });
  });

  it('"Exactly one of" is not claimed when a branch lets another branch\'s key be present (closed or constraining branch)', () => {
    const closed = prop(
      {
        type: 'object',
        properties: {
          s: {
            oneOf: [
              { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'] },
              { type: 'object', properties: { b: { type: 'string' } }, required: ['b'], additionalProperties: false },
            ],
          },
        },
      },
      's',
    );
    // {a, b} is valid in the original (only the first branch matches), so "exactly one" would be false
    expect(closed.description).to.equal('At least one of: a, b.');
    const open = prop({ type: 'object', properties: { s: { oneOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { type: 'object', properties: { b: { type: 'string' } }, required: ['b'] }] } } }, 's');
    // both open and silent on each other's key: {a, b} matches both branches, so oneOf rejects it: "exactly one" holds
    expect(open.description).to.equal('Exactly one of: a, b.');
  });

  it('notes are separated from a description without final punctuation', () => {
    expect(prop({ type: 'object', properties: { p: { type: 'string', description: 'A link', format: 'uri' } } }, 'p').description).to.equal('A link. Format: uri.');
    expect(prop({ type: 'object', properties: { p: { type: 'string', description: 'A link.', format: 'uri' } } }, 'p').description).to.equal('A link. Format: uri.');
    expect(prop({ type: 'object', properties: { p: { type: 'string', description: 'A link (see docs)\n', format: 'uri' } } }, 'p').description).to.equal('A link (see docs). Format: uri.');
  });

  it('a typeless root narrowed to an object carries a report note like the other narrowings', () => {
    const r = compact({ description: 'anything' });
    expect(r.schema).to.deep.equal({ type: 'object', description: 'anything', properties: {} });
    expect(r.notes.filter((n) => n.rule === 'root')).to.deep.equal([{ path: '', origin: '', rule: 'root', action: 'dropped', text: 'Root narrowed to object (original had no type).' }]);
  });
});
