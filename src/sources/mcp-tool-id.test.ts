/** Pins the MCP toolId scheme documented in the README: readable, injective, reversible, never truncated. */
import { expect } from 'chai';
import fc from 'fast-check';
import { isValidToolId } from '../catalog/tool-id';
import { escapeToolName, mcpToolId, unescapeToolName } from './mcp-tool-id';

describe('MCP toolIds', () => {
  it('keeps A-Z a-z 0-9 _ . - and writes every other byte as ~XX', () => {
    expect(mcpToolId('github', 'create_issue')).to.equal('mcp.github.create_issue');
    expect(mcpToolId('hostile', 'weird name/ü')).to.equal('mcp.hostile.weird~20name~2F~C3~BC');
    expect(escapeToolName('a~b')).to.equal('a~7Eb');
  });

  it('is injective and reversible, and every id it forms is a valid toolId (any unicode name)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), (a, b) => {
        const ia = mcpToolId('s', a);
        const ib = mcpToolId('s', b);
        if (ia) {
          expect(isValidToolId(ia)).to.equal(true);
          expect(unescapeToolName(ia.slice('mcp.s.'.length))).to.equal(Buffer.from(a, 'utf8').toString('utf8'));
        }
        if (ia && ib && a !== b && Buffer.from(a).toString() !== Buffer.from(b).toString()) expect(ia).not.to.equal(ib);
      }),
      { numRuns: 500, seed: Number(process.env.FC_SEED ?? 8002) },
    );
  });

  it('refuses (null) names that are empty or too long once escaped, instead of truncating', () => {
    expect(mcpToolId('s', '')).to.equal(null);
    expect(mcpToolId('s', 'x'.repeat(300))).to.equal(null);
    expect(mcpToolId('s', 'é'.repeat(60))).to.equal(null); // 60 chars but 360 once escaped
  });
});
