/**
 * Issue 19 item 6: the package `npm pack` makes installs into an empty folder and runs `npx toolcat serve --demo`
 * with no source checkout, and its main/exports/bin name files it contains. Slow (an npm install): its own
 * timeout. Offline from the npm cache when it holds every dependency; otherwise npm fetches what is missing from
 * the registry (--prefer-offline), and the test says so. better-sqlite3's compiled addon is copied from this
 * checkout's node_modules (same package version and Node ABI, checked) instead of compiled again: the install
 * runs with --ignore-scripts, so nothing is built or downloaded by install scripts.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..', '..');
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' }, maxBuffer: 64 * 1024 * 1024 });

describe('npm pack: the package installs into an empty folder and serves the demo (slow)', function () {
  this.timeout(600000);
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-pack-'));
  let server: ChildProcess | null = null;
  after(() => {
    if (server?.pid && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  let tarball = '';
  let files: string[] = [];
  it('packs dist/, bin, demo and schemas, and no tests or bench; main, exports and bin name packed files', async () => {
    const packed = JSON.parse((await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], ROOT)).stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(dir, packed[0].filename);
    files = packed[0].files.map((f) => f.path);
    expect(files).to.include.members(['bin/toolcat.js', 'dist/src/cli/main.js', 'dist/src/app.js', 'demo/extensions.yaml', 'schemas/config/toolcat-config.schema.json', 'openapi.json', 'package.json']);
    expect(files.filter((f) => /^(dist\/)?(test|bench)\//.test(f) || /\.test\.js$/.test(f) || f.startsWith('src/')), 'no tests, bench or TypeScript sources').to.deep.equal([]);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string; exports: Record<string, unknown>; bin: Record<string, string> };
    const values = (v: unknown): string[] => (typeof v === 'string' ? [v] : Object.values(v as Record<string, unknown>).flatMap(values));
    const targets = [pkg.main, ...Object.values(pkg.bin), ...values(pkg.exports)].map((p) => p.replace(/^\.\//, ''));
    expect(targets).to.include('dist/src/client/index.d.ts');
    for (const t of targets) expect(files, `${t} is in the package`).to.include(t);
  });

  it('installs into an empty folder and `npx toolcat serve --demo` answers GET /tools and a call with the printed key', async () => {
    expect(tarball, 'packed by the test before').to.not.equal('');
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    const install = (mode: string) => npm(['install', mode, '--ignore-scripts', '--no-package-lock', tarball], app);
    try {
      await install('--offline');
    } catch (err) {
      if (!/ENOTCACHED/.test(String((err as { stderr?: string }).stderr))) throw err;
      process.stderr.write('      (the npm cache lacks some dependencies: installing with --prefer-offline, which fetches them from the registry)\n');
      await install('--prefer-offline');
    }
    const installed = join(app, 'node_modules');
    const version = (p: string) => (JSON.parse(readFileSync(join(p, 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
    const ours = join(ROOT, 'node_modules');
    expect(version(installed), 'the copied addon is of the same better-sqlite3 version').to.equal(version(ours));
    mkdirSync(join(installed, 'better-sqlite3', 'build', 'Release'), { recursive: true });
    copyFileSync(join(ours, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(installed, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));

    const env = { ...process.env, TOOLCAT_SQLITE_PATH: join(dir, 'demo.sqlite'), LOG_LEVEL: 'warn', DATABASE_URL: '', TOOLCAT_CONFIG_FILE: '' };
    // Its own process group, so the cleanup stops npx and the toolcat it started alike.
    server = spawn('npx', ['--no-install', 'toolcat', 'serve', '--demo', '--port', '0'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let err = '';
    const banner = await new Promise<{ url: string; key: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no demo banner:\n${err}`)), 120000);
      server!.stderr!.on('data', (c) => {
        err += String(c);
        const m = /running at (http:\/\/\S+)\n\s+agent key \(tenant "demo"\): (tc_\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve({ url: m[1], key: m[2] });
        }
      });
      server!.once('exit', (code) => reject(new Error(`npx toolcat exited with ${code}:\n${err}`)));
    });
    const auth = { authorization: `Bearer ${banner.key}` };
    const list = (await (await fetch(`${banner.url}/tools`, { headers: auth })).json()) as Array<{ toolId: string }>;
    expect(list.map((t) => t.toolId)).to.include('ext.calculator');
    const call = await fetch(`${banner.url}/tools/ext.calculator/calls`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ arguments: { expression: '(2 + 3) * 4' } }) });
    expect(call.status).to.equal(200);
    expect(await call.text()).to.include('20');
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    process.kill(-server.pid!, 'SIGTERM');
    await exited;
    server = null;
  });
});
