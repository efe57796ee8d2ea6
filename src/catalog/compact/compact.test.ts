/**
 * Unit tests of the compactor's contract points that the case file does not pin
 * (design/compact-view.md §4.1–4.3, §4.8): refs and recursion, totality, options, determinism.
 */
import { expect } from 'chai';
import Ajv2020 from 'ajv/dist/2020';
import { COMPACTOR_VERSION, compact, findBannedKeywords, type JsonObject } from './index';

const props = (s: JsonObject): Record<string, JsonObject> => s.properties as Record<string, JsonObject>;
const accepts = (schema: JsonObject, x: unknown): boolean => new Ajv2020({ strict: false, logger: false }).validate(schema, x) as boolean;

describe('compact(): refs and recursion (§4.3)', () => {
  it('resolves JSON Pointers with ~1, ~0, %xx, array indices, $anchor and $id-relative refs', () => {
    const r = compact({
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/a~1b' },
        b: { $ref: '#/$defs/t~0x' },
        c: { $ref: '#/$defs/sp%20ace' },
        d: { $ref: '#/properties/e/anyOf/1' },
        e: { anyOf: [{ type: 'null' }, { type: 'string', minLength: 2 }] },
        f: { $ref: '#anc' },
        g: { $ref: 'item.json' },
      },
      $defs: { 'a/b': { type: 'integer' }, 't~x': { type: 'boolean' }, 'sp ace': { type: 'number' }, anc: { $anchor: 'anc', type: 'string' }, it: { $id: 'item.json', type: 'array' } },
    });
    const p = props(r.schema);
    expect([p.a.type, p.b.type, p.c.type, p.d, p.f.type, p.g.type]).to.deep.equal(['integer', 'boolean', 'number', { type: 'string', minLength: 2 }, 'string', 'array']);
    expect(r.notes.filter((n) => n.rule === 'ref-unresolved' || n.rule === 'ref-external')).to.deep.equal([]);
  });

  it('T08: a ref to a structural ancestor is a cycle (maxRecursion 1): typed tail + note', () => {
    const r = compact(
      { type: 'object', properties: { tree: { type: 'object', properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/properties/tree' } } } } } },
      { maxRecursion: 1 },
    );
    const items = props(props(r.schema).tree).children.items as JsonObject;
    expect(items.type).to.equal('object');
    expect(items.description).to.match(/^Recursive: same structure as \/properties\/tree/);
    expect(r.truncated).to.equal(true);
  });

  it('T36: a $ref root with Optional[Node] recursion: root object, default kept, tail after maxRecursion', () => {
    const r = compact({
      $ref: '#/$defs/Node',
      $defs: { Node: { type: 'object', title: 'Node', properties: { v: { type: 'integer' }, next: { anyOf: [{ $ref: '#/$defs/Node' }, { type: 'null' }], default: null } } } },
    });
    const next = props(r.schema).next;
    expect(r.schema.type).to.equal('object');
    expect(next.type).to.deep.equal(['object', 'null']);
    expect(next.default).to.equal(null);
    expect(props(next).next.description).to.match(/Recursive: same structure as Node/);
    expect(accepts(r.schema, { v: 1, next: { v: 2, next: { v: 3, next: { v: 4, next: null } } } })).to.equal(true);
  });

  it('T40: $ref siblings are intersected (Ajv applies them), the referring description wins', () => {
    const r = compact({ type: 'object', properties: { n: { $ref: '#/$defs/N', maximum: 5, description: 'site' } }, $defs: { N: { type: 'integer', minimum: 0, description: 'def' } } });
    expect(props(r.schema).n).to.deep.equal({ type: 'integer', description: 'site', minimum: 0, maximum: 5 });
  });

  it('$ref cycles without structure, `$ref: "#"` roots and self-referencing allOf stay total', () => {
    for (const s of [{ $ref: '#' }, { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }, { allOf: [{ $ref: '#' }], properties: { a: { $ref: '#' } } }]) {
      const r = compact(s);
      expect(r.fallback).to.equal(false);
      expect(findBannedKeywords(r.schema)).to.deep.equal([]);
      expect(compact(r.schema).schema).to.deep.equal(r.schema);
    }
  });

  it('T41: a 30-level diamond stays within the node/byte budgets', () => {
    const $defs: Record<string, unknown> = { D30: { type: 'string' } };
    for (let i = 0; i < 30; i++) $defs[`D${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/D${i + 1}` }, b: { $ref: `#/$defs/D${i + 1}` } } };
    const r = compact({ $defs, type: 'object', properties: { root: { $ref: '#/$defs/D0' } } });
    expect(r.fallback).to.equal(false);
    expect(JSON.stringify(r.schema).length).to.be.at.most(64 * 1024);
    expect(r.notes.length).to.be.at.most(200);
    expect(r.notes[r.notes.length - 1].action).to.equal('truncated');
  });
});

