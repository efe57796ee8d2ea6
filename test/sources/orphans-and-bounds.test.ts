/**
 * Issue 12 defect 6: after `kill -9` of a replica its stdio MCP servers kept running (their own process group,
 * nobody left to end it); the connect timeout was hard-coded; a long sync showed nothing until it ended. Here:
 * a server that ignores SIGTERM and the end of its stdin, and its own child, die with a killed toolcat; every sync
 * bound is read from the environment and validated; progress (pages, tools read) shows in GraphQL and the CLI.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { type Config, ConfigError, loadConfig } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { isRunning, killIfRunning } from '../helpers/liveness';
import { HOSTILE_BIN, hostileControl, until } from '../helpers/mcp-servers';
import { CLI, startReplica } from '../helpers/processes';
import { hostPerSuite, startHost } from '../helpers/test-host';

describe('issue 12 defect 6: orphans', function () {
  this.timeout(60000);
  const left: number[] = [];
  after(() => killIfRunning(left));

  it('issue 12 defect 6: a stdio server that ignores SIGTERM and stdin EOF, and its child, die when toolcat is killed with SIGKILL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcat-orphans-'));
    const pidFile = join(dir, 'pids');
    const config = join(dir, 'toolcat.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: [{ name: 'immortal', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: { HOSTILE_IMMORTAL: '1', HOSTILE_PID_FILE: pidFile }, syncIntervalSeconds: 0 }],
      }),
    );
    const replica = await startReplica({ TOOLCAT_SQLITE_PATH: join(dir, 'catalog.sqlite'), DATABASE_URL: '', LOG_LEVEL: 'info' }, ['--config', config]);
    // The sync at start spawns the server, which starts its child and writes both pids.
    await until(async () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').split(' ').length === 2, 20000);
    const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    left.push(...pids);
    await until(async () => /source synced/.test(replica.output()), 20000); // its session stays open: the server lives on
    expect(pids.map(isRunning)).to.deep.equal([true, true]);

    expect(await replica.stop('SIGKILL')).to.equal(null);
    await until(async () => pids.every((p) => !isRunning(p)), 15000).catch(() => undefined);
    expect(pids.map(isRunning), 'server and grandchild after toolcat was killed').to.deep.equal([false, false]);
  });
});

describe('issue 12 defect 6: sync bounds from the environment', () => {
  it('issue 12 defect 6: connect, request, whole-sync, pages, concurrency, queue, interval and notification bounds are read and validated', () => {
    const c = loadConfig({
      TOOLCAT_SYNC_CONNECT_TIMEOUT_MS: '7000', TOOLCAT_SYNC_REQUEST_TIMEOUT_MS: '3000', TOOLCAT_SYNC_TIMEOUT_MS: '90000', TOOLCAT_SYNC_MAX_PAGES: '40',
      TOOLCAT_SYNC_MAX_CONCURRENT: '3', TOOLCAT_SYNC_MAX_QUEUED: '9', TOOLCAT_SYNC_MIN_INTERVAL_MS: '2500', TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND: '5',
      TOOLCAT_SYNC_THROTTLE_MS: '120000',
    }) as Config & { syncPolicy?: unknown };
    expect(c.syncLimits).to.include({ connectTimeoutMs: 7000, requestTimeoutMs: 3000, syncTimeoutMs: 90000, maxPages: 40 });
    expect(c.syncPolicy).to.deep.equal({ maxConcurrentSyncs: 3, maxQueuedSyncs: 9, minSyncIntervalMs: 2500, maxNotificationsPerSecond: 5, throttleMs: 120000 });
    let err: unknown = null;
    try {
      loadConfig({ TOOLCAT_SYNC_CONNECT_TIMEOUT_MS: '0', TOOLCAT_SYNC_REQUEST_TIMEOUT_MS: 'soon', TOOLCAT_SYNC_MAX_PAGES: '-1', TOOLCAT_SYNC_MAX_CONCURRENT: '0', TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND: '1.5' });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    for (const v of ['TOOLCAT_SYNC_CONNECT_TIMEOUT_MS', 'TOOLCAT_SYNC_REQUEST_TIMEOUT_MS', 'TOOLCAT_SYNC_MAX_PAGES', 'TOOLCAT_SYNC_MAX_CONCURRENT', 'TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND']) {
      expect(problems).to.match(new RegExp(`${v} must be an integer`));
    }
  });

  it('issue 12 defect 6: every sync bound is documented in README\'s configuration table and ENV_DOCS', async () => {
    const { ENV_DOCS } = await import('../../src/config/config');
    const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('## Configuration'));
    for (const v of ['TOOLCAT_SYNC_CONNECT_TIMEOUT_MS', 'TOOLCAT_SYNC_REQUEST_TIMEOUT_MS', 'TOOLCAT_SYNC_TIMEOUT_MS', 'TOOLCAT_SYNC_MAX_PAGES', 'TOOLCAT_SYNC_MAX_CONCURRENT', 'TOOLCAT_SYNC_MAX_QUEUED', 'TOOLCAT_SYNC_MIN_INTERVAL_MS', 'TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND', 'TOOLCAT_SYNC_THROTTLE_MS']) {
      expect(ENV_DOCS, v).to.have.property(v);
      expect(table, v).to.include(v);
    }
  });
});

forEachDatabase('issue 12 defect 6: sync progress', (database) => {
  const suite = hostPerSuite(database);

  it('issue 12 defect 6: while a slow paginating server is read, sources { syncProgress } shows the pages and tools read so far; null once done', async function () {
    this.timeout(30000);
    const control = hostileControl();
    const env = { ...control.env, HOSTILE_PAGE_DELAY_MS: '400' }; // 7 tools, 2 per page: 4 pages
    await suite.host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
      i: { name: 'slow', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0, env: Object.entries(env).map(([name, value]) => ({ name, value })) },
    });
    const running = suite.host.gqlOk<{ syncSource: { status: string } }>('mutation { syncSource(name: "slow") { status } }');
    type P = { sources: Array<{ name: string; syncProgress: { pages: number; toolsRead: number; startedAt: string } | null }> };
    const progress = async () => (await suite.host.gqlOk<P>('{ sources { name syncProgress { pages toolsRead startedAt } } }')).sources.find((s) => s.name === 'slow')!.syncProgress;
    const seen = await until(async () => {
      const p = await progress();
      return p && p.pages >= 2 ? p : null;
    }, 20000, 30);
    expect(seen.toolsRead).to.equal(Math.min(seen.pages * 2, 7));
    expect(seen.startedAt).to.be.a('string');
    expect((await running).syncSource.status).to.equal('degraded');
    expect(await progress()).to.equal(null);
  });

  if (database.name === 'postgres') {
    it('issue 12 defect 6: another replica shows the progress the syncing replica records', async function () {
      this.timeout(30000);
      const other = await startHost(suite.db, { startSources: false }, false);
      try {
        const running = suite.host.gqlOk<{ syncSource: { status: string } }>('mutation { syncSource(name: "slow") { status } }');
        type P = { sources: Array<{ name: string; syncProgress: { pages: number; toolsRead: number } | null }> };
        const seen = await until(async () => {
          const p = (await other.gqlOk<P>('{ sources { name syncProgress { pages toolsRead } } }', {}, suite.host.adminKey)).sources.find((s) => s.name === 'slow')!.syncProgress;
          return p && p.pages >= 1 ? p : null;
        }, 20000, 30);
        expect(seen.toolsRead).to.equal(Math.min(seen.pages * 2, 7));
        expect((await running).syncSource.status).to.equal('degraded');
      } finally {
        await other.close();
      }
    });
  }
});

describe('issue 12 defect 6: toolcat sync prints progress', function () {
  this.timeout(60000);
  it('issue 12 defect 6: `toolcat sync` prints the pages and tools read while a slow server is being read, then the result', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolcat-progress-'));
    const control = hostileControl();
    const config = join(dir, 'toolcat.json');
    writeFileSync(config, JSON.stringify({ mcpServers: [{ name: 'slow', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: { ...control.env, HOSTILE_PAGE_DELAY_MS: '700' }, syncIntervalSeconds: 0 }] }));
    const env = { ...process.env, TOOLCAT_SQLITE_PATH: join(dir, 'catalog.sqlite'), DATABASE_URL: '', LOG_LEVEL: 'warn' };
    const out = await promisify(execFile)(process.execPath, [CLI, 'sync', 'slow', '--config', config], { env });
    expect(out.stderr).to.match(/^syncing slow … page 1, 2 tools read$/m);
    expect(out.stderr).to.match(/^syncing slow … page 2, 4 tools read$/m);
    expect(out.stderr).to.match(/^syncing slow … page 3, 6 tools read$/m);
    expect(out.stderr).to.match(/^syncing slow … degraded: 5 tools served, 2 quarantined/m);
  });
});
