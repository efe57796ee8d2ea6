import { expect } from 'chai';
import { CatalogError } from '../catalog/catalog.errors';
import { SyncQueue } from './sync-queue';

/** Issue 12 defect 2: a bounded number of syncs at once, a bounded wait for on-demand ones, a clear refusal past it. */
describe('SyncQueue', () => {
  it('issue 12 defect 2: runs at most maxConcurrentSyncs, queues on-demand ones up to maxQueuedSyncs (first), refuses the next', async () => {
    const q = new SyncQueue({ maxConcurrentSyncs: 2, maxQueuedSyncs: 1 });
    const order: string[] = [];
    const gates: Array<() => void> = [];
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        order.push(name);
        gates.push(() => resolve(name));
      });
    const a = q.run(task('a'), true);
    const b = q.run(task('b'), false);
    const bg = q.run(task('background'), false); // background: always queued
    const c = q.run(task('c'), true);
    const refused = await q.run(task('d'), true).then(() => null, (e: unknown) => e);
    expect(refused).to.be.instanceOf(CatalogError);
    expect((refused as CatalogError).code).to.equal('CONFLICT');
    expect((refused as Error).message).to.match(/Too many syncs: 2 running and 2 waiting/);
    expect({ running: q.running, queued: q.queued, refused: q.refused }).to.deep.equal({ running: 2, queued: 2, refused: 1 });
    expect(order).to.deep.equal(['a', 'b']);
    gates.shift()!();
    await a;
    await new Promise((r) => setImmediate(r));
    expect(order, 'the on-demand sync goes before the background one').to.deep.equal(['a', 'b', 'c']);
    gates.shift()!();
    await b;
    await new Promise((r) => setImmediate(r));
    expect(order).to.deep.equal(['a', 'b', 'c', 'background']);
    for (const g of gates.splice(0)) g();
    expect(await Promise.all([c, bg])).to.deep.equal(['c', 'background']);
    expect(q.running).to.equal(0);
  });
});
