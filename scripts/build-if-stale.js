#!/usr/bin/env node
'use strict';
/**
 * `npm start` builds only what is out of date (issue 19): each build step names its inputs and an output marker;
 * a step runs when an input is newer than both the marker and the step's stamp (dist/.build-stamps/<name>,
 * written after it succeeded). Another step (e.g. the admin console's Vite build) joins by adding an entry to
 * STEPS. `--force` runs every step. Plain JavaScript: it runs before anything is compiled.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const STEPS = [
  {
    name: 'server',
    inputs: ['src', 'test', 'bench', 'scripts', 'examples', 'ormconfig.ts', 'tsconfig.json', 'package.json'],
    marker: 'dist/.tsbuildinfo',
    run: [process.execPath, tsc, '-p', 'tsconfig.json'],
  },
  {
    name: 'client',
    inputs: ['src/client', 'tsconfig.client.json', 'tsconfig.json'],
    marker: 'dist/.tsbuildinfo-client',
    run: [process.execPath, tsc, '-p', 'tsconfig.client.json'],
  },
  {
    // The admin console (issue 20): typed operations from schema.graphql, the React pages, and the two domain files
    // it shares with the server (annotations, descriptor types).
    name: 'admin',
    inputs: ['admin', 'schema.graphql', 'src/catalog/annotations.ts', 'src/catalog/descriptor.ts', 'package.json'],
    marker: 'dist/admin/index.html',
    run: ['npm', 'run', '-s', 'build:admin'],
  },
];

/** The newest mtime under a file or folder (node_modules and dot-folders skipped); 0 when it does not exist. */
function newest(p) {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    max = Math.max(max, newest(join(p, e.name)));
  }
  return max;
}

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
const force = process.argv.includes('--force');
const stamps = join(root, 'dist', '.build-stamps');
const ran = [];
for (const step of STEPS) {
  const input = Math.max(...step.inputs.map((i) => newest(join(root, i))));
  const built = Math.max(mtime(join(root, step.marker)), mtime(join(stamps, step.name)));
  if (!force && built > 0 && input <= built) continue;
  execFileSync(step.run[0], step.run.slice(1), { cwd: root, stdio: 'inherit' });
  mkdirSync(stamps, { recursive: true });
  writeFileSync(join(stamps, step.name), `${new Date().toISOString()}\n`);
  ran.push(step.name);
}
process.stderr.write(ran.length ? `build: rebuilt ${ran.join(', ')}\n` : `build: up to date (${STEPS.map((s) => s.name).join(', ')}), nothing rebuilt\n`);
