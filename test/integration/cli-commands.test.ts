/**
 * Issue 19 item 2: every CLI command run as a real process against a temp SQLite database: human and --json
 * output, documented exit codes (exit-codes.ts), one-line errors without stack traces unless --debug,
 * conflicting flags and duplicate principal names refused, and config plan/apply with ownership.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const execFileP = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'src', 'cli', 'main.js');

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('toolcat CLI commands (issue 19)', function () {
  this.timeout(120000);
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-cmds-'));
  const env = { ...process.env, TOOLCAT_SQLITE_PATH: join(dir, 'cmds.sqlite'), LOG_LEVEL: 'warn', DATABASE_URL: '' };
  const cli = (...args: string[]): Promise<Ran> =>
    execFileP(process.execPath, [CLI, ...args], { env }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r;
  };
  const jsonOf = async <T>(...args: string[]) => JSON.parse((await ok(...args, '--json')).stdout) as T;
  const oneLineError = (r: Ran, code: number, re: RegExp) => {
    expect(r.code, r.stderr).to.equal(code);
    expect(r.stdout).to.equal('');
    expect(r.stderr).to.match(re);
    expect(r.stderr.trim().split('\n'), 'one line, no stack trace').to.have.length(1);
  };
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  before(async () => {
    await ok('migrate');
  });

  it('--version prints the package version; --help lists every command', async () => {
    const { version } = require('../../../package.json') as { version: string };
    expect((await ok('--version')).stdout).to.equal(`${version}\n`);
    const help = (await ok('--help')).stdout;
    for (const c of ['serve', 'migrate', 'tenants', 'keys', 'grants', 'sources', 'tools', 'audit', 'config']) expect(help).to.match(new RegExp(`\\n  ${c}\\b`));
    expect((await ok('config', '--help')).stdout).to.match(/plan \[options\] <file>[\s\S]*apply \[options\] <file>/);
  });

  it('tenants list|create|delete: human and --json, NOT_FOUND and CONFLICT exit codes', async () => {
    expect((await ok('tenants', 'create', 'alpha')).stdout).to.match(/^[0-9a-f-]{36}\n$/);
    const beta = await jsonOf<{ id: string; name: string }>('tenants', 'create', 'beta');
    expect(beta.name).to.equal('beta');
    const human = (await ok('tenants', 'list')).stdout.split('\n');
    expect(human[0]).to.match(/^ID\s+NAME\s+CREATEDAT$/);
    expect(human.some((l) => /\salpha\s/.test(l))).to.equal(true);
    expect((await jsonOf<Array<{ name: string }>>('tenants', 'list')).map((t) => t.name)).to.include.members(['alpha', 'beta']);
    oneLineError(await cli('tenants', 'create', 'alpha'), 5, /^toolcat: A tenant named "alpha" already exists\.\n$/);
    expect(await jsonOf('tenants', 'delete', 'beta')).to.deep.equal({ id: beta.id, name: 'beta', deleted: true });
    oneLineError(await cli('tenants', 'delete', 'beta'), 4, /^toolcat: no tenant named "beta"\n$/);
  });

  it('keys list|create|revoke: conflicting flags (2), duplicate names (5), the key printed once, revoke by name or id', async () => {
    oneLineError(await cli('keys', 'create', '--tenant', 'alpha', '--admin', '--role', 'agent'), 2, /--admin \(host-admin\) conflicts with --role agent/);
    const bad = await cli('keys', 'create', '--tenant', 'alpha', '--role', 'root');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/Allowed choices are agent, tenant-admin, host-admin/);
    expect((await ok('keys', 'create', '--tenant', 'alpha', '--name', 'bot')).stdout).to.match(/^tc_[A-Za-z0-9_-]{43}\n$/);
    oneLineError(await cli('keys', 'create', '--tenant', 'alpha', '--name', 'bot'), 5, /already has an active principal named "bot"/);
    const admin = await jsonOf<{ id: string; role: string; apiKey: string }>('keys', 'create', '--tenant', 'alpha', '--name', 'ops', '--admin');
    expect(admin.role).to.equal('host-admin');
    expect(admin.apiKey).to.match(/^tc_/);
    const listed = await jsonOf<Array<{ name: string; keyPrefix: string; apiKey?: string }>>('keys', 'list', '--tenant', 'alpha');
    expect(listed.map((k) => k.name)).to.deep.equal(['bot', 'ops']);
    expect(JSON.stringify(listed), 'keys are never listed').not.to.include(admin.apiKey);
    expect((await ok('keys', 'list', '--tenant', 'alpha')).stdout).to.match(/^ID\s+NAME\s+ROLE\s+KEYPREFIX/);
    oneLineError(await cli('keys', 'revoke', admin.id, '--name', 'ops'), 2, /give a principal id, or --tenant and --name, not both/);
    expect((await ok('keys', 'revoke', '--tenant', 'alpha', '--name', 'bot')).stderr).to.match(/^revoked bot \(/);
    expect((await jsonOf<{ id: string; revokedAt: string }>('keys', 'revoke', admin.id)).revokedAt).to.match(/^\d{4}-/);
    expect(await jsonOf('keys', 'list', '--tenant', 'alpha')).to.deep.equal([]);
    expect((await jsonOf<unknown[]>('keys', 'list', '--tenant', 'alpha', '--all')).length).to.equal(2);
    // A revoked name may be used again.
    await ok('keys', 'create', '--tenant', 'alpha', '--name', 'bot');
  });

  it('grants list|create|delete: human and --json, bad values are usage errors (2)', async () => {
    const id = (await ok('grants', 'create', '--tenant', 'alpha', '--pattern', 'ext.*', '--max-tier', 'write')).stdout.trim();
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const g = await jsonOf<{ id: string; pattern: string }>('grants', 'create', '--tenant', 'alpha', '--pattern', 'mcp.*', '--source', 'mcp');
    const listed = await jsonOf<Array<{ id: string; pattern: string; maxTier: string | null }>>('grants', 'list', '--tenant', 'alpha');
    expect(listed.map((x) => [x.pattern, x.maxTier]).sort()).to.deep.equal([['ext.*', 'write'], ['mcp.*', null]]);
    expect((await ok('grants', 'list', '--tenant', 'alpha')).stdout).to.match(/^ID\s+PATTERN\s+SOURCE\s+MAXTIER/);
    expect((await cli('grants', 'create', '--tenant', 'alpha', '--pattern', '*', '--max-tier', 'huge')).code).to.equal(2);
    oneLineError(await cli('grants', 'create', '--tenant', 'alpha', '--pattern', '*', '--principal', 'x', '--group', 'y'), 2, /--principal and --group conflict/);
    expect(await jsonOf('grants', 'delete', g.id)).to.deep.equal({ id: g.id, deleted: true });
    expect((await cli('grants', 'delete', g.id)).code).to.equal(4);
  });

  it('config plan|apply, tools list|classify|unclassify, sources list|remove, audit: through the services, owners shown, audited as the operator', async () => {
    const cfg = file(
      'ops.yaml',
      'extensions:\n  - name: clock\n    description: Now\n    safetyTier: read\n    replayPolicy: idempotent\n    egress: none\n    inputSchema: { type: object }\n' +
        'mcpServers:\n  - name: files\n    transport: stdio\n    command: /bin/true\n    syncIntervalSeconds: 0\n    enabled: false\n',
    );
    const plan = (await ok('config', 'plan', cfg)).stdout;
    expect(plan).to.include('database: no config file applied yet');
    expect(plan).to.include('  + add extension ext.clock (/extensions/0)');
    expect(plan).to.include('  + add mcp-server files (/mcpServers/0)');
    expect(plan).to.match(/2 to add, 0 to change, 0 to remove, 0 unchanged, 0 drift, 0 conflicts\n$/);
    const planJson = await jsonOf<{ add: Array<{ id: string }>; hash: string }>('config', 'plan', cfg);
    expect(planJson.add.map((i) => i.id)).to.deep.equal(['ext.clock', 'files']);
    expect((await ok('config', 'apply', cfg)).stdout).to.match(/\napplied\n$/);
    expect((await ok('config', 'plan', cfg)).stdout).to.match(/database: this file is applied[\s\S]*0 to add, 0 to change, 0 to remove, 2 unchanged/);
    // The same file again: nothing to do, and nothing is written (no second audit entry below).
    expect((await ok('config', 'apply', cfg)).stdout).to.match(/\nalready applied: nothing changed, nothing written\n$/);

    const toolsHuman = (await ok('tools', 'list')).stdout;
    expect(toolsHuman).to.match(/^TOOLID\s+SOURCE\s+OWNER\s+SAFETYTIER/);
    expect(toolsHuman).to.match(/ext\.clock\s+host-extension\s+config\s+read/);
    expect(await jsonOf('tools', 'classify', 'ext.clock', '--tier', 'write', '--replay', 'non-idempotent', '--egress', 'open')).to.deep.equal({
      toolId: 'ext.clock', safetyTier: 'write', replayPolicy: 'non-idempotent', egress: 'open',
    });
    const tools = await jsonOf<Array<{ toolId: string; owner: string; classificationOwner: string; safetyTier: string }>>('tools', 'list');
    expect(tools.find((t) => t.toolId === 'ext.clock')).to.deep.include({ owner: 'config', classificationOwner: 'api', safetyTier: 'write' });
    // The operator's classification of a file tool is drift for the file: reported, and kept by apply.
    expect((await ok('config', 'plan', cfg)).stdout).to.match(/! drift extension ext\.clock \(\/extensions\/0\): classification write\/non-idempotent\/open set through the API by principal:operator/);
    await ok('config', 'apply', cfg);
    expect((await jsonOf<Array<{ toolId: string; safetyTier: string }>>('tools', 'list')).find((t) => t.toolId === 'ext.clock')?.safetyTier).to.equal('write');
    oneLineError(await cli('tools', 'unclassify', 'ext.clock'), 2, /Host extensions always carry a classification/);
    oneLineError(await cli('tools', 'unclassify', 'mcp.nope.x'), 4, /No tool with this id/);
    expect((await cli('tools', 'classify', 'ext.clock', '--tier', 'read')).code, 'missing mandatory options').to.equal(2);

    const srcs = await jsonOf<Array<{ name: string; owner: string; status: string }>>('sources', 'list');
    expect(srcs).to.deep.equal([{ name: 'files', transport: 'stdio', owner: 'config', enabled: false, status: 'never-synced', tools: 0, quarantined: 0, lastSyncAt: null }]);
    expect((await ok('sources', 'list')).stdout).to.match(/^NAME\s+TRANSPORT\s+OWNER/);
    expect(await jsonOf('sources', 'remove', 'files')).to.deep.equal({ name: 'files', removed: true });
    oneLineError(await cli('sources', 'remove', 'files'), 4, /No source with this id/);
    expect((await ok('config', 'plan', cfg)).stdout).to.match(/! drift mcp-server files \(\/mcpServers\/0\): removed through the API; not re-registered/);

    const audit = await jsonOf<Array<{ action: string; actor: string; role: string; targetType: string; targetId: string }>>('audit', '--first', '100');
    const actions = audit.map((a) => a.action);
    expect(actions).to.include.members(['cli:tenants create', 'cli:keys create', 'cli:tools classify', 'cli:config apply', 'cli:sources remove']);
    // Three applies of one file: the first wrote it (its config entry and the extension it added); the same file again,
    // and once more with only drift to report, wrote nothing.
    expect(audit.filter((a) => a.action === 'cli:config apply' && a.targetType === 'config'), 'the later applies of the same file wrote nothing').to.have.length(1);
    expect(audit.filter((a) => a.action.startsWith('cli:')).every((a) => a.role === 'operator' && / \(CLI\)$/.test(a.actor))).to.equal(true);
    expect((await ok('audit', '--first', '3')).stdout.split('\n')[0]).to.match(/^AT\s+ACTOR\s+ACTION\s+TARGETTYPE\s+TARGETID$/);
    oneLineError(await cli('audit', '--first', '0'), 2, /--first must be an integer from 1 to 500/);
  });

  it('config errors exit 3 in one line naming the entry; --debug adds the stack; removals only with --prune', async () => {
    const bad = file('bad.yaml', 'mcpServers:\n  - name: a\n    transport: stdio\n    command: x\n  - name: b\n    transport: carrier-pigeon\n');
    const r = await cli('config', 'plan', bad);
    oneLineError(r, 3, /^toolcat: .*bad\.yaml: invalid config file: at \/mcpServers\/1\/transport: must be one of "stdio", "http" \(got "carrier-pigeon"\)\n$/);
    const debug = await cli('config', 'plan', bad, '--debug');
    expect(debug.code).to.equal(3);
    expect(debug.stderr).to.match(/\n\s+at .*config-file\.js/);
    const envErr = await cli('tenants', 'list').then(() => execFileP(process.execPath, [CLI, 'tenants', 'list'], { env: { ...env, PORT: 'eighty' } })).then(() => null, (e: Ran) => e);
    expect(envErr?.code).to.equal(3);
    expect(envErr?.stderr).to.match(/^toolcat: invalid configuration: PORT must be an integer/);
    // Removals need --prune: listed and kept without it.
    const one = file('one.yaml', 'extensions:\n  - name: solo\n    description: One\n    safetyTier: pure\n    replayPolicy: deterministic\n    egress: none\n    inputSchema: { type: object }\n');
    await ok('config', 'apply', one);
    const none = file('none.yaml', 'extensions: []\n');
    expect((await ok('config', 'apply', none)).stdout).to.match(/- remove extension ext\.solo: no longer in the file \(kept: removals need --prune\)[\s\S]*applied \(removals kept: add --prune to remove them\)\n$/);
    expect((await jsonOf<Array<{ toolId: string }>>('tools', 'list')).map((t) => t.toolId)).to.include('ext.solo');
    expect((await ok('config', 'apply', none, '--prune')).stdout).to.match(/- remove extension ext\.solo: no longer in the file\n/);
    expect((await jsonOf<Array<{ toolId: string }>>('tools', 'list')).map((t) => t.toolId)).not.to.include('ext.solo');
  });

  it('serve --demo says that its keys replace the keys an earlier demo run printed', async () => {
    const demoEnv = { ...env, TOOLCAT_SQLITE_PATH: join(dir, 'demo.sqlite'), TOOLCAT_CONFIG_FILE: '' };
    const banner = () =>
      new Promise<string>((resolve, reject) => {
        const p = spawn(process.execPath, [CLI, 'serve', '--demo', '--port', '0'], { env: demoEnv, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        p.stderr.on('data', (c) => {
          err += String(c);
          if (/GraphQL IDE:/.test(err)) p.kill('SIGTERM');
        });
        p.once('exit', () => (/toolcat demo is running/.test(err) ? resolve(err) : reject(new Error(err))));
      });
    expect(await banner()).not.to.match(/replace/);
    expect(await banner()).to.match(/These keys replace the demo keys printed by an earlier run \(2 revoked; they no longer work\)\./);
  });
});
