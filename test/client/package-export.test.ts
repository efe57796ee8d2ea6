/**
 * `toolcat/client` as a package export (issue 17): CommonJS through "require", ESM through client/index.mjs with the
 * same names, and declarations through "types" that a consumer compiles against (moduleResolution node16, which
 * reads "exports"). The package resolves itself by name, as an installed dependency would.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..', '..');

describe('the toolcat/client package export (issue 17)', () => {
  it('require and import give the same names', async () => {
    const cjs = Object.keys(require('toolcat/client') as object).sort();
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', "import * as m from 'toolcat/client'; console.log(JSON.stringify(Object.keys(m).sort()))"], { cwd: ROOT });
    expect(JSON.parse(stdout)).to.deep.equal(cjs);
    expect(cjs).to.include.members(['createToolcatClient', 'ToolcatClient', 'NotFoundError', 'toOpenAIChatTools', 'toolIdForFunctionCall']);
  });

  it('a TypeScript consumer compiles against its declarations', function () {
    this.timeout(60000);
    expect(existsSync(join(ROOT, 'dist', 'src', 'client', 'index.d.ts')), 'npm run build emits the declarations').to.equal(true);
    const dir = join(ROOT, 'dist', `client-consumer-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(join(dir, 'consumer.ts'), [
        "import { createToolcatClient, toAnthropicTools, type ToolDescriptor } from 'toolcat/client';",
        "const client = createToolcatClient({ baseUrl: 'http://127.0.0.1:8080', token: 'k' });",
        'export async function names(): Promise<string[]> {',
        '  const list = await client.listTools({ view: "compact" });',
        '  const tools: readonly ToolDescriptor[] = list.tools;',
        '  return toAnthropicTools(tools).map((t) => t.name);',
        '}',
        '// @ts-expect-error the view is standard or compact',
        "void client.listTools({ view: 'full' });",
        '',
      ].join('\n'));
      const program = ts.createProgram([join(dir, 'consumer.ts')], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: [] });
      expect(ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
