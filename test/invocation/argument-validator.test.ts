/**
 * ArgumentValidator (issue 14 item 3 and the red-team finding on unbounded validation): the inline check and the
 * worker check answer alike; a costly check is abandoned at the budget without blocking the event loop; the pool
 * recovers from the termination; non-finite numbers are refused; ordinary schemas stay inline. Responsiveness is
 * asserted by event order (a callback scheduled when the check starts runs before the check settles), never by a
 * wall-clock threshold.
 */
import { expect } from 'chai';
import { ArgumentValidator, DEFAULT_VALIDATION_BUDGET_MS, type ValidationOutcome } from '../../src/invocation/argument-validator';
import { compileSchema, outcomeOf } from '../../src/invocation/schema-check';
import { mulberry32 } from '../compact/sampler';

type Schema = Record<string, unknown>;

// mulberry32 (test/compact/sampler.ts): a small seeded generator, so a failing run can be repeated (the seed is printed).
const rng = mulberry32;

/** Runs `check` and records, in order, when callbacks scheduled at its start ran and when it settled. */
async function withOrder(check: () => Promise<ValidationOutcome>): Promise<{ order: string[]; outcome: ValidationOutcome }> {
  const order: string[] = [];
  setImmediate(() => order.push('immediate'));
  setTimeout(() => order.push('timer'), 0);
  const outcome = await check();
  order.push('settled');
  return { order, outcome };
}

const REDOS: Schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
const BENIGN_PATTERN: Schema = { type: 'object', properties: { s: { type: 'string', pattern: '^[a-z]+$' } }, required: ['s'] };

const SCHEMAS: Schema[] = [
  { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer' } }, additionalProperties: false },
  { type: 'object', properties: { a: { type: 'number', minimum: 0, maximum: 10 }, b: { type: 'array', items: { type: 'string', maxLength: 3 }, maxItems: 3 } }, required: ['a'] },
  { type: 'object', properties: { kind: { enum: ['x', 'y'] }, v: { anyOf: [{ type: 'string' }, { type: 'integer', multipleOf: 2 }] } }, required: ['kind', 'v'] },
  { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false } } },
  { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { t: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } }, dependentRequired: { a: ['b'] } },
  { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', dependentRequired: { a: ['b'] }, unevaluatedProperties: false, properties: { a: {}, b: {} } },
  { type: 'object', $defs: { pos: { type: 'integer', exclusiveMinimum: 0 } }, properties: { a: { $ref: '#/$defs/pos' }, b: { type: 'array', items: { $ref: '#/$defs/pos' } } } },
  { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' }, at: { type: 'string', format: 'uri' } } },
  { type: 'object', properties: { o: { type: 'object', properties: { 'a/b': { type: 'boolean' }, 'c~d': { const: 1 } }, required: ['a/b', 'c~d'] } } },
  { type: 'object', if: { properties: { a: { const: 1 } }, required: ['a'] }, then: { required: ['b'] }, else: { not: { required: ['c'] } } },
];

function randomValue(r: () => number, depth = 0): unknown {
  const pick = Math.floor(r() * (depth > 2 ? 6 : 8));
  const keys = ['text', 'n', 'a', 'b', 'c', 'kind', 'v', 't', 'o', 'when', 'mail', 'at', 'a/b', 'c~d', 'extra'];
  switch (pick) {
    case 0: return Math.floor(r() * 21) - 5;
    case 1: return r() * 20 - 5;
    case 2: return ['x', 'y', 'abc', 'abcd', '', '2020-01-01T00:00:00Z', 'a@b.co', 'https://x.y/z', 'not a uri'][Math.floor(r() * 9)];
    case 3: return r() < 0.5;
    case 4: return null;
    case 5: return Math.floor(r() * 3) - 1;
    case 6: return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 5); i > 0; i--) o[keys[Math.floor(r() * keys.length)]] = randomValue(r, depth + 1);
      return o;
    }
  }
}

