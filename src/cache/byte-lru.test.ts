import { expect } from 'chai';
import { ByteLru } from './byte-lru';

describe(ByteLru.name, () => {
  it('keeps total bytes within the bound, evicting the least recently used first', () => {
    const sut = new ByteLru<string>(100);
    sut.set('a', 'A', 40);
    sut.set('b', 'B', 40);
    expect(sut.get('a')).to.equal('A'); // a is now the most recent
    sut.set('c', 'C', 40);
    expect(sut.get('b')).to.equal(undefined);
    expect(sut.get('a')).to.equal('A');
    expect(sut.bytes).to.equal(80);
  });
  it('never keeps a value larger than the bound, and replaces a key in place', () => {
    const sut = new ByteLru<string>(10);
    sut.set('big', 'x', 11);
    expect(sut.size).to.equal(0);
    sut.set('k', 'v1', 5);
    sut.set('k', 'v2', 6);
    expect([sut.get('k'), sut.bytes, sut.size]).to.deep.equal(['v2', 6, 1]);
  });
  it('stays bounded under 100,000 distinct keys', () => {
    const sut = new ByteLru<number>(1000);
    for (let i = 0; i < 100_000; i++) sut.set(`k${i}`, i, 10);
    expect(sut.bytes).to.be.at.most(1000);
    expect(sut.size).to.equal(100);
  });
});