describe('compact(): totality and hygiene (§4.2 step 0, pitfalls 22 and 23)', () => {
  it('never throws for non-JSON input: primitives, arrays, cycles, throwing getters, huge or deep input', () => {
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    const hostile = Object.defineProperty({ type: 'object' }, 'properties', { enumerable: true, get: () => { throw new Error('boom'); } });
    let deep: unknown = { type: 'string' };
    for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { c: deep } };
    const huge = { type: 'object', properties: Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`p${i}`, { type: 'string' }])) };
    for (const x of [undefined, null, 0, NaN, 'x', [], [1], true, false, Symbol('s'), () => 1, 10n, cyclic, hostile, deep, huge, new Date(0), new Map()]) {
      const r = compact(x);
      expect(r.schema.type).to.equal('object');
      expect(r.schema.properties).to.be.an('object');
      expect(findBannedKeywords(r.schema)).to.deep.equal([]);
      new Ajv2020({ strict: false }).compile(r.schema);
      expect(compact(r.schema).schema).to.deep.equal(r.schema);
    }
    expect(compact(cyclic).fallback).to.equal(true);
    expect(compact(huge).fallback).to.equal(true);
  });

  it('T46: `__proto__` and integer-like property names survive as plain data', () => {
    const input = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"10":{"type":"integer"},"a":{"type":"string"}},"required":["__proto__"]}');
    const r = compact(input);
    expect(Object.keys(props(r.schema)).sort()).to.deep.equal(['10', '__proto__', 'a']);
    expect(Object.getPrototypeOf(props(r.schema))).to.equal(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(props(r.schema), '__proto__')).to.equal(true);
    expect(JSON.stringify(props(r.schema))).to.include('"__proto__":{"type":"string"}');
    expect(r.schema.required).to.deep.equal(['__proto__']);
    // (Ajv 8 itself does not validate a property named __proto__, in the original or here)
  });

  it('invalid regexes are described, never kept or thrown', () => {
    const r = compact({ type: 'object', properties: { x: { type: 'string', pattern: '(' } }, patternProperties: { '[': { type: 'string' } } });
    expect(props(r.schema).x).to.deep.equal({ type: 'string', description: 'Pattern /(/ (not a valid regular expression) not enforced.' });
    expect(r.schema.description).to.include('Keys matching /[/');
  });

  it('is deterministic and does not mutate its input; exports a version for cache keys', () => {
    const input = { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, $defs: {} };
    const copy = structuredClone(input);
    expect(JSON.stringify(compact(input))).to.equal(JSON.stringify(compact(copy)));
    expect(input).to.deep.equal(copy);
    expect(COMPACTOR_VERSION).to.match(/^\d+\.\d+\.\d+$/);
  });

  it('per-node note cap ends with the standard-view pointer; the tool cap stops further notes', () => {
    const many = { type: 'object', properties: { s: { type: 'string', format: 'x'.repeat(30), allOf: Array.from({ length: 20 }, (_, i) => ({ pattern: `p${i}` })) } } };
    const s = props(compact(many).schema).s;
    expect(String(s.description).length).to.be.at.most(300);
    expect(String(s.description)).to.match(/more constraints in the standard view\)$/);
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string', format: `custom-format-${i}` }])) };
    const out = JSON.stringify(compact(wide).schema);
    expect(out).to.include('Format: custom-format-0.');
    expect(out).to.not.include('Format: custom-format-199.');
    expect(out).to.include('more constraints in the standard view');
  });
});

describe('compact(): options (§4.1 exceptions 2–4, §4.5 step 7)', () => {
  it('inferTypes:false leaves typeless object-only nodes typeless (default infers, T31)', () => {
    const s = { type: 'object', properties: { opts: { properties: { deep: { type: 'boolean' } } } } };
    expect(props(compact(s).schema).opts.type).to.equal('object');
    expect(props(compact(s, { inferTypes: false }).schema).opts.type).to.equal(undefined);
  });

  it('typeArrays "never" / "nullOnly" pick a primary type and say what was dropped', () => {
    const s = { type: 'object', properties: { a: { type: ['string', 'integer', 'null'] }, b: { type: ['string', 'null'] } } };
    const never = props(compact(s, { typeArrays: 'never' }).schema);
    expect(never.a).to.deep.equal({ type: 'string', description: 'Typed as string here; the original also accepts integer, null.' });
    const nullOnly = props(compact(s, { typeArrays: 'nullOnly' }).schema);
    expect(nullOnly.a.type).to.deep.equal(['string', 'null']);
    expect(nullOnly.b.type).to.deep.equal(['string', 'null']);
  });

  it('truncation "prune" drops optional recursive tails instead of keeping a permissive one', () => {
    const s = { type: 'object', properties: { v: { type: 'number' }, next: { $ref: '#' } } };
    const pruned = compact(s, { maxRecursion: 1, truncation: 'prune' }).schema;
    expect(Object.keys(props(pruned))).to.deep.equal(['v']);
    expect(pruned.description).to.match(/^next: Omitted/);
  });

  it('unknown option values fall back to the defaults', () => {
    const s = { type: 'object', properties: { a: { type: 'string' } } };
    expect(compact(s, { maxDepth: NaN, typeArrays: 'bogus' as never, formats: 'x' as never }).schema).to.deep.equal(compact(s).schema);
  });
});
