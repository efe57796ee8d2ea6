/**
 * Recaptures test/fixtures/mcp-tools/<server>.json: the raw `tools/list` result of real MCP servers
 * published on npm, spawned over stdio. These fixtures feed test/compact/corpus.test.ts (the compact
 * view must handle schemas it has never seen; design/compact-view.md, "Malformed input is normal").
 *
 * Run (from the repo root, after `npx tsc -p tsconfig.json`):
 *   node dist/scripts/capture-mcp-fixtures.js [server-name ...]
 *
 * Why `client.request(..., ResultSchema)` and not `client.listTools()`: listTools() validates every tool
 * with the SDK's strict zod schema and rejects a whole page when one tool is unusual. The fixtures must
 * hold the tools exactly as received, so we use the SDK's own loose `ResultSchema` (a passthrough
 * object) and keep `tools` untouched.
 *
 * Versions are pinned exactly so a recapture is reproducible; bump them deliberately.
 * Servers must start without network credentials: list-tools only, no tool is ever called.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

const SDK_VERSION = '1.32.2';

interface ServerSpec {
  /** fixture file name (without .json) */
  name: string;
  pkg: string;
  version: string;
  /** extra CLI args; `{tmp}` is replaced by a fresh empty temp directory */
  args?: string[];
  env?: Record<string, string>;
}

export const SERVERS: readonly ServerSpec[] = [
  { name: 'notion', pkg: '@notionhq/notion-mcp-server', version: '2.5.2' },
  { name: 'everything', pkg: '@modelcontextprotocol/server-everything', version: '2026.8.31' },
  { name: 'playwright', pkg: '@playwright/mcp', version: '0.0.83', args: ['--headless'] },
  { name: 'memory', pkg: '@modelcontextprotocol/server-memory', version: '2026.8.31', env: { MEMORY_FILE_PATH: '{tmp}/memory.json' } },
  { name: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', version: '2026.8.31', args: ['{tmp}'] },
  { name: 'sequential-thinking', pkg: '@modelcontextprotocol/server-sequential-thinking', version: '2026.8.31' },
  { name: 'github', pkg: '@modelcontextprotocol/server-github', version: '2025.4.8' },
  { name: 'context7', pkg: '@upstash/context7-mcp', version: '4.1.1' },
];

const OUT_DIR = resolve(__dirname, '..', '..', 'test', 'fixtures', 'mcp-tools');
const TIMEOUT_MS = 240_000;
const MAX_PAGES = 50;

async function capture(spec: ServerSpec, npmCache: string): Promise<unknown[]> {
  const tmp = mkdtempSync(join(tmpdir(), `mcp-${spec.name}-`));
  const fill = (s: string): string => s.split('{tmp}').join(tmp);
  const env: Record<string, string> = {
    ...getDefaultEnvironment(),
    npm_config_cache: npmCache,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    PUPPETEER_SKIP_DOWNLOAD: 'true',
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  };
  for (const [k, v] of Object.entries(spec.env ?? {})) env[k] = fill(v);
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['-y', `${spec.pkg}@${spec.version}`, ...(spec.args ?? []).map(fill)],
    env,
    cwd: tmp,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const client = new Client({ name: 'toolcat-fixture-capture', version: '0.1.0' }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: TIMEOUT_MS });
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? {} : { cursor };
      const result = await client.request({ method: 'tools/list', params }, ResultSchema, { timeout: TIMEOUT_MS });
      const raw = result as Record<string, unknown>;
      if (Array.isArray(raw.tools)) tools.push(...raw.tools);
      cursor = typeof raw.nextCursor === 'string' && raw.nextCursor !== '' ? raw.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    return tools;
  } catch (err) {
    throw new Error(`${spec.pkg}@${spec.version}: ${String(err)}\n--- stderr tail ---\n${stderr}`);
  } finally {
    await client.close().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const npmCache = mkdtempSync(join(tmpdir(), 'mcp-npm-cache-'));
  mkdirSync(OUT_DIR, { recursive: true });
  let failed = 0;
  for (const spec of SERVERS) {
    if (only.length > 0 && !only.includes(spec.name)) continue;
    const started = Date.now();
    try {
      const tools = await capture(spec, npmCache);
      const file = {
        server: spec.pkg,
        version: spec.version,
        capturedWith: `@modelcontextprotocol/sdk@${SDK_VERSION} Client.request(tools/list, ResultSchema) over stdio (npx -y ${spec.pkg}@${spec.version}${spec.args ? ' ' + spec.args.join(' ') : ''})`,
        tools,
      };
      writeFileSync(join(OUT_DIR, `${spec.name}.json`), JSON.stringify(file, null, 2) + '\n');
      console.log(`ok   ${spec.name}: ${tools.length} tools in ${Date.now() - started} ms`);
    } catch (err) {
      failed++;
      console.error(`FAIL ${spec.name}: ${String(err)}`);
    }
  }
  rmSync(npmCache, { recursive: true, force: true });
  process.exitCode = failed > 0 ? 1 : 0;
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
