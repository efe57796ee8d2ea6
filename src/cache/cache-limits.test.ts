import { expect } from 'chai';
import { loadConfig } from '../config/config';
import { DEFAULT_CACHE_BYTES, cacheLimitsFor } from '../config/cache-settings';

describe('cache budget (TOOLCAT_CACHE_MAX_BYTES)', () => {
  const sum = (l: ReturnType<typeof cacheLimitsFor>) => l.maxDocumentBytes + l.maxDescriptorBytes + l.maxVisibleSetBytes;

  it('bounds the whole cache, not each layer: the three layers never add up to more than the budget', () => {
    for (const total of [0, 1, 7, 20_000, DEFAULT_CACHE_BYTES, 48 * 1024 ** 3]) expect(sum(cacheLimitsFor(total)), String(total)).to.be.at.most(total);
    expect(cacheLimitsFor(600)).to.deep.equal({ maxDocumentBytes: 300, maxDescriptorBytes: 200, maxVisibleSetBytes: 100 });
  });

  it('reads the budget from the environment, 192 MiB by default, and refuses nonsense', () => {
    expect(sum(loadConfig({}).cache)).to.be.within(DEFAULT_CACHE_BYTES - 2, DEFAULT_CACHE_BYTES);
    expect(DEFAULT_CACHE_BYTES).to.equal(192 * 1024 ** 2);
    expect(loadConfig({ TOOLCAT_CACHE_MAX_BYTES: '600' }).cache).to.deep.equal(cacheLimitsFor(600));
    expect(() => loadConfig({ TOOLCAT_CACHE_MAX_BYTES: 'lots' })).to.throw(/TOOLCAT_CACHE_MAX_BYTES/);
    expect(() => loadConfig({ TOOLCAT_CACHE_MAX_BYTES: '-1' })).to.throw(/TOOLCAT_CACHE_MAX_BYTES/);
  });
});
