/**
 * ParseTurns (red-team pass on issue 14, finding 2): large request bodies are parsed one at a time, in turns across
 * tenants, with a turn of the event loop between two, so one tenant's burst of near-1 MiB bodies holds another's
 * requests for about one parse, not for all of them. Turns are counted, never timed.
 */
import { expect } from 'chai';
import { ParseTurns } from '../../src/shared/parse-turns';

const turn = () => new Promise<void>((r) => setImmediate(r));

describe('ParseTurns: large bodies take turns (issue 14, Containment)', () => {
  it('a small body is parsed at once, in the same step', async () => {
    const turns = new ParseTurns(100);
    const order: string[] = [];
    const p = turns.run('a', 100, () => order.push('small'));
    expect(order).to.deep.equal(['small']);
    await p;
  });

  it('between two large parses the event loop turns: what arrived meanwhile runs first', async () => {
    const turns = new ParseTurns(100);
    const order: string[] = [];
    const first = turns.run('a', 101, () => {
      order.push('a1');
      // A neighbour's request arriving during the first parse: its callback is queued on the loop.
      setImmediate(() => order.push('neighbour'));
    });
    const second = turns.run('a', 101, () => order.push('a2'));
    await Promise.all([first, second]);
    expect(order).to.deep.equal(['a1', 'neighbour', 'a2']);
  });

  it('the next turn goes to the party that waited longest; a party with many waits behind the others', async () => {
    const turns = new ParseTurns(0);
    const order: string[] = [];
    const run = (party: string, name: string) => turns.run(party, 1, () => order.push(name));
    const all = [run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('b', 'b1'), run('c', 'c1'), run('b', 'b2')];
    expect(turns.queued).to.equal(5);
    await Promise.all(all);
    expect(order).to.deep.equal(['a1', 'b1', 'c1', 'a2', 'b2', 'a3']);
    expect(turns.queued).to.equal(0);
  });

  it('a parse that throws still passes the turn on', async () => {
    const turns = new ParseTurns(0);
    const failed = turns.run('a', 1, () => {
      throw new Error('bad body');
    });
    const next = turns.run('b', 1, () => 'parsed');
    expect(await failed.then(() => null, (err: Error) => err.message)).to.equal('bad body');
    expect(await next).to.equal('parsed');
    for (let i = 0; i < 3; i++) await turn();
    expect(await turns.run('c', 1, () => 'again')).to.equal('again');
  });
});
