/**
 * Issue 14: on a SQLite file the server checkpoints the WAL on a thread of its own (SqliteCheckpointer), so no commit
 * on the event loop copies the WAL back inline. While it runs, the main connection's autocheckpoint is off and the
 * thread's checkpoints reach the database file; stop() restores SQLite's own autocheckpoint; PostgreSQL and an
 * in-memory database get no thread.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../../src/persistence/data-source';
import { SqliteCheckpointer } from '../../src/persistence/sqlite-checkpointer';

describe('SQLite WAL checkpoints off the event loop (issue 14)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolcat-ckpt-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const autocheckpoint = async (ds: DataSource) => ((await ds.query('PRAGMA wal_autocheckpoint')) as Array<{ wal_autocheckpoint: number }>)[0].wal_autocheckpoint;

  it('the thread checkpoints the WAL into the file while the main connection does not; stop() gives SQLite its own back', async function () {
    this.timeout(60_000);
    const path = join(dir, 'catalog.sqlite');
    const ds = createDataSource({ type: 'sqlite', path, synchronous: 'normal' });
    await ds.initialize();
    try {
      await ds.query('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
      const checkpointer = await SqliteCheckpointer.start(ds, 20);
      expect(checkpointer).to.not.equal(null);
      expect(await autocheckpoint(ds)).to.equal(0);
      const fileBefore = statSync(path).size;
      // ~8 MB of rows (>> 1,000 WAL pages): without any checkpoint all of it stays in the WAL.
      for (let batch = 0; batch < 20; batch++) {
        await ds.transaction(async (m) => {
          for (let i = 0; i < 100; i++) await m.query('INSERT INTO t (body) VALUES (?)', ['x'.repeat(4000)]);
        });
      }
      for (let i = 0; i < 500 && statSync(path).size <= fileBefore + 4 * 1024 * 1024; i++) await new Promise((r) => setTimeout(r, 20));
      expect(statSync(path).size, 'the database file received the checkpointed pages').to.be.greaterThan(fileBefore + 4 * 1024 * 1024);
      await checkpointer!.stop();
      expect(await autocheckpoint(ds)).to.equal(1000);
    } finally {
      await ds.destroy();
    }
  });

  it('a thread that dies on its own hands checkpoints back to SQLite (autocheckpoint 1000 again)', async function () {
    this.timeout(30_000);
    const ds = createDataSource({ type: 'sqlite', path: join(dir, 'dies.sqlite'), synchronous: 'normal' });
    await ds.initialize();
    try {
      const checkpointer = await SqliteCheckpointer.start(ds, 20);
      expect(await autocheckpoint(ds)).to.equal(0);
      await (checkpointer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      for (let i = 0; i < 200 && (await autocheckpoint(ds)) !== 1000; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await autocheckpoint(ds)).to.equal(1000);
    } finally {
      await ds.destroy();
    }
  });

  it('no thread for an in-memory database', async () => {
    const ds = createDataSource({ type: 'sqlite', path: ':memory:', synchronous: 'normal' });
    await ds.initialize();
    try {
      expect(await SqliteCheckpointer.start(ds)).to.equal(null);
    } finally {
      await ds.destroy();
    }
  });
});
