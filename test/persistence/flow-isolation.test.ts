/**
 * One flow never sees, or joins, another flow's open transaction. On PostgreSQL each flow has a pooled connection of
 * its own. On SQLite the process has one connection, and TypeORM gave every flow the same query runner on it: a read
 * issued by another request between two awaited statements of an open transaction ran inside it and saw its
 * uncommitted rows, and an autocommit write ran inside it and vanished with its ROLLBACK. The grants preview
 * (issue 20) is such a transaction: it inserts draft grants, reads, and always rolls back. A call decided in that
 * window was allowed by a grant that never existed (issue 14 item 2: a call is allowed exactly when GET
 * /tools/{toolId} would answer 200 at that moment; TC visibility).
 *
 * The window is microtasks wide, so these tests do not race: they issue the other flow's work from inside the open
 * transaction (as a request's continuation queued in that window would run), or scan every microtask offset of the
 * preview's window.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { committedReads, outsideTransactions } from '../../src/persistence/sqlite-immediate';
import { TenantEntity } from '../../src/persistence/tenant.entity';
import { DATABASES, forEachDatabase, openMigrated } from '../helpers/databases';
import { aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};

// The driver's own package, as the workers open it (it ships no types; toolcat does not depend on @types for it).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require('better-sqlite3') as new (path: string) => { exec(sql: string): void; close(): void };

/** Whether `p` settled within `turns` turns of the event loop (counted, never timed). */
const settlesWithin = async (p: Promise<unknown>, turns: number): Promise<boolean> => {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await new Promise((r) => setImmediate(r));
  return settled;
};

forEachDatabase('flow isolation: no flow reads or joins another flow’s open transaction', (database) => {
  let ds: DataSource;
  let close: () => Promise<void>;

  before(async function () {
    this.timeout(60_000);
    ({ ds, close } = await openMigrated(database));
  });
  after(() => close?.());

  const tenantRow = (name: string) => ({ id: randomUUID(), name, createdAt: new Date().toISOString() });

  it('a read outside the transaction sees committed rows only, never the uncommitted row of an open one', async () => {
    const name = `draft-${randomUUID()}`;
    let seen: Promise<TenantEntity | null> | null = null;
    await ds
      .transaction(async (m) => {
        await m.getRepository(TenantEntity).insert(tenantRow(name));
        // Another flow's read, queued while this transaction is open (not awaited here: it is not this flow's).
        seen = ds.getRepository(TenantEntity).findOne({ where: { name } });
        await m.query('SELECT 1');
        await m.query('SELECT 1');
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).to.equal('roll back'));
    expect(await seen!, 'the read saw a row that was never committed').to.equal(null);
  });

  it('a write outside the transaction is its own: another flow’s ROLLBACK does not undo it', async () => {
    const name = `kept-${randomUUID()}`;
    let wrote: Promise<unknown> | null = null;
    await ds
      .transaction(async (m) => {
        await m.query('SELECT 1');
        wrote = ds.getRepository(TenantEntity).insert(tenantRow(name));
        await m.query('SELECT 1');
        await m.query('SELECT 1');
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).to.equal('roll back'));
    await wrote;
    expect(await ds.getRepository(TenantEntity).findOne({ where: { name } }), 'the write was undone by another flow’s rollback').to.not.equal(null);
  });

  it('a transaction started while another is open is its own, not a savepoint of it', async () => {
    const mine = `mine-${randomUUID()}`;
    let second: Promise<unknown> | null = null;
    await ds
      .transaction(async (m) => {
        await m.query('SELECT 1');
        second = ds.transaction((m2) => m2.getRepository(TenantEntity).insert(tenantRow(mine)));
        await m.query('SELECT 1');
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).to.equal('roll back'));
    await second;
    expect(await ds.getRepository(TenantEntity).findOne({ where: { name: mine } })).to.not.equal(null);
  });
});

