/** The operator's CLI, run as a real process: bootstrap without GraphQL, keys on stdout only, migrations. */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { expectStandardList } from '../helpers/schema-assert';

const run = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'src', 'cli', 'main.js');

describe('toolcat CLI', function () {
  this.timeout(60000);
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-cli-'));
  const env = { ...process.env, TOOLCAT_SQLITE_PATH: join(dir, 'cli.sqlite'), LOG_LEVEL: 'warn', DATABASE_URL: '' };
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env });
  let server: ChildProcess | null = null;
  after(() => server?.kill('SIGTERM'));

  it('migrate, tenants create, grants create, keys create: an operator bootstraps without GraphQL', async () => {
    expect((await cli('migrate')).stderr).to.match(/applied: CreateCatalog/);
    expect((await cli('migrate')).stderr).to.match(/no pending migrations/);
    const tenant = await cli('tenants', 'create', 'acme');
    expect(tenant.stdout).to.match(/^[0-9a-f-]{36}\n$/);
    await cli('grants', 'create', '--tenant', 'acme', '--pattern', 'ext.*', '--max-tier', 'write');
    const key = await cli('keys', 'create', '--tenant', 'acme');
    expect(key.stdout, 'stdout holds only the key').to.match(/^tc_[A-Za-z0-9_-]{43}\n$/);
    const admin = await cli('keys', 'create', '--tenant', 'acme', '--admin');
    expect(admin.stdout).to.match(/^tc_[A-Za-z0-9_-]{43}\n$/);
    expect((await cli('tenants', 'list')).stdout).to.match(/\sacme\s+\S+\n$/);

    server = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--extensions', join(__dirname, '..', '..', '..', 'demo', 'extensions.yaml')], { env: { ...env, LOG_LEVEL: 'info' } });
    const url = await new Promise<string>((resolve, reject) => {
      let buf = '';
      server!.stdout!.on('data', (c) => {
        buf += String(c);
        const m = /"url":"(http:\/\/[^"]+)"/.exec(buf);
        if (m) resolve(m[1]);
      });
      server!.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    });
    const res = await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${key.stdout.trim()}` } });
    expect(res.status).to.equal(200);
    const body = (await res.json()) as Array<{ toolId: string; safetyTier: string }>;
    expectStandardList(body);
    expect(body.map((d) => d.toolId)).to.include('ext.calculator').and.not.include('ext.run_shell');
  });

  it('explains its errors and exits non-zero', async () => {
    const err = await cli('keys', 'create', '--tenant', 'nope').then(() => null, (e: { code: number; stderr: string; stdout: string }) => e);
    expect(err?.code, 'not found: exit code 4').to.equal(4);
    expect(err?.stderr).to.match(/no tenant named "nope"/);
    expect(err?.stdout).to.equal('');
    const dup = await cli('tenants', 'create', 'acme').then(() => null, (e: { stderr: string }) => e);
    expect(dup?.stderr).to.match(/already exists/);
    const badEnv = await run(process.execPath, [CLI, 'migrate'], { env: { ...env, PORT: 'eighty' } }).then(() => null, (e: { stderr: string }) => e);
    expect(badEnv?.stderr).to.match(/PORT must be an integer/);
  });

  it('compact prints the compact schema (file or stdin); --notes adds what was relaxed; bad input is a clear error', async () => {
    const { writeFileSync } = await import('node:fs');
    const file = join(dir, 'schema.json');
    writeFileSync(file, JSON.stringify({ type: 'object', properties: { x: { oneOf: [{ type: 'string' }, { type: 'integer' }] }, not: { $ref: '#/$defs/N' } }, $defs: { N: { type: 'boolean' } } }));
    const plain = JSON.parse((await cli('compact', file)).stdout) as Record<string, unknown>;
    expect(plain).to.deep.include({ type: 'object' });
    expect(JSON.stringify(plain)).not.to.match(/"(oneOf|\$ref|\$defs)"/);
    expect((plain.properties as Record<string, unknown>).not).to.deep.equal({ type: 'boolean' });
    const withNotes = JSON.parse((await cli('compact', file, '--notes')).stdout) as { schema: unknown; notes: Array<{ action: string }> };
    expect(withNotes.schema).to.deep.equal(plain);
    expect(withNotes.notes.map((n) => n.action)).to.include('inlined');
    const piped = await new Promise<string>((resolve, reject) => {
      const { spawn } = require('node:child_process') as typeof import('node:child_process');
      const p = spawn(process.execPath, [CLI, 'compact'], { env });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += String(c)));
      p.on('exit', (code: number) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      p.stdin.end('{"anyOf":[{"type":"object"}]}');
    });
    expect(JSON.parse(piped)).to.have.property('type', 'object');
    writeFileSync(join(dir, 'bad.json'), '{nope');
    const bad = await cli('compact', join(dir, 'bad.json')).then(() => null, (e: { code: number; stderr: string }) => e);
    expect(bad?.code, 'bad input: exit code 2 (exit-codes.ts)').to.equal(2);
    expect(bad?.stderr).to.match(/is not JSON/);
  });

  it('serve refuses to start with pending migrations unless told to run them', async () => {
    const fresh = { ...env, TOOLCAT_SQLITE_PATH: join(dir, 'fresh.sqlite'), TOOLCAT_MIGRATE: 'false' };
    const err = await run(process.execPath, [CLI, 'serve', '--port', '0'], { env: fresh, timeout: 20000 }).then(() => null, (e: { code: number; stderr: string }) => e);
    expect(err?.code, 'pending migrations: exit code 6').to.equal(6);
    expect(err?.stderr).to.match(/pending migrations/);
  });
});
