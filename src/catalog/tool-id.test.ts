import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_PREFIX_RANGES, TOOL_ID_PATTERN, isValidToolId, isValidToolPattern, literalPrefix, prefixRanges, toolPatternMatches, toolPatternToLike } from './tool-id';

describe('tool ids and grant patterns', () => {
  it('accepts only unreserved characters, up to 200', () => {
    for (const ok of ['ext.calculator', 'mcp.github.create_issue', 'a~b-c_d.e', 'x'.repeat(200)]) expect(isValidToolId(ok), ok).to.equal(true);
    for (const bad of ['', '.x', '-x', 'a b', 'a/b', 'a%2Fb', 'é', 'x'.repeat(201), 'a*b']) expect(isValidToolId(bad), bad).to.equal(false);
  });
  it('matches * across dots and nothing else as a wildcard', () => {
    expect(toolPatternMatches('ext.*', 'ext.a.b')).to.equal(true);
    expect(toolPatternMatches('ext.a_b', 'ext.aXb')).to.equal(false);
    expect(toolPatternMatches('mcp.*.read', 'mcp.fs.read')).to.equal(true);
    expect(toolPatternMatches('EXT.*', 'ext.a')).to.equal(false);
  });
  it('escapes LIKE metacharacters so _ and % stay literal in SQL', () => {
    expect(toolPatternToLike('ext.a_b*')).to.equal('ext.a\\_b%');
    expect(isValidToolPattern('ext.%')).to.equal(false);
  });
  it('turns grant prefixes into the fewest byte-order key ranges, or none when they cannot narrow', () => {
    expect(literalPrefix('mcp.github.*')).to.equal('mcp.github.');
    expect(literalPrefix('ext.calc')).to.equal('ext.calc');
    expect(literalPrefix('mcp.*.read')).to.equal('mcp.');
    expect(prefixRanges(['mcp.gh.', 'ext.a', 'mcp.', 'ext.ab', 'ext.a'])).to.deep.equal([['ext.a', 'ext.a\u007f'], ['mcp.', 'mcp.\u007f']]);
    expect(prefixRanges(['ext.a', ''])).to.equal(null); // a grant like `*` covers every id
    expect(prefixRanges(Array.from({ length: MAX_PREFIX_RANGES + 1 }, (_, i) => `ext.t${String(i).padStart(3, '0')}`))).to.equal(null);
  });
  it('never leaves out a toolId that a pattern matches (property)', () => {
    const idChar = fc.constantFrom(...'aAzZ09._~-'.split(''));
    const id = fc.tuple(fc.constantFrom('a', 'Z', '0'), fc.array(idChar, { maxLength: 12 })).map(([h, t]) => h + t.join(''));
    const pattern = fc.array(fc.oneof(idChar, fc.constant('*')), { minLength: 1, maxLength: 8 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.array(pattern, { minLength: 1, maxLength: 5 }), fc.array(id, { maxLength: 30 }), (patterns, ids) => {
        const ranges = prefixRanges(patterns.map(literalPrefix));
        for (const t of ids) {
          expect(TOOL_ID_PATTERN.test(t)).to.equal(true);
          if (ranges === null || !patterns.some((p) => toolPatternMatches(p, t))) continue;
          expect(ranges.some(([lo, hi]) => lo <= t && t < hi), `${t} in ${JSON.stringify(ranges)}`).to.equal(true);
        }
      }),
      { numRuns: 500, seed: Number(process.env.FC_SEED ?? 8003) },
    );
  });
});
