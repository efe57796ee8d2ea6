import { expect } from 'chai';
import { CatalogError } from './catalog.errors';
import { UNCLASSIFIED_MCP, assertClassificationAllowed, classify } from './classification';

describe('classification', () => {
  it('TC-DESC-6: an MCP tool without a host decision is write, non-idempotent, open', () => {
    expect(classify('mcp', null)).to.deep.equal({ safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open' });
    expect(classify('mcp', undefined)).to.equal(UNCLASSIFIED_MCP);
  });

  it('TC-DESC-5: the host decision is what counts, copied field by field', () => {
    const decision = { safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', readOnlyHint: false } as const;
    expect(classify('mcp', decision)).to.deep.equal({ safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });

  it('TC-DESC-3: exec is refused for MCP tools with a clear error, allowed for host extensions', () => {
    const exec = { safetyTier: 'exec', replayPolicy: 'non-idempotent', egress: 'open' } as const;
    expect(() => classify('mcp', exec)).to.throw(CatalogError, /"exec" is reserved for host-extension/);
    expect(classify('host-extension', exec).safetyTier).to.equal('exec');
  });

  it('lists every invalid field of an untrusted classification at once', () => {
    try {
      assertClassificationAllowed('host-extension', { safetyTier: 'admin', replayPolicy: 'maybe', egress: 42 });
      expect.fail('should throw');
    } catch (err) {
      expect((err as CatalogError).code).to.equal('BAD_USER_INPUT');
      expect((err as Error).message).to.match(/safetyTier.*replayPolicy.*egress/);
    }
  });
});
