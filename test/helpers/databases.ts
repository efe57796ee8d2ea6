import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { DatabaseConfig } from '../../src/config/config';
import { createDataSource } from '../../src/persistence/data-source';
import { useImmediateTransactions } from '../../src/persistence/sqlite-immediate';

/**
 * One suite, several backends (the Vendure/TypeORM pattern). SQLite always runs (a real file in a temp
 * folder). PostgreSQL runs when TEST_POSTGRES_URL is set: each suite creates its own database and drops it,
 * never assuming an empty server. .ci/run always sets it.
 */
export interface TestDatabase {
  readonly name: 'sqlite' | 'postgres';
  create(): Promise<{ db: DatabaseConfig; drop(): Promise<void> }>;
}

const POSTGRES_URL = process.env.TEST_POSTGRES_URL || null;

const sqlite: TestDatabase = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'toolcat-test-'));
    return { db: { type: 'sqlite', path: join(dir, 'catalog.sqlite') }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

/**
 * A fresh database on the PostgreSQL server at `adminUrl` (named `<prefix>_<random hex>`), and how to drop it
 * (WITH FORCE: connections left open by a failed test do not keep it alive). Used by the tests and the bench.
 */
export async function createTempPgDatabase(adminUrl: string, prefix: string, poolSize: number): Promise<{ db: DatabaseConfig & { type: 'postgres' }; name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    db: { type: 'postgres', url: url.toString(), poolSize },
    name,
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

const postgres: TestDatabase = {
  name: 'postgres',
  create: () => createTempPgDatabase(POSTGRES_URL!, 'toolcat_test', 5),
};

export const DATABASES: readonly TestDatabase[] = POSTGRES_URL ? [sqlite, postgres] : [sqlite];

/** Runs `define` once per backend; without PostgreSQL it says so with a visible pending test. */
export function forEachDatabase(title: string, define: (db: TestDatabase) => void): void {
  for (const db of DATABASES) describe(`${title} [${db.name}]`, () => define(db));
  if (!POSTGRES_URL) {
    describe(`${title} [postgres]`, () => {
      it('PostgreSQL suite not run: set TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres); .ci/run sets it');
    });
  }
}

/**
 * A migrated data source on a fresh database of `database` (SQLite with this process's BEGIN IMMEDIATE transactions,
 * as the app opens it), and how to close and drop it: the setup of the suites that talk to the store directly.
 */
export async function openMigrated(database: TestDatabase): Promise<{ ds: DataSource; db: DatabaseConfig; close(): Promise<void> }> {
  const created = await database.create();
  const ds = createDataSource(created.db);
  await ds.initialize();
  useImmediateTransactions(ds);
  await ds.runMigrations({ transaction: 'all' });
  return {
    ds,
    db: created.db,
    close: async () => {
      if (ds.isInitialized) await ds.destroy();
      await created.drop();
    },
  };
}
