/**
 * Pins the per-key token bucket (issue 5): burst then refill on a fake clock, Retry-After rounding, bounded
 * memory, and the HTTP answer (429, Retry-After, RateLimit-* headers, error envelope) over a real socket.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { admitOrRefuse, createRateLimiter } from './rate-limit';

function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe(createRateLimiter.name, () => {
  it('allows a burst of `capacity`, then refuses with the time until the next token', () => {
    const clock = fakeClock();
    const rl = createRateLimiter({ capacity: 3, refillPerSecond: 0.5, maxKeys: 10, now: clock.now });
    expect([rl.take('a'), rl.take('a'), rl.take('a')].map((r) => [r.allowed, r.remaining])).to.deep.equal([[true, 2], [true, 1], [true, 0]]);
    expect(rl.take('a')).to.deep.equal({ allowed: false, retryAfterSeconds: 2, remaining: 0 });
    clock.advance(1999);
    expect(rl.take('a')).to.deep.equal({ allowed: false, retryAfterSeconds: 1, remaining: 0 }); // 1 ms left rounds up to 1 s
    clock.advance(1);
    expect(rl.take('a')).to.deep.equal({ allowed: true, retryAfterSeconds: 0, remaining: 0 });
  });

  it('refills up to capacity and no further; keys are independent', () => {
    const clock = fakeClock();
    const rl = createRateLimiter({ capacity: 2, refillPerSecond: 10, maxKeys: 10, now: clock.now });
    rl.take('a');
    rl.take('a');
    expect(rl.take('a').allowed).to.equal(false);
    expect(rl.take('b')).to.deep.equal({ allowed: true, retryAfterSeconds: 0, remaining: 1 });
    clock.advance(3_600_000);
    expect(rl.take('a').remaining).to.equal(1);
    expect(rl.take('a').remaining).to.equal(0);
    expect(rl.take('a').allowed).to.equal(false);
  });

  it('a clock that steps backwards mints nothing', () => {
    const clock = fakeClock();
    const rl = createRateLimiter({ capacity: 1, refillPerSecond: 1, maxKeys: 10, now: clock.now });
    rl.take('a');
    clock.advance(-60_000);
    expect(rl.take('a').allowed).to.equal(false);
    clock.advance(60_000);
    expect(rl.take('a').allowed).to.equal(false);
    clock.advance(1000);
    expect(rl.take('a').allowed).to.equal(true);
  });

  it('keeps at most maxKeys buckets (100k distinct keys), evicting the least recently used', () => {
    const clock = fakeClock();
    const rl = createRateLimiter({ capacity: 1, refillPerSecond: 0.001, maxKeys: 1000, now: clock.now });
    rl.take('hot');
    let largest = 0;
    let hotAllowed = 0;
    for (let i = 0; i < 100_000; i++) {
      rl.take(`k${i}`);
      if (i % 500 === 0 && rl.take('hot').allowed) hotAllowed++; // touched often: stays remembered, stays empty
      largest = Math.max(largest, rl.size());
    }
    expect(largest).to.equal(1000);
    expect(hotAllowed).to.equal(0);
    expect(rl.take('k0').allowed, 'an evicted key starts over with a full bucket').to.equal(true);
  });

  it('refuses nonsense configuration', () => {
    expect(() => createRateLimiter({ capacity: 0, refillPerSecond: 1, maxKeys: 1 })).to.throw(RangeError);
    expect(() => createRateLimiter({ capacity: 1, refillPerSecond: 0, maxKeys: 1 })).to.throw(RangeError);
    expect(() => createRateLimiter({ capacity: 1, refillPerSecond: Number.NaN, maxKeys: 1 })).to.throw(RangeError);
    expect(() => createRateLimiter({ capacity: 1, refillPerSecond: 1, maxKeys: 0 })).to.throw(RangeError);
  });
});

describe(admitOrRefuse.name, () => {
  let server: Server;
  let base: string;
  const clock = fakeClock();

  before(async () => {
    const limiter = createRateLimiter({ capacity: 2, refillPerSecond: 0.25, maxKeys: 100, now: clock.now });
    // The key here is a header for the test; the REST facade keys by the authenticated principal.
    server = http.createServer((req, res) => {
      const key = req.headers['x-principal'];
      if (typeof key === 'string' && !admitOrRefuse(limiter, key, res)) return;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = (principal?: string) => fetch(`${base}/tools`, { headers: principal ? { 'x-principal': principal } : {} });

  it('answers 429 with Retry-After, RateLimit headers and the error envelope once the bucket is empty', async () => {
    const first = await get('p1');
    expect(first.status).to.equal(200);
    expect(first.headers.get('ratelimit-limit')).to.equal('2');
    expect(first.headers.get('ratelimit-remaining')).to.equal('1');
    expect((await get('p1')).headers.get('ratelimit-remaining')).to.equal('0');
    const refused = await get('p1');
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('retry-after')).to.equal('4');
    expect(refused.headers.get('content-type')).to.match(/^application\/json/);
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).to.equal('RATE_LIMITED');
    expect(body.error.message).to.be.a('string').and.not.be.empty;
    expect((await get('p2')).status, 'another principal is unaffected').to.equal(200);
    clock.advance(4000);
    expect((await get('p1')).status).to.equal(200);
  });
});
