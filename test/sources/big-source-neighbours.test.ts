/**
 * Issue 12 defect 1: one big source froze everything. The ingest gate ran on the event loop and the snapshot was
 * written in one long transaction, so while a big listing was applied another tenant's GET /tools stalled, a GraphQL
 * mutation waited for the end of the sync, and on SQLite an operator's `toolcat tenants create` in another process
 * failed with `database is locked`. Here a listing of heavy tools (~16 KB descriptions, 40 properties each) is
 * applied while the neighbours work; what is asserted is order, never time: their requests and writes complete
 * (successfully) before the sync does.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { expect } from 'chai';
import { heavyTools } from '../fixtures/heavy-tools';
import { forEachDatabase } from '../helpers/databases';
import { CLI } from '../helpers/processes';
import { aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

const TOOLS = 1500;
/** CLI runs are whole processes (1-2 s of CPU each on a 2-core host): a few are enough to overlap the sync. */
const CLI_RUNS = 3;

forEachDatabase('issue 12 defect 1: one big source freezes everything', (database) => {
  const suite = hostPerSuite(database, { startSources: false });

  it('while a big listing is applied, another tenant reads and writes, and (SQLite) another process writes, all before the sync ends', async function () {
    this.timeout(90_000);
    const { host } = suite;
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name: 'big', transport: 'stdio', command: 'not-run', enabled: false, syncIntervalSeconds: 0 } });
    for (const name of ['calc', 'clock', 'notes']) await anExtension(host, { name, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
    const neighbour = await aTenantWithKey(host, 'neighbour');
    await aGrant(host, { tenantId: neighbour.tenantId, toolPattern: 'ext.*' });
    expect((await host.get('/tools', neighbour.key)).status).to.equal(200);
    const listing = heavyTools(TOOLS);

    let syncDone = false;
    const sync = host.app.services.snapshots.apply('big', listing).finally(() => {
      syncDone = true;
    });

    // A steady reader: each GET /tools of the neighbour, one after the other, noting whether the sync was still running.
    const reads: Array<{ status: number; during: boolean }> = [];
    const reader = (async () => {
      while (!syncDone) {
        const r = await host.get('/tools', neighbour.key);
        reads.push({ status: r.status, during: !syncDone });
        await new Promise((res) => setTimeout(res, 25)); // paced under the neighbour's request budget (100/s)
      }
    })();

    // A writer of another tenant, through GraphQL, once the reader has been answered during the sync.
    const writes: Array<{ errors: unknown; during: boolean }> = [];
    const writer = (async () => {
      for (let i = 0; !syncDone; i++) {
        if (!reads.some((r) => r.during)) {
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        const r = await host.gql('mutation($n: String!) { createTenant(name: $n) { id } }', { n: `gql-${i}` });
        writes.push({ errors: r.errors, during: !syncDone });
      }
    })();

    // On SQLite: an operator's CLI in another process, on the same file, again and again while the sync runs.
    const cliRuns: Array<{ code: number | null; stderr: string; during: boolean }> = [];
    const cli = (async () => {
      if (database.name !== 'sqlite') return;
      const path = (host.app.dataSource.options as { database: string }).database;
      for (let i = 0; i < CLI_RUNS && !syncDone; i++) cliRuns.push(await runCli(['tenants', 'create', `cli-${i}`], { TOOLCAT_SQLITE_PATH: path, DATABASE_URL: '', LOG_LEVEL: 'warn' }, () => syncDone));
    })();

    const out = await sync;
    await Promise.all([reader, writer, cli]);

    expect(out.served, 'the big listing is served whole').to.equal(TOOLS);
    expect(reads.every((r) => r.status === 200), JSON.stringify(reads.filter((r) => r.status !== 200).slice(0, 3))).to.equal(true);
    expect(reads.filter((r) => r.during).length, 'neighbour reads answered while the sync was running').to.be.at.least(5);
    expect(writes.filter((w) => w.during).length, 'GraphQL writes of another tenant completed while the sync was running').to.be.at.least(1);
    expect(writes.filter((w) => w.errors).map((w) => w.errors), 'no GraphQL write failed').to.deep.equal([]);
    if (database.name === 'sqlite') {
      expect(cliRuns.filter((c) => c.during).length, 'CLI writes (another process) completed while the sync was running').to.be.at.least(1);
      expect(cliRuns.filter((c) => c.code !== 0).map((c) => c.stderr.slice(0, 300)), 'no CLI write failed').to.deep.equal([]);
    }
    const served = await host.gqlOk<{ sources: Array<{ name: string; toolCount: number }> }>('{ sources { name toolCount } }');
    expect(served.sources.find((s) => s.name === 'big')?.toolCount).to.equal(TOOLS);
  });
});

/** One CLI run; `during` says whether it exited while the sync was still running. */
function runCli(args: string[], env: Record<string, string>, syncDone: () => boolean): Promise<{ code: number | null; stderr: string; during: boolean }> {
  return new Promise((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += String(c)));
    child.stdout!.resume();
    child.once('exit', (code) => resolve({ code, stderr, during: !syncDone() }));
  });
}
