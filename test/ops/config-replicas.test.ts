/**
 * Issue 19: replicas on one PostgreSQL database started with different config files do not fight. The first
 * applies its file; a replica with another file does not apply it (says so, and serves what the database has),
 * so a classification made through GraphQL and the first file's tools survive; forced, it applies without
 * removing anything unless pruned.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { DATABASES } from '../helpers/databases';
import { type Replica, CLI, gqlAt, run, startReplica } from '../helpers/processes';

const postgres = DATABASES.find((d) => d.name === 'postgres');

describe('replicas with different config files on one PostgreSQL database (issue 19)', function () {
  this.timeout(120000);
  if (!postgres) {
    it('not run: set TEST_POSTGRES_URL (.ci/run sets it)');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-cfg-replicas-'));
  const write = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };
  const ext = (name: string) => `  - name: ${name}\n    description: ${name}\n    safetyTier: read\n    replayPolicy: idempotent\n    egress: none\n    inputSchema: { type: object }\n`;
  const fileA = write('a.yaml', `extensions:\n${ext('alpha')}${ext('shared')}`);
  const fileB = write('b.yaml', `extensions:\n${ext('beta')}`);
  let drop: () => Promise<void>;
  let env: Record<string, string>;
  const replicas: Replica[] = [];
  let admin: string;
  let agent: string;

  before(async () => {
    const created = await postgres.create();
    drop = created.drop;
    env = { DATABASE_URL: (created.db as { url: string }).url, LOG_LEVEL: 'warn' };
    const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    await cli('migrate');
    await cli('tenants', 'create', 'ops');
    await cli('grants', 'create', '--tenant', 'ops', '--pattern', '*');
    admin = (await cli('keys', 'create', '--tenant', 'ops', '--admin', '--name', 'admin')).stdout.trim();
    agent = (await cli('keys', 'create', '--tenant', 'ops', '--name', 'agent')).stdout.trim();
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await drop?.();
  });

  const served = async (r: Replica) => {
    const res = await fetch(`${r.url}/tools`, { headers: { authorization: `Bearer ${agent}` } });
    return ((await res.json()) as Array<{ toolId: string; safetyTier: string }>).map((d) => `${d.toolId}:${d.safetyTier}`).sort();
  };

  it('the second file is not applied (clear message); the first file\'s tools and an API classification survive; forced, nothing is removed', async () => {
    const a = await startReplica({ ...env, LOG_LEVEL: 'info' }, ['--config', fileA]);
    replicas.push(a);
    expect(await served(a)).to.deep.equal(['ext.alpha:read', 'ext.shared:read']);
    await gqlAt(a.url, admin, 'mutation { classifyTool(input: { toolId: "ext.shared", safetyTier: "write", replayPolicy: "non-idempotent", egress: "open" }) { toolId } }');

    const b = await startReplica({ ...env, LOG_LEVEL: 'info' }, ['--config', fileB]);
    replicas.push(b);
    expect(b.output()).to.match(/b\.yaml \(sha256 [0-9a-f]{12}\) differs from the config file this database has applied \(.*a\.yaml, sha256 [0-9a-f]{12}, at .* by start-up on .*\); not applied/);
    for (const r of [a, b]) expect(await served(r)).to.deep.equal(['ext.alpha:read', 'ext.shared:write']);

    // Replica A restarting with its (same) file keeps the API's classification.
    await a.stop();
    replicas.shift();
    const a2 = await startReplica({ ...env, LOG_LEVEL: 'info' }, ['--config', fileA]);
    replicas.push(a2);
    // The file this database already applied: nothing written (f9a3d6b), the drift still reported.
    expect(a2.output()).to.match(/config file: already applied, unchanged; nothing written/);
    expect(a2.output()).to.match(/! drift extension ext\.shared/);
    expect(await served(a2)).to.deep.equal(['ext.alpha:read', 'ext.shared:write']);

    // Told to (--config-force), B's file is applied: it adds, and removes nothing without --config-prune.
    const b2 = await startReplica({ ...env, LOG_LEVEL: 'info' }, ['--config', fileB, '--config-force']);
    replicas.push(b2);
    expect(await served(b2)).to.deep.equal(['ext.alpha:read', 'ext.beta:read', 'ext.shared:write']);
    expect(b2.output()).to.match(/what it no longer declares is kept/);
  });
});
