/**
 * Pins the ceiling rules (issue 11 defect 6): pattern containment is sound and, over our alphabet, complete; a
 * grant fits a ceiling entry only when pattern, source and tier all fit.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { describeCeiling, entryContains, grantWithinCeiling, patternContains } from './grant-scope';
import { toolPatternMatches } from './tool-id';

const SEED = Number(process.env.FC_SEED ?? 1101);
const patternArb = fc.array(fc.constantFrom('a', 'b', '.', '*'), { minLength: 1, maxLength: 7 }).map((cs) => cs.join('').replace(/\*+/g, '*'));
const runArb = fc.array(fc.constantFrom('a', 'b', '.'), { maxLength: 4 }).map((cs) => cs.join(''));

describe(patternContains.name, () => {
  it('decides the literal cases', () => {
    const rows: Array<[string, string, boolean]> = [
      ['*', 'anything', true], ['*', '*', true], ['ext.*', 'ext.*', true], ['ext.*', 'ext.calc', true], ['ext.*', 'ext.c*', true],
      ['ext.*', '*', false], ['ext.*', 'e*', false], ['ext.calc', 'ext.*', false], ['*calc', 'ext.*calc', true], ['*a*', '*b*', false],
      ['mcp.*.list', 'mcp.github.list', true], ['mcp.*.list', 'mcp.*', false], ['a*b', 'a*c*b', true], ['a*c*b', 'a*b', false],
    ];
    for (const [outer, inner, want] of rows) expect(patternContains(outer, inner), `${outer} ⊇ ${inner}`).to.equal(want);
  });

  it(`is sound: every instance of a contained pattern matches the outer one (fast-check, seed ${SEED})`, () => {
    fc.assert(
      fc.property(patternArb, patternArb, fc.array(runArb, { minLength: 8, maxLength: 8 }), (outer, inner, runs) => {
        if (!patternContains(outer, inner)) return;
        let k = 0;
        const instance = inner.replace(/\*/g, () => runs[k++ % runs.length]);
        expect(toolPatternMatches(outer, instance), `${outer} ⊇ ${inner} but not ${instance}`).to.equal(true);
      }),
      { numRuns: 3000, seed: SEED },
    );
  });

  it(`is complete over a fresh character: a refused pair has an instance outside the outer pattern (seed ${SEED})`, () => {
    fc.assert(
      fc.property(patternArb, patternArb, (outer, inner) => {
        if (patternContains(outer, inner)) return;
        // Runs of a character the outer pattern lacks can only be absorbed by its stars.
        const instance = inner.replace(/\*/g, 'z'.repeat(outer.length + 1));
        expect(toolPatternMatches(outer, instance), `${outer} ⊉ ${inner}, witness ${instance}`).to.equal(false);
      }),
      { numRuns: 3000, seed: SEED },
    );
  });
});

describe(entryContains.name, () => {
  const entry = { toolPattern: 'ext.*', source: 'host-extension' as const, maxSafetyTier: 'read' as const };
  it('needs pattern, source and tier to fit; no tier means up to exec', () => {
    expect(entryContains(entry, { toolPattern: 'ext.c*', source: 'host-extension', maxSafetyTier: 'pure' })).to.equal(true);
    expect(entryContains(entry, { toolPattern: 'ext.c*', source: null, maxSafetyTier: 'pure' }), 'any source is wider').to.equal(false);
    expect(entryContains(entry, { toolPattern: 'ext.c*', source: 'host-extension', maxSafetyTier: null }), 'any tier is wider').to.equal(false);
    expect(entryContains(entry, { toolPattern: 'ext.c*', source: 'host-extension', maxSafetyTier: 'write' })).to.equal(false);
    expect(entryContains({ toolPattern: '*', source: null, maxSafetyTier: 'exec' }, { toolPattern: '*', source: null, maxSafetyTier: null }), 'exec is every tier').to.equal(true);
    expect(grantWithinCeiling({ toolPattern: 'x', source: null, maxSafetyTier: null }, []), 'an empty ceiling allows nothing').to.equal(false);
    expect(describeCeiling([entry])).to.equal('ext.* from host-extension up to read');
  });
});
