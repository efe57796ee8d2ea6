import { expect } from 'chai';
import { isValidToolId, isValidToolPattern, toolPatternMatches, toolPatternToLike } from './tool-id';

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
});
