/**
 * One catalog change, one new generation (src/cache/catalog-generation.ts). A replica hears of a change up to three
 * ways: its own commit, the next read of the stored version (the poll, and every call's decision), and on PostgreSQL
 * the NOTIFY of the change, its own write's echo included. Each new generation drops every cached answer, so each
 * tenant's next list is a rebuild: hearing one change three times made three rebuilds of it. These tests count the
 * generations a change makes once every way of hearing of it has been drained.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource, EntityManager } from 'typeorm';
import { CatalogGeneration } from '../../src/cache/catalog-generation';
import { bumpCatalogVersion, readCatalogVersion } from '../../src/persistence/catalog-version';
import { versionOfPayload } from '../../src/persistence/catalog-version-sql';
import { createDataSource } from '../../src/persistence/data-source';
import { GrantEntity } from '../../src/persistence/grant.entity';
import { GrantService } from '../../src/services/grant.service';
import { type TestDatabase, forEachDatabase, openMigrated } from '../helpers/databases';
import { until } from '../helpers/mcp-servers';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

/**
 * A migrated database of its own with a generation watching it as the app's does (its transaction subscriber; no poll
 * timer: the tests poll when they mean to), a count of that generation's changes, closed and dropped afterwards.
 */
async function withWatched(database: TestDatabase, test: (w: { ds: DataSource; gen: CatalogGeneration; changes: () => number }) => Promise<void>): Promise<void> {
  const { ds, close } = await openMigrated(database);
  try {
    const gen = new CatalogGeneration();
    ds.subscribers.push(gen);
    await gen.watch(ds, 0);
    let n = 0;
    gen.onChange(() => n++);
    await test({ ds, gen, changes: () => n });
  } finally {
    await close();
  }
}

forEachDatabase('catalog generation: one change, one new generation', (database) => {
  // No poll timer: each test polls when it means to (no wall clock).
  const suite = hostPerSuite(database, { versionPollMs: 0, startSources: false }, async (h) => {
    await anExtension(h, { name: 'alpha', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });

  /**
   * Runs `change` and counts the new generations it makes once every way of hearing of it is drained: the stored
   * version polled, and on PostgreSQL `notifies` more notifications heard (then polled once more).
   */
  async function generationsOf(host: TestHost, notifies: number, change: () => Promise<void>): Promise<number> {
    const { generation, dataSource, catalogListener } = host.app;
    await generation.poll(dataSource);
    const heard = catalogListener?.heard ?? 0;
    let n = 0;
    const off = generation.onChange(() => n++);
    try {
      await change();
      await generation.poll(dataSource);
      if (catalogListener) {
        await until(async () => catalogListener.heard >= heard + notifies);
        await generation.poll(dataSource);
      }
      return n;
    } finally {
      off();
    }
  }

  it('a write made here (a grant): its commit, the next poll and its own NOTIFY echo are one new generation', async () => {
    const { host } = suite;
    const t = await aTenantWithKey(host, 'own-write');
    const before = host.app.generation.current;
    expect(await generationsOf(host, 1, async () => void (await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.alpha' })))).to.equal(1);
    expect(host.app.generation.current).not.to.equal(before);
    const ids = (await host.get('/tools', t.key)).json() as Array<{ toolId: string }>;
    expect(ids.map((d) => d.toolId)).to.deep.equal(['ext.alpha']);
  });

  it("another process's write (CLI, another replica): one new generation, whichever of its NOTIFY and the poll comes first", async function () {
    this.timeout(20_000);
    const { host } = suite;
    const t = await aTenantWithKey(host, 'other-process');
    const other = createDataSource(suite.db);
    await other.initialize();
    try {
      expect(await generationsOf(host, 1, () => new GrantService(other).createGrantUnchecked({ tenantId: t.tenantId, toolPattern: 'ext.alpha' }).then(() => undefined))).to.equal(1);
    } finally {
      await other.destroy();
    }
    const ids = (await host.get('/tools', t.key)).json() as Array<{ toolId: string }>;
    expect(ids.map((d) => d.toolId)).to.deep.equal(['ext.alpha']);
  });

  it('a sync that changes served tools (the snapshot swap, on SQLite from its writer thread): one new generation', async function () {
    this.timeout(20_000);
    const { host } = suite;
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name: 'gen', transport: 'stdio', command: 'not-run', enabled: false, syncIntervalSeconds: 0 } });
    const tool = (name: string) => ({ name, description: `the ${name} tool`, inputSchema: { type: 'object', properties: {} } });
    expect(await generationsOf(host, 1, async () => void (await host.app.services.snapshots.apply('gen', [tool('one'), tool('two')])))).to.equal(1);
    // The same listing again publishes nothing: no new generation at all.
    expect(await generationsOf(host, 0, async () => void (await host.app.services.snapshots.apply('gen', [tool('one'), tool('two')])))).to.equal(0);
  });
});

forEachDatabase('catalog generation: versions only go forward', (database) => {
  it('a poll that read before a newer version was taken is stale: it does not step the generation back', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, gen, changes }) => {
      const v = await readCatalogVersion(ds.manager);
      // The poll's read is of version v; before it ends, this process takes v + 1 (its own commit, or a NOTIFY).
      const stale = gen.poll(ds);
      gen.seen(v + 1);
      await stale;
      const taken = gen.current;
      expect(changes()).to.equal(1);
      // The database then reaches v + 1: its commit and the poll find what was taken, nothing new.
      await ds.transaction((m) => bumpCatalogVersion(m));
      await gen.poll(ds);
      expect([changes(), gen.current]).to.deep.equal([1, taken]);
      // The same version seen again, or an older one arriving late: nothing.
      gen.seen(v + 1);
      gen.seen(v);
      expect([changes(), gen.current]).to.deep.equal([1, taken]);
    });
  });

  it('a database whose version went back with nothing taken in between (restored, replaced) is believed', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, gen, changes }) => {
      await ds.transaction(async (m) => {
        await bumpCatalogVersion(m);
        await bumpCatalogVersion(m);
      });
      const before = gen.current;
      const counted = changes();
      await ds.query('UPDATE catalog_state SET version = 0 WHERE id = 1');
      await gen.poll(ds);
      expect(changes()).to.equal(counted + 1);
      expect(gen.current).not.to.equal(before);
    });
  });

  it('a commit takes the version its transaction wrote (RETURNING, both databases): the next poll finds nothing new', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, gen, changes }) => {
      await ds.transaction((m) => bumpCatalogVersion(m));
      expect(changes()).to.equal(1);
      const after = gen.current;
      await gen.poll(ds);
      expect([changes(), gen.current]).to.deep.equal([1, after]);
    });
  });
});

