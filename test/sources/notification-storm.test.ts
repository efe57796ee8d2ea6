/**
 * Issue 12 defect 4: a server flooding notifications/tools/list_changed held toolcat at 100% CPU and slowed every
 * other tenant's reads. Syncs it triggers are coalesced with a minimum interval, notifications past a per-second
 * cap are dropped before they are parsed, and a source that keeps flooding is throttled and shown so to admins.
 * Asserted on counts (syncs run, notifications received and dropped), never on time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Config } from '../../src/config/config';
import { forEachDatabase } from '../helpers/databases';
import { HOSTILE_BIN, hostileControl, until } from '../helpers/mcp-servers';
import { aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

const BURSTS = 20;
const BURST = 1000;
const TOTAL = BURSTS * BURST;

forEachDatabase('issue 12 defect 4: notification floods', (database) => {
  // Cast: these overrides name the issue-12 settings; a build without them ignores them (and the test fails).
  const suite = hostPerSuite(database, {
    syncPolicy: { maxConcurrentSyncs: 4, maxQueuedSyncs: 16, minSyncIntervalMs: 60_000, maxNotificationsPerSecond: 20, throttleMs: 60_000 },
  } as unknown as Partial<Config>);

  it('issue 12 defect 4: a flooding server triggers at most one sync per minimum interval, its excess notifications are dropped, it is marked throttled, other tenants read on', async function () {
    this.timeout(90000);
    const host = suite.host;
    const t = await aTenantWithKey(host, 'neighbour');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    await anExtension(host, { name: 'quiet', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
    const control = hostileControl();
    control.setMode('storm');
    const countFile = `${control.modeFile}.count`;
    // Bursts with pauses longer than the old 200 ms debounce: each pause used to fire one more sync.
    const env = { ...control.env, HOSTILE_STORM_BURST: String(BURST), HOSTILE_STORM_BURSTS: String(BURSTS), HOSTILE_STORM_GAP_MS: '300', HOSTILE_STORM_COUNT_FILE: countFile };
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', {
      i: { name: 'storm', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0, env: Object.entries(env).map(([name, value]) => ({ name, value })) },
    });
    // Opens the live session; the server starts flooding once it has answered this sync's tools/list.
    const first = await host.gqlOk<{ syncSource: { status: string; error: string | null } }>('mutation { syncSource(name: "storm") { status error } }');
    expect(first.syncSource.status, first.syncSource.error ?? '').to.equal('degraded');

    let reads = 0;
    const written = () => (existsSync(countFile) ? Number(readFileSync(countFile, 'utf8')) : 0);
    await until(async () => {
      const r = await host.get('/tools', t.key);
      expect(r.status).to.equal(200);
      expect((r.json() as Array<{ toolId: string }>).map((d) => d.toolId)).to.deep.equal(['ext.quiet']);
      reads++;
      return written() >= TOTAL;
    }, 60000, 20);
    expect(reads).to.be.greaterThan(0);

    const metric = (text: string, re: RegExp) => [...text.matchAll(re)].reduce((a, m) => a + Number(m[1]), 0);
    const syncs = metric((await host.get('/metrics')).text, /^toolcat_source_sync_total\{source="storm",status="[a-z-]+"\} (\d+)$/gm);
    expect(syncs, 'the sync that opened the session, and at most one per minimum interval (60 s) after it').to.be.at.most(2);

    type S = { sources: Array<{ name: string; throttledUntil: string | null; throttleReason: string | null; notificationsReceived: number; notificationsDropped: number }> };
    const storm = async () => (await host.gqlOk<S>('{ sources { name throttledUntil throttleReason notificationsReceived notificationsDropped } }')).sources.find((s) => s.name === 'storm')!;
    // Everything the server wrote was read (the pipe's last buffer may still be on its way). The fixture may also
    // have sent one list_changed at start (fs.watchFile reports a missing tools file once).
    await until(async () => (await storm()).notificationsReceived >= TOTAL, 30000);
    const s = await storm();
    expect(s.notificationsDropped, 'at most the per-second cap is parsed; the rest is dropped unparsed').to.be.at.least(TOTAL - 1000);
    expect(s.throttledUntil, 'a source that keeps flooding is marked').to.be.a('string');
    expect(s.throttleReason).to.match(/notifications/);
    const text = (await host.get('/metrics')).text;
    expect(metric(text, /^toolcat_source_notifications_total\{source="storm",outcome="dropped"\} (\d+)$/gm)).to.equal(s.notificationsDropped);
    expect(text).to.match(/^toolcat_source_throttled\{source="storm"\} 1$/m);
    expect(metric(text, /^toolcat_source_sync_total\{source="storm",status="[a-z-]+"\} (\d+)$/gm), 'no sync came of the flood after it ended either').to.equal(syncs);
    await host.gqlOk('mutation { removeSource(name: "storm") }');
  });
});
