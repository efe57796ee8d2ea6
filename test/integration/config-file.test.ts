/** Host extensions from a config file: loaded at start, all-or-nothing, errors name file, place and problem. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigFileError } from '../../src/config/config-file';
import { DATABASES, forEachDatabase } from '../helpers/databases';
import { expectStandardList } from '../helpers/schema-assert';
import { aTenantWithKey, aGrant, startHost } from '../helpers/test-host';

const dir = mkdtempSync(join(tmpdir(), 'toolcat-ext-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const GOOD = `extensions:
  - name: shell
    description: Runs a command
    safetyTier: exec
    replayPolicy: non-idempotent
    egress: restricted
    inputSchema: { type: object, properties: { cmd: { type: string } } }
  - name: clock
    description: Current time
    safetyTier: read
    replayPolicy: idempotent
    egress: none
    inputSchema: { type: object }
`;

forEachDatabase('config file: host extensions', (database) => {
  it('loads YAML and JSON files; exec is allowed for host extensions; a later file, forced and pruned at start, replaces the set', async () => {
    const { db, drop } = await database.create();
    try {
      let host = await startHost(db, { configFile: file('good.yaml', GOOD) });
      const t = await aTenantWithKey(host, 'ext');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
      const r = await host.get('/tools', t.key);
      expectStandardList(r.json());
      expect((r.json() as Array<{ toolId: string; safetyTier: string }>).map((d) => [d.toolId, d.safetyTier])).to.deep.equal([['ext.clock', 'read'], ['ext.shell', 'exec']]);
      await host.close();
      const json = JSON.stringify({ extensions: [{ name: 'clock', description: 'Now', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object' } }] });
      host = await startHost(db, { configFile: file('next.json', json), configApply: { force: true, prune: true } }, false);
      const after = (await host.get('/tools', t.key)).json() as Array<{ toolId: string; safetyTier: string }>;
      expect(after.map((d) => [d.toolId, d.safetyTier])).to.deep.equal([['ext.clock', 'pure']]);
      await host.close();
    } finally {
      await drop();
    }
  });

  it('a restart with the file it last applied writes nothing: no audit entry, no catalog change, the applied row kept', async () => {
    const { db, drop } = await database.create();
    try {
      const p = file('same.yaml', GOOD);
      let host = await startHost(db, { configFile: p });
      const state = async () => ({
        version: Number(((await host.app.dataSource.query('SELECT version FROM catalog_state WHERE id = 1')) as Array<{ version: number | string }>)[0].version),
        audits: ((await host.app.dataSource.query("SELECT id FROM audit_log WHERE target_type = 'config'")) as unknown[]).length,
        applied: (await host.app.dataSource.query('SELECT hash, applied_at, applied_by FROM config_application')) as unknown[],
      });
      const first = await state();
      expect(first.audits).to.equal(1);
      await host.close();
      host = await startHost(db, { configFile: p }, false);
      expect(await state()).to.deep.equal(first);
      await host.close();
      // A changed file (forced, as a deploy of a new file is) is still applied at start, audited once more, and bumps
      // the catalog.
      host = await startHost(db, { configFile: file('same.yaml', GOOD.replace('Current time', 'The time now')), configApply: { force: true, prune: false } }, false);
      const changed = await state();
      expect(changed.audits).to.equal(2);
      expect(changed.version).to.be.greaterThan(first.version);
      await host.close();
    } finally {
      await drop();
    }
  });

  const BAD: Array<[string, string, RegExp]> = [
    ['unknown field', GOOD.replace('egress: none', 'egress: none\n    color: red'), /at \/extensions\/1\/color: unknown field "color" \(allowed: name, .*inputSchema/],
    ['bad enum', GOOD.replace('safetyTier: read', 'safetyTier: safe'), /at \/extensions\/1\/safetyTier: must be one of "pure", "read", "write", "exec" \(got "safe"\)/],
    ['missing field', GOOD.replace('    description: Current time\n', ''), /at \/extensions\/1\/description: is required/],
    ['duplicate name', GOOD.replace('name: clock', 'name: shell'), /at \/extensions\/1\/name: duplicate name "shell"/],
    ['YAML syntax', 'extensions:\n  - name: [unclosed\n', /at line \d+/],
    ['invalid input schema', GOOD.replace('inputSchema: { type: object }', 'inputSchema: { type: object, properties: { a: { type: 7 } } }'), /at \/extensions\/1: .*not a valid JSON Schema/],
    ['credential in a const', GOOD.replace('inputSchema: { type: object }', 'inputSchema: { type: object, properties: { k: { const: "AKIAIOSFODNN7EXAMPLE" } } }'), /at \/extensions\/1: .*credential material/],
  ];
  for (const [what, text, re] of BAD) {
    it(`refuses to start on a bad file (${what}), naming file, place and problem, and changes nothing`, async () => {
      const { db, drop } = await database.create();
      try {
        const p = file(`bad-${what.replace(/\W/g, '-')}.yaml`, text);
        let err: unknown;
        try {
          await startHost(db, { configFile: p });
        } catch (e) {
          err = e;
        }
        expect(err).to.be.instanceOf(ConfigFileError);
        expect((err as Error).message).to.include(p);
        expect((err as Error).message).to.match(re);
        const host = await startHost(db, {}, false);
        expect(await host.app.dataSource.query('SELECT tool_id FROM tool')).to.deep.equal([]);
        await host.close();
      } finally {
        await drop();
      }
    });
  }

  it('a missing file is a clear error', async () => {
    const { db, drop } = await database.create();
    try {
      await startHost(db, { configFile: join(dir, 'nope.yaml') }).then(
        () => expect.fail('should not start'),
        (e: Error) => expect(e.message).to.match(/nope\.yaml: [\s\S]*cannot read the file \(ENOENT\)/),
      );
    } finally {
      await drop();
    }
  });
});

describe('config file: MCP servers', function () {
  this.timeout(30000);
  it('declares sources with fromEnv secrets; `toolcat sync` syncs them with progress on stderr', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const everything = join(__dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
    const cfg = file(
      'sources.yaml',
      `mcpServers:\n  - name: everything\n    transport: stdio\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(everything)}, stdio]\n    env: { SOME_TOKEN: { fromEnv: TOOLCAT_TEST_SECRET }, MODE: plain }\n    syncIntervalSeconds: 0\n`,
    );
    const env = { ...process.env, TOOLCAT_SQLITE_PATH: join(dir, 'sync.sqlite'), DATABASE_URL: '', LOG_LEVEL: 'warn', TOOLCAT_TEST_SECRET: 'from-the-environment-42' };
    const cli = join(__dirname, '..', '..', 'src', 'cli', 'main.js');
    const out = await promisify(execFile)(process.execPath, [cli, 'sync', '--config', cfg], { env });
    expect(out.stderr).to.match(/syncing everything … ok: \d+ tools served, 0 quarantined/);
    const missing = await promisify(execFile)(process.execPath, [cli, 'sync', 'nope'], { env }).then(() => null, (e: { stderr: string; code: number }) => e);
    expect(missing?.code, "not found: exit code 4").to.equal(4);
    expect(missing?.stderr).to.match(/no source named "nope"/);
    const unset = { ...env, TOOLCAT_TEST_SECRET: undefined };
    const failed = await promisify(execFile)(process.execPath, [cli, 'sync', 'everything', '--config', cfg], { env: unset }).then(() => null, (e: { stderr: string; code: number }) => e);
    expect(failed?.code).to.equal(1);
    expect(failed?.stderr).to.match(/failing: .*environment variable TOOLCAT_TEST_SECRET \(for SOME_TOKEN\) is not set/);
  });

  it('a source entry\'s errors name the entry\'s field (/mcpServers/2/command) and list allowed values', async () => {
    const { db, drop } = await DATABASES[0].create();
    try {
      const ok = '  - name: a\n    transport: stdio\n    command: x\n';
      const p = file('fields.yaml', `mcpServers:\n${ok}${ok.replace('name: a', 'name: b')}  - name: c\n    transport: stdio\n    driftPolicy: sometimes\n`);
      const err = await startHost(db, { configFile: p }).then(() => null, (e: Error) => e);
      expect(err?.message).to.match(/at \/mcpServers\/2\/driftPolicy: must be one of "withhold", "keep-serving" \(got "sometimes"\)/);
      const p2 = file('fields2.yaml', `mcpServers:\n${ok}${ok.replace('name: a', 'name: b')}  - name: c\n    transport: stdio\n`);
      const err2 = await startHost(db, { configFile: p2 }).then(() => null, (e: Error) => e);
      expect(err2?.message).to.match(/at \/mcpServers\/2\/command: stdio sources need a command/);
    } finally {
      await drop();
    }
  });

  it('a source scoped to an unknown tenant is a config error naming the place', async () => {
    const { db, drop } = await DATABASES[0].create();
    try {
      const p = file('scoped.yaml', 'mcpServers:\n  - name: s\n    transport: stdio\n    command: x\n    tenant: ghost\n');
      await startHost(db, { configFile: p }).then(
        () => expect.fail('should not start'),
        (e: Error) => expect(e.message).to.match(/at \/mcpServers\/0\/tenant: no tenant named "ghost"/),
      );
    } finally {
      await drop();
    }
  });
});