describe('ArgumentValidator (issue 14: bounded argument and output validation)', function () {
  const validators: ArgumentValidator[] = [];
  const make = (o: ConstructorParameters<typeof ArgumentValidator>[0] = {}) => {
    const v = new ArgumentValidator(o);
    validators.push(v);
    return v;
  };
  after(async () => {
    for (const v of validators) await v.close();
  });

  it('exports the default budget', () => {
    expect(DEFAULT_VALIDATION_BUDGET_MS).to.equal(250);
    expect(new ArgumentValidator().options.budgetMs).to.equal(250);
    expect(new ArgumentValidator({ budgetMs: 40 }).options.budgetMs).to.equal(40);
  });

  it('the inline check and the worker check answer alike (seeded values over a set of schemas)', async () => {
    const seed = Number(process.env.VALIDATOR_SEED ?? Date.now() % 2 ** 31);
    console.log(`      seed ${seed} (VALIDATOR_SEED=${seed} repeats this run)`);
    const r = rng(seed);
    const inline = make();
    const worker = make({ inlineBytes: -1 }); // every value is "too large": always a worker
    let compared = 0;
    let rejected = 0;
    for (const schema of SCHEMAS) {
      for (let i = 0; i < 40; i++) {
        const value = i === 0 ? {} : randomValue(r);
        const a = await inline.validate(schema, value);
        expect(inline.lastPath, JSON.stringify(schema)).to.equal('inline');
        const b = await worker.validate(schema, value);
        expect(worker.lastPath).to.equal('worker');
        expect(b, `seed ${seed}: ${JSON.stringify(schema)} on ${JSON.stringify(value)}`).to.deep.equal(a);
        compared++;
        if (!a.ok) rejected++;
      }
    }
    // Schemas the analysis sends to a worker whatever the size: the worker answers as a main-thread check would.
    for (const schema of [BENIGN_PATTERN, { type: 'array', uniqueItems: true }, { type: 'object', patternProperties: { '^x': { type: 'integer' } } }]) {
      for (const value of [{ s: 'abc' }, { s: 'ABC' }, {}, [1, 2, 1], [1, 2], { x1: 1, x2: 'no' }]) {
        const expected = outcomeOf(compileSchema(JSON.stringify(schema)), value, 'arguments');
        expect(await worker.validate(schema, value)).to.deep.equal(expected);
        compared++;
      }
    }
    expect(compared).to.be.greaterThan(400);
    expect(rejected).to.be.greaterThan(0);
  });

  it('keeps the problems as before: pointers, messages, additional property named, missing property pointed at', async () => {
    const v = make();
    const out = await v.validate(SCHEMAS[0], { text: 1, n: 'x', extra: true });
    expect(out.ok).to.equal(false);
    const problems = 'problems' in out ? out.problems : [];
    expect(problems.map((p) => p.pointer).sort()).to.deep.equal(['', '/n', '/text']);
    expect(problems.find((p) => p.pointer === '')?.message).to.equal('must NOT have additional properties (extra)');
    const missing = await v.validate(SCHEMAS[8], { o: {} });
    expect('problems' in missing && missing.problems.map((p) => p.pointer).sort()).to.deep.equal(['/o/a~1b', '/o/c~0d']);
  });

  it('selects the dialect from $schema (dependentRequired is no draft-07 keyword)', async () => {
    const v = make();
    const base = { type: 'object', dependentRequired: { a: ['b'] } };
    expect(await v.validate({ $schema: 'http://json-schema.org/draft-07/schema#', ...base }, { a: 1 })).to.deep.equal({ ok: true });
    for (const $schema of ['https://json-schema.org/draft/2019-09/schema', 'https://json-schema.org/draft/2020-12/schema', undefined]) {
      const out = await v.validate({ ...($schema ? { $schema } : {}), ...base }, { a: 1 });
      expect(out.ok, String($schema)).to.equal(false);
    }
  });

  it('fails closed on a schema it cannot compile (an external $ref), inline or in a worker', async () => {
    const v = make();
    const out = await v.validate({ type: 'object', properties: { a: { $ref: 'https://example.com/x.json' } } }, { a: 1 });
    expect(out.ok).to.equal(false);
    expect('uncheckable' in out && out.uncheckable).to.match(/^the tool's inputSchema cannot be checked \(/);
    const output = await v.validate({ $ref: 'https://example.com/x.json' }, {}, 'structuredContent');
    expect('uncheckable' in output && output.uncheckable).to.match(/^the tool's outputSchema cannot be checked \(/);
  });

  it('lists at most 50 problems', async () => {
    const v = make();
    const required = Array.from({ length: 80 }, (_, i) => `p${i}`);
    const out = await v.validate({ type: 'object', required }, {});
    expect('problems' in out && out.problems.length).to.equal(50);
  });

  it('refuses non-finite numbers anywhere in the value (1e400 parses as Infinity)', async () => {
    const v = make();
    const parsed = JSON.parse('{"a":1e400}') as unknown;
    expect(await v.validate({ type: 'object', properties: { a: { type: 'number' } } }, parsed)).to.deep.equal({ ok: false, problems: [{ pointer: '/a', message: 'must be a finite number' }] });
    const deep = await v.validate({ type: 'object' }, { b: [1, { c: -Infinity }], 'x/y': NaN });
    expect('problems' in deep && deep.problems).to.deep.equal([
      { pointer: '/b/1/c', message: 'must be a finite number' },
      { pointer: '/x~1y', message: 'must be a finite number' },
    ]);
    expect(await v.validate({ type: 'array' }, [Infinity], 'structuredContent')).to.deep.equal({ ok: false, problems: [{ pointer: '/0', message: 'must be a finite number' }] });
  });

  it('an ordinary schema stays on the fast path; a property named pattern is no pattern', async () => {
    const v = make();
    const grep = { type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string', format: 'uri-reference' } }, required: ['pattern'] };
    expect(await v.validate(grep, { pattern: '^(a+)+$', path: 'src/' })).to.deep.equal({ ok: true });
    expect(v.lastPath).to.equal('inline');
    for (const s of SCHEMAS) await v.validate(s, { a: 1 });
    expect(v.stats).to.deep.equal({ inline: SCHEMAS.length + 1, worker: 0, overBudget: 0 });
  });

  it('needsWorker: costly keywords, costly formats, recursive or multiplying refs, large values', () => {
    const needs = ArgumentValidator.needsWorker;
    expect(needs(SCHEMAS[0], 100)).to.equal(false);
    expect(needs(REDOS, 10)).to.equal(true);
    expect(needs({ type: 'object', patternProperties: { '^a': {} } }, 10)).to.equal(true);
    expect(needs({ type: 'array', uniqueItems: true }, 10)).to.equal(true);
    expect(needs({ type: 'array', uniqueItems: false }, 10)).to.equal(false);
    expect(needs({ type: 'string', format: 'url' }, 10)).to.equal(true);
    for (const format of ['email', 'uri', 'date-time', 'hostname', 'ipv6', 'uuid']) expect(needs({ type: 'string', format }, 10), format).to.equal(false);
    expect(needs({ properties: { pattern: { type: 'string' } }, enum: [{ pattern: 'x' }] }, 10)).to.equal(false);
    expect(needs({ type: 'object', properties: { next: { $ref: '#' } } }, 10)).to.equal(true);
    expect(needs(SCHEMAS[6], 10)).to.equal(false);
    // Ten levels of a def referring twice to the next: 2^10 expansions though the schema is small.
    const $defs: Record<string, unknown> = { d10: { type: 'integer' } };
    for (let i = 0; i < 10; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    expect(needs({ $defs, $ref: '#/$defs/d0' }, 10)).to.equal(true);
    expect(needs(SCHEMAS[0], 64 * 1024 + 1)).to.equal(true);
  });

  it('abandons a catastrophic pattern at the budget, and the event loop runs while it is checked', async () => {
    const v = make();
    const value = { s: `${'a'.repeat(40)}!` };
    const started = process.hrtime.bigint();
    const { order, outcome } = await withOrder(() => v.validate(REDOS, value));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`      "a"*40+"!" against ^(a+)+$: answered in ${ms.toFixed(0)} ms (budget ${v.options.budgetMs} ms)`);
    expect(v.lastPath).to.equal('worker');
    expect(outcome).to.deep.equal({
      ok: false,
      uncheckable: "the arguments could not be checked against the tool's inputSchema within 250 ms (a pattern or uniqueItems too costly); nothing was sent",
    });
    expect(order.indexOf('immediate')).to.be.lessThan(order.indexOf('settled'));
    expect(order.indexOf('timer')).to.be.lessThan(order.indexOf('settled'));
    expect(v.stats.overBudget).to.equal(1);
    // The terminated thread is replaced: the next check in a worker works.
    expect(await v.validate(BENIGN_PATTERN, { s: 'abc' })).to.deep.equal({ ok: true });
    expect(await v.validate(BENIGN_PATTERN, { s: 'ABC' })).to.deep.equal({ ok: false, problems: [{ pointer: '/s', message: 'must match pattern "^[a-z]+$"' }] });
    expect(v.lastPath).to.equal('worker');
  });

  it('the budget is configurable and names itself; an output check says so', async () => {
    const v = make({ budgetMs: 60 });
    const out = await v.validate({ type: 'string', pattern: '^(a+)+$' }, `${'a'.repeat(40)}!`, 'structuredContent');
    expect(out).to.deep.equal({ ok: false, uncheckable: "the structuredContent could not be checked against the tool's outputSchema within 60 ms (a pattern or uniqueItems too costly)" });
  });

  it('uniqueItems over 50,000 objects answers (a result or uncheckable) without blocking the event loop', async () => {
    const v = make();
    const value = Array.from({ length: 50_000 }, (_, i) => ({ id: i, tag: 'x' }));
    const { order, outcome } = await withOrder(() => v.validate({ type: 'array', uniqueItems: true }, value));
    expect(v.lastPath).to.equal('worker');
    expect(outcome.ok === true || 'uncheckable' in outcome).to.equal(true);
    expect(order.indexOf('immediate')).to.be.lessThan(order.indexOf('settled'));
    expect(order.indexOf('timer')).to.be.lessThan(order.indexOf('settled'));
  });

  it('a full queue answers uncheckable at once instead of waiting', async () => {
    const v = make({ threads: 1, queue: 1, budgetMs: 100 });
    const value = { s: `${'a'.repeat(40)}!` };
    const order: number[] = [];
    const runs = [0, 1, 2].map((i) => v.validate(REDOS, value).then((o) => (order.push(i), o)));
    const outcomes = await Promise.all(runs);
    for (const o of outcomes.slice(0, 2)) expect('uncheckable' in o && o.uncheckable).to.match(/within 100 ms/);
    // The third found the queue full (one running, one waiting) and was answered first, with a time to come back.
    expect(outcomes[2]).to.deep.equal({ ok: false, uncheckable: "the arguments could not be checked now: this caller's share of the checker is full; try again later", retryAfterSeconds: 1 });
    expect(order[0]).to.equal(2);
    expect(v.stats.overBudget).to.equal(3);
    expect(await v.validate(BENIGN_PATTERN, { s: 'ok' })).to.deep.equal({ ok: true });
  });

  it("one party's flood fills only its share: another party's check answers before any of the flood's (finding 1)", async () => {
    const v = make({ threads: 2, queue: 8, budgetMs: 300 });
    const order: string[] = [];
    const value = { s: `${'a'.repeat(40)}!` };
    const flood = Array.from({ length: 12 }, (_, i) => v.validate(REDOS, value, 'arguments', 'tenant-a').then((o) => (order.push(`a${i}`), o)));
    const b = await v.validate(BENIGN_PATTERN, { s: 'abc' }, 'arguments', 'tenant-b');
    order.push('b');
    expect(b).to.deep.equal({ ok: true });
    const outcomes = await Promise.all(flood);
    // A holds one thread and four places in the queue; the rest were told to come back at once.
    const busy = outcomes.filter((o) => 'retryAfterSeconds' in o);
    expect(busy).to.have.length(7);
    expect(order.filter((x) => x !== 'b').slice(0, 7).every((x) => Number(x.slice(1)) >= 5), order.join(' ')).to.equal(true);
    expect(order.indexOf('b'), order.join(' ')).to.be.lessThan(order.length - 5);
  });

  it('prepare: the facts and the outcome of a large value (made in a worker) are those of the inline path (seeded)', async () => {
    const seed = Number(process.env.VALIDATOR_SEED ?? Date.now() % 2 ** 31);
    console.log(`      seed ${seed} (VALIDATOR_SEED=${seed} repeats this run)`);
    const r = rng(seed);
    const inline = make();
    const worker = make({ inlineNodes: 0 });
    const req = { toolId: 'ext.x', maxDepth: 4, record: true };
    let compared = 0;
    for (const schema of SCHEMAS) {
      for (let i = 0; i < 15; i++) {
        const value = i === 0 ? { a: [[[[1]]]] } : i === 1 ? { a: 1e400 ** 1, b: 'x' } : randomValue(r);
        const a = await inline.prepare(schema, value, req);
        const b = await worker.prepare(schema, value, req);
        expect(worker.lastPath).to.equal('worker');
        expect(b.facts, `seed ${seed}: ${JSON.stringify(value)}`).to.deep.equal(a.facts);
        if (a.facts !== null && !a.facts.tooDeep) expect(await b.outcome(), `seed ${seed}: ${JSON.stringify(value)}`).to.deep.equal(await a.outcome());
        compared++;
      }
    }
    expect(compared).to.equal(SCHEMAS.length * 15);
  });
});
