/**
 * Issue 15 item 2: MCP tool names allow only `A-Z a-z 0-9 _ - .` (1-128 characters); toolIds may hold `~` and be up
 * to 200 characters. The mapping must be stable, injective and reversible (src/mcp-face/tool-name.ts), over every
 * toolId the grammar allows, adversarial ones first: `~` escapes, `_`-runs that look like escapes, ids differing in
 * one character past the readable prefix, lengths around both limits.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { TOOL_ID_MAX_LENGTH, isValidToolId } from '../../src/catalog/tool-id';
import { isMcpToolName, mcpNameOf, toolIdOfMcpName } from '../../src/mcp-face/tool-name';

const SEED = Number(process.env.TOOLCAT_PROPERTY_SEED ?? 150002);
const RUNS = 3000;

const FIRST = 'ABCXYZabcxyz0189'.split('');
const REST = 'aAzZ09._~-_~_'.split('');
const toolIdArb = fc
  .tuple(fc.constantFrom(...FIRST), fc.array(fc.constantFrom(...REST), { minLength: 0, maxLength: TOOL_ID_MAX_LENGTH - 1 }))
  .map(([f, r]) => f + r.join(''));
const nearLimits = fc.tuple(fc.constantFrom('mcp.s.', 'ext.'), fc.integer({ min: 100, max: TOOL_ID_MAX_LENGTH - 6 }), fc.constantFrom('a', '~', '_')).map(([p, n, c]) => (p + c.repeat(n)).slice(0, TOOL_ID_MAX_LENGTH));
const anyId = fc.oneof(toolIdArb, nearLimits).filter(isValidToolId);

describe('MCP tool names (issue 15): stable, injective, reversible', () => {
  it(`every toolId maps to a valid MCP name that maps back, and distinct ids never share a name (seed ${SEED}, ${RUNS} runs)`, function () {
    this.timeout(60000);
    console.log(`      tool-name property seed ${SEED}`);
    fc.assert(
      fc.property(fc.uniqueArray(anyId, { minLength: 1, maxLength: 20 }), (ids) => {
        const names = ids.map(mcpNameOf);
        for (const [i, n] of names.entries()) {
          expect(isMcpToolName(n), n).to.equal(true);
          expect(n.length).to.be.at.most(128);
          expect(mcpNameOf(ids[i]), 'stable').to.equal(n);
          expect(toolIdOfMcpName(n, () => ids), `reverse of ${n}`).to.equal(ids[i]);
        }
        expect(new Set(names).size, 'injective').to.equal(ids.length);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('ids that are already MCP names are kept as they are; others are escaped or hashed', () => {
    expect(mcpNameOf('mcp.github.create_issue')).to.equal('mcp.github.create_issue');
    expect(mcpNameOf('mcp.s.a~2fb')).to.equal('_mcp.s.a_-2fb');
    expect(mcpNameOf('mcp.s.a_~b')).to.equal('_mcp.s.a___-b');
    const long = `mcp.s.${'x'.repeat(150)}`;
    expect(mcpNameOf(long)).to.match(/^_\.mcp\.s\.x+\.[a-z2-7]{26}$/);
  });

  it('a hashed name resolves only among the ids it was handed out with; forged and non-canonical names resolve to nothing', () => {
    const long = `mcp.s.${'y'.repeat(150)}`;
    expect(toolIdOfMcpName(mcpNameOf(long), () => [])).to.equal(null);
    // `_` + an id that needed no escaping is not a name this mapping hands out.
    expect(toolIdOfMcpName('_mcp.s.plain', () => [])).to.equal(null);
    expect(toolIdOfMcpName('_mcp.s.a_x', () => [])).to.equal(null);
    expect(toolIdOfMcpName('bad name!', () => [])).to.equal(null);
    expect(toolIdOfMcpName('', () => [])).to.equal(null);
  });
});