forEachDatabase('catalog generation: only a committed version is taken', (database) => {
  const boom = new Error('rolled back on purpose');

  it('a transaction that bumped and rolled back leaves nothing behind: the next commit of that same version is a change', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, changes }) => {
      await ds.transaction(async (m) => {
        await bumpCatalogVersion(m);
        throw boom;
      }).catch((err: unknown) => expect(err).to.equal(boom));
      // A rollback is no change: nobody else read what it undid (test/persistence/flow-isolation.test.ts).
      expect(changes()).to.equal(0);
      // A transaction that changes nothing: no change.
      await ds.transaction((m) => m.query('SELECT 1'));
      expect(changes()).to.equal(0);
      // The next bump writes the number the rolled-back one had written: it is still a change.
      await ds.transaction((m) => bumpCatalogVersion(m));
      expect(changes()).to.equal(1);
    });
  });

  it('a nested transaction (a savepoint) takes nothing before the outer commit, and one rolled back does not leave its version', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, gen, changes }) => {
      await ds.transaction(async (m) => {
        await m.transaction((inner) => bumpCatalogVersion(inner));
        expect(changes(), 'after the savepoint was released, before the commit').to.equal(0);
      });
      expect(changes()).to.equal(1);
      await gen.poll(ds);
      expect(changes()).to.equal(1);
      // The outer bump commits; the savepoint's bump (one more) is rolled back.
      await ds.transaction(async (m) => {
        await bumpCatalogVersion(m);
        await m.transaction(async (inner) => {
          await bumpCatalogVersion(inner);
          throw boom;
        }).catch((err: unknown) => expect(err).to.equal(boom));
      });
      expect(changes()).to.be.at.least(2);
      await gen.poll(ds);
      const settled = changes();
      // The next commit writes the number the rolled-back savepoint had written: it is a change.
      await ds.transaction((m) => bumpCatalogVersion(m));
      expect(changes()).to.equal(settled + 1);
    });
  });
});

/**
 * Another flow's transaction held open at a point of the test's choosing (no timer): it runs `work`, then waits for
 * `end()`, then rolls back (or commits with `end(true)`).
 */
function heldTransaction(ds: DataSource, work: (m: EntityManager) => Promise<unknown>): { opened: Promise<void>; end(commit?: boolean): Promise<void> } {
  let inside!: () => void;
  let release!: (commit: boolean) => void;
  const opened = new Promise<void>((r) => (inside = r));
  const released = new Promise<boolean>((r) => (release = r));
  const rolledBack = new Error('rolled back on purpose');
  const done = ds
    .transaction(async (m) => {
      await work(m);
      inside();
      if (!(await released)) throw rolledBack;
    })
    .catch((err: unknown) => {
      if (err !== rolledBack) throw err;
    });
  return {
    opened,
    end: async (commit = false) => {
      release(commit);
      await done;
    },
  };
}

