/**
 * Shutdown while a sync is running: the server process of a session that sync opened ends with the service
 * (found when the call tests left hostile fixture children alive: a sync still listing when stop() ran kept a
 * session nobody stored and nobody closed).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { HOSTILE_BIN, hostileControl, until } from '../helpers/mcp-servers';
import { startHost } from '../helpers/test-host';

function processesWith(marker: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', marker]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

forEachDatabase('shutdown during a sync', (database) => {
  it('closing the service while a slow sync is listing (and then succeeds) ends that server process too', async function () {
    this.timeout(40000);
    const created = await database.create();
    const hostile = hostileControl();
    hostile.setMode('normal');
    const marker = `toolcat-shutdown-${randomUUID()}`;
    const limits = { connectTimeoutMs: 4000, requestTimeoutMs: 3000, syncTimeoutMs: 4000, maxPages: 10, maxTools: 100, maxMessageBytes: 1024 * 1024 };
    const host = await startHost(created.db, { syncLimits: limits });
    try {
      await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
        i: { name: 'slowlist', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN, marker], syncIntervalSeconds: 0, env: Object.entries({ ...hostile.env, HOSTILE_PAGE_DELAY_MS: '300' }).map(([n, value]) => ({ name: n, value })) },
      });
      const syncing = host.gql('mutation { syncSource(name: "slowlist") { status } }').catch(() => null);
      await until(async () => processesWith(marker).length > 0, 10000, 20);
      await host.close();
      await syncing;
      // Event-driven: the process is signalled on close; wait for it to be gone (bounded, so a leak fails).
      await until(async () => processesWith(marker).length === 0, 10000, 50).catch(() => undefined);
      expect(processesWith(marker), 'server processes left running').to.deep.equal([]);
    } finally {
      await host.close();
      for (const pid of processesWith(marker)) process.kill(pid, 'SIGKILL');
      await created.drop();
    }
  });
});
