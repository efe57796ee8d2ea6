/**
 * Issue 14: the shape check of an upstream's tools/call answer (toolResultOf in src/invocation/mcp-call-pool.ts) is
 * hand-written for speed. It must accept and reject exactly what the zod schema it replaced did, and give the same
 * value back: the old schema is the oracle here, over results shaped like real ones and broken in every field.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { z } from 'zod';
import { toolResultOf } from '../../src/invocation/mcp-call-pool';

const SEED = Number(process.env.TOOLCAT_PROPERTY_SEED ?? 140021);
const RUNS = 5000;

/** The schema toolcat used before (z.looseObject keeps unknown keys; the check keeps only the three it reads). */
const Oracle = z.looseObject({
  content: z.array(z.looseObject({ type: z.string() })).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
});

const anyJson = fc.jsonValue({ maxDepth: 3 });
const block = fc.oneof(
  fc.record({ type: fc.constantFrom('text', 'image', 'resource', 'weird'), text: fc.string() }),
  fc.record({ type: anyJson }),
  anyJson,
);
const result = fc.oneof(
  fc.record({ content: fc.oneof(fc.array(block, { maxLength: 4 }), anyJson), structuredContent: fc.oneof(fc.dictionary(fc.string(), anyJson), anyJson), isError: fc.oneof(fc.boolean(), anyJson) }, { requiredKeys: [] }),
  anyJson,
);

describe('tool result shape check (issue 14): the same verdict and value as the zod schema it replaced', () => {
  it(`agrees with the oracle on every generated answer (seed ${SEED}, ${RUNS} runs)`, () => {
    console.log(`      tool-result-shape property seed ${SEED}`);
    fc.assert(
      fc.property(result, (v) => {
        const oracle = Oracle.safeParse(v);
        const mine = toolResultOf(v);
        expect(typeof mine !== 'string', `verdict on ${JSON.stringify(v)}`).to.equal(oracle.success);
        if (oracle.success && typeof mine !== 'string') {
          const { content, structuredContent, isError } = oracle.data;
          expect(mine).to.deep.equal({ content, ...(structuredContent !== undefined ? { structuredContent } : {}), ...(isError !== undefined ? { isError } : {}) });
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('says which field is wrong', () => {
    expect(toolResultOf({ content: 'text' })).to.equal('`content` is not an array');
    expect(toolResultOf({ content: [{ type: 1 }] })).to.equal('`content[0]` is not an object with a string `type`');
    expect(toolResultOf({ content: [], isError: 'yes' })).to.equal('`isError` is not a boolean');
    expect(toolResultOf([])).to.equal('the result is not an object');
  });
});
