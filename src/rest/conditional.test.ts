import { expect } from 'chai';
import { ifNoneMatchHits } from './conditional';

describe(ifNoneMatchHits.name, () => {
  const etag = '"abc"';
  it('matches exact, listed, weak and * forms (RFC 9110 13.1.2)', () => {
    expect(ifNoneMatchHits('"abc"', etag)).to.equal(true);
    expect(ifNoneMatchHits('"x", "abc"', etag)).to.equal(true);
    expect(ifNoneMatchHits('W/"abc"', etag)).to.equal(true);
    expect(ifNoneMatchHits('*', etag)).to.equal(true);
  });
  it('does not match others, absent or oversized headers', () => {
    expect(ifNoneMatchHits(undefined, etag)).to.equal(false);
    expect(ifNoneMatchHits('"abcd"', etag)).to.equal(false);
    expect(ifNoneMatchHits('abc', etag)).to.equal(false);
    expect(ifNoneMatchHits(`${'"x",'.repeat(3000)}"abc"`, etag)).to.equal(false);
  });
});
