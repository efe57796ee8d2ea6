/**
 * The stored catalog version, read by every call's decision (issue 14 item 2: a change made by another replica or
 * the CLI applies to the next call). On SQLite it is a statement prepared once per connection: these tests pin that
 * it never answers from a stale snapshot or a closed connection.
 */
import { expect } from 'chai';
import { createDataSource } from '../../src/persistence/data-source';
import { bumpCatalogVersion, readCatalogVersion } from '../../src/persistence/catalog-version';
import { forEachDatabase, openMigrated } from '../helpers/databases';

forEachDatabase('the stored catalog version', (database) => {
  it("reads another process's committed bump on the next read, each time", async function () {
    this.timeout(30_000);
    const { ds: reader, db, close } = await openMigrated(database);
    const writer = createDataSource(db);
    try {
      await writer.initialize();
      const first = await readCatalogVersion(reader.manager);
      for (let i = 1; i <= 3; i++) {
        await writer.transaction((m) => bumpCatalogVersion(m));
        expect(await readCatalogVersion(reader.manager), `after bump ${i}`).to.equal(first + i);
      }
    } finally {
      if (writer.isInitialized) await writer.destroy();
      await close();
    }
  });

  it("inside a transaction, reads that transaction's own view", async function () {
    this.timeout(30_000);
    const { ds, close } = await openMigrated(database);
    try {
      const before = await readCatalogVersion(ds.manager);
      await ds.transaction(async (m) => {
        await bumpCatalogVersion(m);
        expect(await readCatalogVersion(m)).to.equal(before + 1);
      });
      expect(await readCatalogVersion(ds.manager)).to.equal(before + 1);
    } finally {
      await close();
    }
  });

  it('reads again after the data source reconnected (a new connection, a new statement)', async function () {
    this.timeout(30_000);
    const { ds, close } = await openMigrated(database);
    try {
      const before = await readCatalogVersion(ds.manager);
      await ds.destroy();
      await ds.initialize();
      await ds.transaction((m) => bumpCatalogVersion(m));
      expect(await readCatalogVersion(ds.manager)).to.equal(before + 1);
    } finally {
      await close();
    }
  });
});
