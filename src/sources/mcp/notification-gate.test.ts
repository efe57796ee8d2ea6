import { expect } from 'chai';
import { FLOOD_SECONDS, NotificationGate } from './notification-gate';

/** Issue 12 defect 4: the per-second budget of one source's notifications, on a clock the test moves. */
describe('NotificationGate', () => {
  const gate = (maxPerSecond: number) => {
    const clock = { t: 1_000_000 };
    const floods: number[] = [];
    const g = new NotificationGate({ maxPerSecond, now: () => clock.t, onFlood: (n) => floods.push(n) });
    return { g, clock, floods };
  };
  const admitted = (g: NotificationGate, n: number) => Array.from({ length: n }, () => g.admit()).filter(Boolean).length;

  it('issue 12 defect 4: admits at most the cap per second and drops the rest, counting both', () => {
    const { g, clock } = gate(20);
    expect(admitted(g, 1000)).to.equal(20);
    clock.t += 1000;
    expect(admitted(g, 5)).to.equal(5);
    expect({ received: g.received, dropped: g.dropped }).to.deep.equal({ received: 1005, dropped: 980 });
  });

  it('issue 12 defect 4: over the cap FLOOD_SECONDS seconds in a row is a flood; a quiet second in between is not', () => {
    const { g, clock, floods } = gate(10);
    for (let s = 0; s < FLOOD_SECONDS - 1; s++, clock.t += 1000) admitted(g, 50);
    clock.t += 1000; // a second without any notification breaks the streak
    for (let s = 0; s < FLOOD_SECONDS - 1; s++, clock.t += 1000) admitted(g, 50);
    expect(floods).to.deep.equal([]);
    admitted(g, 50);
    expect(floods, 'reported with the last full second\'s count').to.deep.equal([50]);
    g.throttleUntil(clock.t + 60_000);
    clock.t += 1000;
    expect(admitted(g, 5), 'throttled: nothing is admitted, not even under the cap').to.equal(0);
    expect(g.throttledUntil).to.equal(clock.t + 59_000);
    clock.t += 60_000;
    expect(g.throttledUntil).to.equal(null);
    expect(admitted(g, 5)).to.equal(5);
  });

  it('issue 12 defect 4: past its read budget in a second, reading pauses until the next second', () => {
    const { g, clock } = gate(20);
    clock.t = 5_000_250;
    admitted(g, 10_000);
    expect(g.pauseMs()).to.equal(0);
    admitted(g, 1);
    expect(g.pauseMs()).to.equal(750);
    clock.t += 750;
    admitted(g, 1);
    expect(g.pauseMs()).to.equal(0);
  });
});
