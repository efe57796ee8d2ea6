/**
 * Issue 19: `toolcat --help` (and a command's --help, and --version) loads commander and the CLI's own small
 * modules only, never the app, TypeORM, GraphQL or a database driver: the help answers fast because nothing else
 * is loaded. Checked with a require hook in a real child process (no wall clock is asserted).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const CLI = join(__dirname, '..', '..', 'src', 'cli', 'main.js');
const HEAVY = /^(typeorm|graphql|type-graphql|@apollo\/server|better-sqlite3|pg|pino|express|@modelcontextprotocol\/sdk|piscina|ajv|yaml)(\/|$)/;

describe('CLI --help loads nothing a command does not need', function () {
  this.timeout(30000);
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-lazy-'));
  const hook = join(dir, 'hook.js');
  writeFileSync(
    hook,
    `const Module = require('node:module'); const fs = require('node:fs'); const seen = new Set();
const load = Module._load; Module._load = function (request, ...rest) { seen.add(request); return load.call(this, request, ...rest); };
process.on('exit', () => fs.writeFileSync(process.env.LAZY_OUT, JSON.stringify([...seen])));`,
  );
  for (const args of [['--help'], ['keys', 'create', '--help'], ['config', 'apply', '--help'], ['--version']]) {
    it(`toolcat ${args.join(' ')}`, async () => {
      const out = join(dir, `${args.join('-')}.json`);
      const r = await promisify(execFile)(process.execPath, ['--require', hook, CLI, ...args], { env: { ...process.env, LAZY_OUT: out } });
      expect(r.stdout).to.not.equal('');
      const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
      expect(loaded, 'the hook saw the CLI load commander').to.include('commander');
      expect(loaded.filter((m) => HEAVY.test(m))).to.deep.equal([]);
      expect(loaded.filter((m) => /(^|\/)(app|operator|admin-commands|serve-commands|config-commands)$/.test(m))).to.deep.equal([]);
    });
  }
});
