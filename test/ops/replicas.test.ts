/**
 * Several replicas on one PostgreSQL database (issue 7): a change made through one replica is served by the
 * other as soon as PostgreSQL notifies it (LISTEN/NOTIFY; the version poll, the backstop, is switched off here, so
 * only the notification can have told it), with the same bytes and ETag. No wall clock is asserted (issue 13): the
 * wait loops only bound how long a broken notification path takes to fail the test.
 */
import { expect } from 'chai';
import { DATABASES } from '../helpers/databases';
import { type Replica, CLI, gqlAt, run, startReplica } from '../helpers/processes';

const postgres = DATABASES.find((d) => d.name === 'postgres');

describe('replicas on one PostgreSQL database', function () {
  this.timeout(90000);
  if (!postgres) {
    it('not run: set TEST_POSTGRES_URL (.ci/run sets it)');
    return;
  }
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  const replicas: Replica[] = [];
  let admin: string;
  let agent: string;

  before(async () => {
    const created = await postgres.create();
    drop = created.drop;
    env = { DATABASE_URL: (created.db as { url: string }).url, LOG_LEVEL: 'warn', TOOLCAT_VERSION_POLL_MS: '0' };
    await run(process.execPath, [CLI, 'migrate'], { env: { ...process.env, ...env } });
    await run(process.execPath, [CLI, 'tenants', 'create', 'ops'], { env: { ...process.env, ...env } });
    await run(process.execPath, [CLI, 'grants', 'create', '--tenant', 'ops', '--pattern', '*'], { env: { ...process.env, ...env } });
    admin = (await run(process.execPath, [CLI, 'keys', 'create', '--tenant', 'ops', '--admin'], { env: { ...process.env, ...env } })).stdout.trim();
    agent = (await run(process.execPath, [CLI, 'keys', 'create', '--tenant', 'ops'], { env: { ...process.env, ...env } })).stdout.trim();
    // TOOLCAT_VERSION_POLL_MS=0: no poll, so what the replicas learn below they learn by notification.
    replicas.push(await startReplica({ ...env, LOG_LEVEL: 'info' }), await startReplica({ ...env, LOG_LEVEL: 'info' }));
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await drop?.();
  });

  const get = async (r: Replica, path: string) => {
    const res = await fetch(r.url + path, { headers: { authorization: `Bearer ${agent}` } });
    return { status: res.status, etag: res.headers.get('etag'), text: await res.text() };
  };

  it('a classification changed through one replica is served by the other on notification, byte-identical', async () => {
    const [a, b] = replicas;
    await gqlAt(a.url, admin, 'mutation { upsertHostExtension(input: { name: "shared", inputSchema: { type: "object" }, safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
    const first = await get(b, '/tools/ext.shared'); // warms b's cache
    expect(first.status).to.equal(200);
    await gqlAt(a.url, admin, 'mutation { classifyTool(input: { toolId: "ext.shared", safetyTier: "write", replayPolicy: "non-idempotent", egress: "open" }) { toolId } }');
    const changedAt = Date.now();
    let seen = first;
    while (Date.now() - changedAt < 10_000) {
      seen = await get(b, '/tools/ext.shared');
      if (seen.text.includes('"safetyTier":"write"')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const lag = Date.now() - changedAt;
    expect(seen.text, 'replica b still serves the old classification: no notification reached it').to.include('"safetyTier":"write"');
    const [la, lb] = [await get(a, '/tools'), await get(b, '/tools')];
    expect(lb.text).to.equal(la.text);
    expect(lb.etag).to.equal(la.etag);
    console.log(`      (change visible on the other replica after ${lag} ms)`);
  });

  it('a revoked key stops working on every replica on notification', async () => {
    const [a, b] = replicas;
    const created = await gqlAt<{ createPrincipal: { apiKey: string; principal: { id: string } } }>(
      a.url, admin, 'mutation($t: ID!) { createPrincipal(input: { tenantId: $t, name: "temp" }) { apiKey principal { id } } }',
      { t: (await gqlAt<{ me: { tenantId: string } }>(a.url, admin, '{ me { tenantId } }')).me.tenantId },
    );
    const key = created.createPrincipal.apiKey;
    expect((await fetch(`${b.url}/tools`, { headers: { authorization: `Bearer ${key}` } })).status).to.equal(200);
    await gqlAt(a.url, admin, 'mutation($id: ID!) { revokePrincipal(id: $id) { id } }', { id: created.createPrincipal.principal.id });
    const t0 = Date.now();
    let status = 200;
    while (Date.now() - t0 < 10_000 && status === 200) {
      status = (await fetch(`${b.url}/tools`, { headers: { authorization: `Bearer ${key}` } })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    expect(status, 'the key still works on replica b: no notification reached it').to.equal(401);
    console.log(`      (revocation effective on the other replica after ${Date.now() - t0} ms)`);
  });
});

