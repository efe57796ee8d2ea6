/** Pins RFC 0204's projection (TC-ANN-1..5) over the full cross product of the value sets in schemas/v2. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { deriveAnnotations } from './annotations';
import type { Egress, ReplayPolicy, SafetyTier } from './descriptor';
import { EGRESS_VALUES, REPLAY_POLICIES, SAFETY_TIERS } from './descriptor';

const schema = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'schemas', 'v2', 'tool-descriptor.schema.json'), 'utf8'));

// tier → [readOnlyHint, destructiveHint]; replay → idempotentHint; egress → openWorldHint. Literal, not computed.
const TIER: Record<string, [boolean, boolean]> = { pure: [true, false], read: [true, false], write: [false, true], exec: [false, true] };
const REPLAY: Record<string, boolean> = { deterministic: true, idempotent: true, 'non-idempotent': false };
const EGRESS: Record<string, boolean> = { none: false, restricted: true, open: true };

describe(deriveAnnotations.name, () => {
  it('the tables cover exactly the value sets of schemas/v2 (a new value cannot slip in untested)', () => {
    expect(Object.keys(TIER)).to.have.members(schema.$defs.safetyTier.enum);
    expect(Object.keys(REPLAY)).to.have.members(schema.$defs.replayPolicy.enum);
    expect(Object.keys(EGRESS)).to.have.members(schema.$defs.egress.enum);
    expect([...SAFETY_TIERS]).to.have.members(schema.$defs.safetyTier.enum);
    expect([...REPLAY_POLICIES]).to.have.members(schema.$defs.replayPolicy.enum);
    expect([...EGRESS_VALUES]).to.have.members(schema.$defs.egress.enum);
  });

  for (const tier of schema.$defs.safetyTier.enum as SafetyTier[]) {
    for (const replay of schema.$defs.replayPolicy.enum as ReplayPolicy[]) {
      for (const egress of schema.$defs.egress.enum as Egress[]) {
        it(`TC-ANN-1..5: ${tier} / ${replay} / ${egress}`, () => {
          const a = deriveAnnotations({ safetyTier: tier, replayPolicy: replay, egress });
          expect(a).to.deep.equal({ readOnlyHint: TIER[tier][0], destructiveHint: TIER[tier][1], idempotentHint: REPLAY[replay], openWorldHint: EGRESS[egress] });
          expect(Object.keys(a)).to.have.length(4);
        });
      }
    }
  }
});
