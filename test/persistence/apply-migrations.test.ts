/**
 * Migrations are applied over a connection without the request bound (QUERY_TIMEOUT_MS) on PostgreSQL: an index built
 * over a long call log can take longer than any request may wait, and a migration cut at 15 s rolls back and leaves
 * the service unable to start (review of BoundedLogPages1764610000000). The serving pool keeps its bound.
 */
import { expect } from 'chai';
import { QUERY_TIMEOUT_MS, applyMigrations, createDataSource } from '../../src/persistence/data-source';
import { forEachDatabase } from '../helpers/databases';

forEachDatabase('applying migrations', (database) => {
  it('applies every pending migration once, in order, and says which', async function () {
    this.timeout(60_000);
    const created = await database.create();
    const ds = createDataSource(created.db);
    try {
      await ds.initialize();
      const applied = await applyMigrations(ds, created.db);
      expect(applied).to.deep.equal(ds.migrations.map((m) => m.name ?? m.constructor.name));
      expect(applied).to.include('BoundedLogPages1764610000000');
      expect(await ds.showMigrations()).to.equal(false);
      expect(await applyMigrations(ds, created.db)).to.deep.equal([]);
    } finally {
      await ds.destroy();
      await created.drop();
    }
  });

  if (database.name === 'postgres') {
    it('bounds a request statement at QUERY_TIMEOUT_MS, and a migration statement not at all', async function () {
      this.timeout(60_000);
      const created = await database.create();
      const serving = createDataSource(created.db);
      const migrating = createDataSource(created.db, { migrating: true });
      try {
        await serving.initialize();
        await migrating.initialize();
        const poolOf = (ds: typeof serving) => (ds.driver as unknown as { master: { options: { query_timeout?: number } } }).master.options;
        expect(poolOf(serving).query_timeout).to.equal(QUERY_TIMEOUT_MS);
        expect(poolOf(migrating).query_timeout).to.equal(undefined);
      } finally {
        await serving.destroy();
        await migrating.destroy();
        await created.drop();
      }
    });
  }
});