forEachDatabase('catalog generation: what another flow has not committed', (database) => {
  it('a poll while another flow has bumped but not committed takes the committed version, so the next real change is one', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, gen }) => {
      const tx = heldTransaction(ds, (m) => bumpCatalogVersion(m));
      await tx.opened;
      // What every call's decision runs, while the bump is uncommitted (on SQLite the same connection holds it).
      const polled = gen.poll(ds);
      await tx.end();
      await polled;
      const before = gen.current;
      // The real change writes the number the rolled-back bump had written.
      await ds.transaction((m) => bumpCatalogVersion(m));
      expect(gen.current).not.to.equal(before);
    });
  });

  it('after a database went back to an older version, no generation string comes back (an answer cached under it would match again)', async function () {
    this.timeout(30_000);
    await withWatched(database, async ({ ds, gen }) => {
      const seen = new Set([gen.current]);
      const v = await readCatalogVersion(ds.manager);
      await ds.transaction((m) => bumpCatalogVersion(m));
      seen.add(gen.current);
      await ds.query('UPDATE catalog_state SET version = 0 WHERE id = 1');
      await gen.poll(ds);
      expect(seen.has(gen.current), gen.current).to.equal(false);
      seen.add(gen.current);
      for (let i = 1; i <= v + 1; i++) {
        await ds.transaction((m) => bumpCatalogVersion(m));
        expect(seen.has(gen.current), `bump ${i} after the restore: ${gen.current}`).to.equal(false);
        seen.add(gen.current);
      }
    });
  });
});

forEachDatabase('catalog generation: what a rolled-back write let others read', (database) => {
  const suite = hostPerSuite(database, { versionPollMs: 0, startSources: false }, async (h) => {
    await anExtension(h, { name: 'alpha', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });

  it('a grant written and rolled back is not served afterwards, even if a list was read while it was uncommitted', async () => {
    const { host } = suite;
    const t = await aTenantWithKey(host, 'rolled-back-grant');
    const second = await aPrincipal(host, t.tenantId, 'second');
    const ids = async (key: string) => ((await host.get('/tools', key)).json() as Array<{ toolId: string }>).map((d) => d.toolId);
    expect(await ids(t.key)).to.deep.equal([]);
    // A grant preview (issue 20) inserts drafts and rolls back; any write that fails after its insert does the same.
    const tx = heldTransaction(host.app.dataSource, (m) =>
      m.getRepository(GrantEntity).insert({ id: randomUUID(), tenantId: t.tenantId, principalId: null, groupName: null, toolPattern: 'ext.alpha', likePattern: 'ext.alpha', source: null, maxSafetyTier: null, maxTierRank: null, createdAt: new Date().toISOString() } as GrantEntity),
    );
    await tx.opened;
    // A principal's first list, asked for meanwhile: it must not see the grant, or cache a visible set holding it (on
    // SQLite it waits for the transaction to end; it used to read through the one connection that held the insert).
    const meanwhile = ids(second.key);
    await tx.end();
    expect(await meanwhile).to.deep.equal([]);
    expect(await ids(second.key)).to.deep.equal([]);
    expect(await ids(t.key)).to.deep.equal([]);
  });

  it('a principal revoked after another flow bumped and rolled back is refused at once (its authentication is not kept)', async () => {
    const { host } = suite;
    const { generation, dataSource } = host.app;
    const t = await aTenantWithKey(host, 'revoked-after-rollback');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.alpha' });
    const tx = heldTransaction(dataSource, (m) => bumpCatalogVersion(m));
    await tx.opened;
    const polled = generation.poll(dataSource);
    const meanwhile = host.get('/tools', t.key);
    await tx.end();
    expect((await meanwhile).status).to.equal(200);
    await polled;
    await host.gqlOk('mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id: t.principalId });
    expect((await host.get('/tools', t.key)).status).to.equal(401);
  });
});

describe('catalog NOTIFY payloads', () => {
  it('carry a committed version in decimal; anything else is no version (the listener then reads the stored one)', () => {
    expect(versionOfPayload('42')).to.equal(42);
    for (const p of ['', undefined, '-1', '4.2', '1e3', ' 7', '0x10', 'x', '9'.repeat(16)]) expect(versionOfPayload(p), String(p)).to.equal(null);
  });
});