forEachDatabase('flow isolation: a call is never decided by a grant preview’s draft (issue 14 item 2)', (database) => {
  const suite = hostPerSuite(database, {}, async (h) => {
    await anExtension(h, { name: 'secret', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });

  it('the decision for a tool only a draft grants answers unknown at every moment of the preview', async function () {
    this.timeout(60_000);
    const { host } = suite;
    const { tenancy, grants, catalog } = host.app.services;
    const agentKey = (await aTenantWithKey(host, `iso-${randomUUID().slice(0, 8)}`)).key;
    const agent = (await tenancy.authenticate(agentKey))!;
    const admin = (await tenancy.authenticate(host.adminKey))!;
    expect(await catalog.toolDocument(agent, 'ext.secret', 'standard')).to.equal(null);
    const leaks: number[] = [];
    // Every microtask offset from the preview's start to well past its end (about 100 ticks on SQLite).
    for (let offset = 0; offset < 400; offset += 3) {
      const preview = grants.previewWithDrafts(admin, agent, [{ toolPattern: 'ext.secret' }]);
      await ticks(offset);
      const doc = await catalog.toolDocument(agent, 'ext.secret', 'standard');
      const seen = await preview;
      expect(seen.map((t) => t.toolId)).to.include('ext.secret'); // the preview itself does see its draft
      if (doc !== null) leaks.push(offset);
    }
    expect(leaks, `GET /tools/ext.secret was decided by an uncommitted draft grant at microtask offsets ${leaks.join(', ')}`).to.deep.equal([]);
    expect((await host.get('/tools/ext.secret', agentKey)).status).to.equal(404);
  });
});

describe('flow isolation on SQLite: a wait ends when the transaction it waits for ends, failed BEGINs included', () => {
  const sqlite = DATABASES.find((d) => d.name === 'sqlite')!;
  let ds: DataSource;
  let path: string;
  let close: () => Promise<void>;

  beforeEach(async function () {
    this.timeout(60_000);
    const opened = await openMigrated(sqlite);
    ({ ds, close } = opened);
    path = (opened.db as { path: string }).path;
  });
  afterEach(() => close?.());

  it('a read that waited for a BEGIN which then failed (another process held the write lock) is answered', async () => {
    await ds.query('PRAGMA busy_timeout = 20'); // how long BEGIN IMMEDIATE waits for the other process's lock
    const other = new Database(path);
    try {
      let grab = false;
      ds.subscribers.push({
        afterQuery(e: { query: string; success: boolean }) {
          // The other process takes the write lock the moment P commits, before A's BEGIN IMMEDIATE runs.
          if (grab && e.query === 'COMMIT' && e.success) {
            grab = false;
            other.exec('BEGIN IMMEDIATE');
          }
        },
      } as never);
      let releaseP!: () => void;
      const held = new Promise<void>((r) => (releaseP = r));
      const p = ds.transaction(async (m) => {
        await m.query('SELECT 1');
        await held;
      });
      await new Promise((r) => setImmediate(r));
      const read = ds.query('SELECT count(*) AS n FROM tenant'); // waits for P
      const a = ds.transaction((m) => m.query('SELECT 1')).then(() => null, (err: Error) => err);
      await new Promise((r) => setImmediate(r));
      grab = true;
      releaseP();
      await p;
      expect(String(await a)).to.match(/locked|busy/i);
      other.exec('ROLLBACK');
      expect(await settlesWithin(read, 1000), 'the read still waits for the transaction that never began').to.equal(true);
    } finally {
      other.close();
    }
  });

  it('a call-log write and a committed read wait for the open transaction only, not for those queued behind it', async () => {
    // The call path's statements on the raw connection (a call's start row, the catalog version read) run as soon as
    // the transaction open now ends: a queue of admin transactions (grants, a sync's swap) does not delay every call.
    const order: string[] = [];
    let releaseA!: () => void;
    const held = new Promise<void>((r) => (releaseA = r));
    const a = ds.transaction(async (m) => {
      await m.query('SELECT 1');
      await held;
    });
    await new Promise((r) => setImmediate(r));
    const queued = ['B', 'C'].map((name) =>
      ds.transaction(async (m) => {
        order.push(`${name} began`);
        await m.query('SELECT 1');
      }),
    );
    await ticks(50); // B and C have asked for their BEGIN and wait for A
    const write = outsideTransactions(ds, () => order.push('call-log write'));
    const read = committedReads(ds, () => order.push('committed read'));
    await ticks(50);
    expect(order, 'nothing ran while A was open').to.deep.equal([]);
    releaseA();
    await Promise.all([a, ...queued, write, read]);
    expect(order).to.deep.equal(['committed read', 'call-log write', 'B began', 'C began']);
  });

  it('a transaction whose BEGIN ran but whose begin then failed is rolled back, and the connection serves others again', async () => {
    let armed = true;
    ds.subscribers.push({
      afterQuery(e: { query: string }) {
        if (armed && e.query.startsWith('BEGIN IMMEDIATE')) {
          armed = false;
          throw new Error('a subscriber failed after BEGIN');
        }
      },
    } as never);
    const tx = ds.transaction((m) => m.query('SELECT 1'));
    expect(await settlesWithin(tx, 1000), 'the transaction hangs').to.equal(true);
    expect(await tx.then(() => null, (err: Error) => err.message)).to.match(/subscriber failed/);
    expect((ds.driver as unknown as { databaseConnection: { inTransaction: boolean } }).databaseConnection.inTransaction).to.equal(false);
    expect(await settlesWithin(ds.query('SELECT 1 AS one'), 1000), 'a read after it hangs').to.equal(true);
  });
});
