import { Writable } from 'node:stream';
import { expect } from 'chai';
import { writeChunks } from './stream-body';

/** A sink that takes one chunk and then holds its callback until released: a reader that stopped reading. */
function stalledSink(): { sink: Writable; taken: Buffer[]; release(): void } {
  const taken: Buffer[] = [];
  let held: Array<() => void> = [];
  let open = false;
  const sink = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _enc, cb) {
      taken.push(chunk);
      if (open) cb();
      else held.push(cb);
    },
  });
  return {
    sink,
    taken,
    release() {
      open = true;
      const cbs = held;
      held = [];
      for (const cb of cbs) cb();
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

describe('writeChunks (issue 21: a streamed list respects backpressure)', () => {
  it('reads the next chunk only when the sink has taken the last one', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield [Buffer.from(`chunk${i};`)];
      }
    }
    const { sink, taken, release } = stalledSink();
    const done = writeChunks(sink, source());
    await settle();
    // The sink is full after the first chunk: the source was not read ahead.
    expect(pulled).to.equal(1);
    expect(taken.length).to.equal(1);
    release();
    await done;
    expect(pulled).to.equal(100);
    expect(Buffer.concat(taken).toString()).to.equal(Array.from({ length: 100 }, (_, i) => `chunk${i};`).join(''));
    expect(sink.writableEnded).to.equal(true);
  });

  it('cuts the answer when the source fails, and stops reading when the reader went away', async () => {
    async function* failing() {
      yield [Buffer.from('[')];
      throw new Error('the catalog changed while a list was being streamed');
    }
    const a = new Writable({ write: (_c, _e, cb) => cb() });
    a.on('error', () => undefined);
    await writeChunks(a, failing());
    expect(a.destroyed).to.equal(true);
    expect(a.writableEnded).to.equal(false);

    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled++;
        yield [Buffer.from('x')];
      }
    }
    const { sink } = stalledSink();
    const done = writeChunks(sink, endless());
    await settle();
    sink.destroy(); // the client closed its connection while the server waited for 'drain'
    await done;
    expect(pulled).to.equal(1);
  });

  it('returns to the event loop between groups even when every write completes at once (a fast reader on loopback)', async () => {
    // The sink takes every chunk synchronously but is "full" after each (highWaterMark 1), so 'drain' comes in the same
    // tick: waiting for it alone never let another request's callbacks run until the whole list was out (issue 21).
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        pulled++;
        yield [Buffer.from(`chunk${i};`)];
      }
    }
    const taken: Buffer[] = [];
    const sink = new Writable({ highWaterMark: 1, write: (c: Buffer, _e, cb) => { taken.push(c); cb(); } });
    let pulledWhenOtherWorkRan = -1;
    const done = writeChunks(sink, source());
    setImmediate(() => (pulledWhenOtherWorkRan = pulled)); // another request's work, queued once the list started
    await done;
    expect(pulledWhenOtherWorkRan).to.be.within(1, 2);
    expect(Buffer.concat(taken).toString()).to.equal(Array.from({ length: 100 }, (_, i) => `chunk${i};`).join(''));
  });
});
