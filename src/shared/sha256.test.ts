import { createHash } from 'node:crypto';
import { expect } from 'chai';
import fc from 'fast-check';
import { sha256Base64url, sha256Bytes, sha256Hex } from './sha256';

const SEED = 210_301;

describe('sha256 (one-shot crypto.hash for per-request hashes)', () => {
  it(`equals createHash('sha256') over UTF-8 for any string and any bytes (seed ${SEED}, 2000 runs)`, () => {
    console.log(`      sha256 property seed ${SEED}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 300 })), (input) => {
        const data = typeof input === 'string' ? input : Buffer.from(input);
        const want = createHash('sha256').update(data).digest();
        expect(sha256Bytes(data).equals(want)).to.equal(true);
        expect(sha256Hex(data)).to.equal(want.toString('hex'));
        expect(sha256Base64url(data)).to.equal(want.toString('base64url'));
      }),
      { seed: SEED, numRuns: 2000 },
    );
  });
});
