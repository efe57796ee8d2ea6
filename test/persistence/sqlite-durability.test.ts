/**
 * SQLite's durability setting (issue 14): WAL with synchronous=NORMAL by default, so the two call-log writes of every
 * call do not each block the event loop on an fsync; TOOLCAT_SQLITE_SYNCHRONOUS=full restores an fsync per commit, and
 * any other value is refused at start-up with the allowed values. What each setting promises is in DatabaseConfig.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/config';
import { createDataSource } from '../../src/persistence/data-source';

describe('SQLite durability setting (issue 14)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolcat-sync-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const pragmasOf = async (env: Record<string, string>) => {
    const config = loadConfig({ TOOLCAT_SQLITE_PATH: join(dir, `${Object.values(env).join('-') || 'default'}.sqlite`), ...env });
    const ds = createDataSource(config.db);
    await ds.initialize();
    try {
      const [{ synchronous }] = (await ds.query('PRAGMA synchronous')) as Array<{ synchronous: number }>;
      const [{ journal_mode }] = (await ds.query('PRAGMA journal_mode')) as Array<{ journal_mode: string }>;
      return { synchronous, journal_mode };
    } finally {
      await ds.destroy();
    }
  };

  it('defaults to WAL with synchronous=NORMAL (1)', async () => {
    expect(await pragmasOf({})).to.deep.equal({ synchronous: 1, journal_mode: 'wal' });
  });

  it('TOOLCAT_SQLITE_SYNCHRONOUS=full gives synchronous=FULL (2), still WAL', async () => {
    expect(await pragmasOf({ TOOLCAT_SQLITE_SYNCHRONOUS: 'full' })).to.deep.equal({ synchronous: 2, journal_mode: 'wal' });
  });

  it('refuses any other value, naming the allowed ones', () => {
    expect(() => loadConfig({ TOOLCAT_SQLITE_SYNCHRONOUS: 'off' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/TOOLCAT_SQLITE_SYNCHRONOUS must be normal or full \(got "off"\)/);
  });
});
