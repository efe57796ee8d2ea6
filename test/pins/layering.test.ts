/**
 * Issue 13: the layering of src/ (docs/architecture.md, "Layers") is enforced by dependency-cruiser with
 * .dependency-cruiser.cjs, run by `npm test` (`npm run lint:deps`). This proves the rules fire: the real
 * configuration, run on a small throwaway tree with one deliberate violation per rule, reports each of them, and a
 * tree without one reports nothing. And the real tree passes, so plain `mocha` catches a violation too.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';

const ROOT = join(__dirname, '..', '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
/** The CLI `npm run lint:deps` runs (the package exports no path to it). */
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

interface Violation {
  readonly rule: { readonly name: string };
  readonly from: string;
  readonly to: string;
}

/** Runs the CLI on `src` under `cwd` with the real configuration: exit status and output. */
function depcruise(cwd: string, args: readonly string[] = []): { status: number; stdout: string } {
  try {
    const stdout = execFileSync(process.execPath, [DEPCRUISE, 'src', '--config', CONFIG, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    return { status: 0, stdout };
  } catch (err) {
    const e = err as { status: number; stdout: string };
    return { status: e.status, stdout: e.stdout };
  }
}

/** The violations dependency-cruiser finds (its JSON report), and the exit status of the run `npm run lint:deps` does. */
function cruise(cwd: string): { violations: Violation[]; exitCode: number } {
  const result = JSON.parse(depcruise(cwd, ['--output-type', 'json']).stdout) as { summary: { violations: Violation[] } };
  return { violations: result.summary.violations, exitCode: depcruise(cwd).status };
}

/** A throwaway project: the given files, the repository's package.json and node_modules (so `express` resolves as npm). */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolcat-layering-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'layering-fixture', private: true, dependencies: { express: '*' } }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node', esModuleInterop: true, strict: true }, include: ['src/**/*.ts'] }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const LEGAL: Record<string, string> = {
  'src/catalog/tool.ts': 'export const TOOL = 1;\n',
  'src/persistence/repo.ts': "import { TOOL } from '../catalog/tool';\n\nexport const REPO = TOOL;\n",
  'src/graphql/resolver.ts': "import { REPO } from '../persistence/repo';\n\nexport const RESOLVER = REPO;\n",
  'src/rest/facade.ts': "import { RESOLVER } from '../graphql/resolver';\n\nexport const FACADE = RESOLVER;\n",
};

describe('issue 13: the layering rules fire', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const make = (files: Record<string, string>) => {
    const d = tree(files);
    dirs.push(d);
    return d;
  };

  it('a tree that keeps the layer order has no violations', () => {
    expect(cruise(make(LEGAL))).to.deep.equal({ violations: [], exitCode: 0 });
  });

  it('each rule reports its deliberate violation, and the run fails', () => {
    const { violations, exitCode } = cruise(
      make({
        ...LEGAL,
        // the domain imports a framework
        'src/catalog/framework.ts': "import express from 'express';\n\nexport const APP = express;\n",
        // a lower layer imports a higher one
        'src/catalog/upward.ts': "import { REPO } from '../persistence/repo';\n\nexport const UP = REPO;\n",
        // the facade reaches past the GraphQL layer
        'src/rest/direct.ts': "import { REPO } from '../persistence/repo';\n\nexport const DIRECT = REPO;\n",
        // a run-time cycle inside one folder
        'src/shared/a.ts': "import { B } from './b';\n\nexport const A = (): number => B + 1;\n",
        'src/shared/b.ts': "import { A } from './a';\n\nexport const B = 1;\nexport const USE = A;\n",
        // issue 17: toolcat/client imports nothing from the server nor any npm package, and the server never imports it
        'src/client/c.ts': 'export const C = 1;\n',
        'src/client/up.ts': "import { TOOL } from '../catalog/tool';\n\nexport const UP = TOOL;\n",
        'src/client/npm.ts': "import express from 'express';\n\nexport const E = express;\n",
        'src/rest/uses-client.ts': "import { C } from '../client/c';\n\nexport const USES = C;\n",
      }),
    );
    expect(exitCode, 'depcruise exits non-zero on an error-level violation').to.not.equal(0);
    const found = violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^.*node_modules\//, 'node_modules/')}`).sort();
    expect(found).to.deep.equal([
      'client-is-standalone: src/client/npm.ts -> node_modules/express/index.js',
      'client-is-standalone: src/client/up.ts -> src/catalog/tool.ts',
      'domain-imports-no-framework: src/catalog/framework.ts -> node_modules/express/index.js',
      'layer-catalog: src/catalog/upward.ts -> src/persistence/repo.ts',
      'layer-client: src/client/up.ts -> src/catalog/tool.ts',
      'no-circular: src/shared/a.ts -> src/shared/b.ts', // a cycle is reported once, from its first module
      'rest-is-a-facade: src/rest/direct.ts -> src/persistence/repo.ts',
      'server-does-not-use-the-client: src/rest/uses-client.ts -> src/client/c.ts',
    ]);
  });

  it('the real src/ has no violations', () => {
    expect(cruise(ROOT)).to.deep.equal({ violations: [], exitCode: 0 });
  });
});
