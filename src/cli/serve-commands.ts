import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { compact as compactSchema } from '../catalog/compact';
import { createApp } from '../app';
import { type Config, loadConfig } from '../config/config';
import { CatalogError } from '../catalog/catalog.errors';
import { applyMigrations, createDataSource } from '../persistence/data-source';
import { DEMO_EXTENSIONS_FILE, demoBanner, seedDemo } from './demo';
import { startDemoImplementations } from './demo-implementations';
import { EXIT } from './exit-codes';
import { printRows, withOperator } from './operator';

/** serve, migrate, sync and compact: the commands that run the service or touch it as a whole. Loaded only when one runs. */
export interface ServeOptions {
  readonly demo?: boolean;
  readonly port?: string;
  readonly host?: string;
  readonly config?: string;
  readonly extensions?: string;
  readonly migrate?: boolean;
  readonly configPrune?: boolean;
  readonly configForce?: boolean;
}

export async function serve(o: ServeOptions): Promise<void> {
  const env = { ...process.env };
  if (o.port !== undefined) env.PORT = o.port;
  if (o.host !== undefined) env.HOST = o.host;
  const file = o.config ?? o.extensions;
  if (file) env.TOOLCAT_CONFIG_FILE = file;
  else if (o.demo && !env.TOOLCAT_CONFIG_FILE && !env.TOOLCAT_EXTENSIONS_FILE) env.TOOLCAT_CONFIG_FILE = DEMO_EXTENSIONS_FILE;
  if (o.migrate) env.TOOLCAT_MIGRATE = 'true';
  if (o.configPrune) env.TOOLCAT_CONFIG_PRUNE = 'true';
  if (o.configForce) env.TOOLCAT_CONFIG_FORCE = 'true';
  const config = loadConfig(env);
  // The demo's extensions are called through its own signed endpoint (issue 14), started before the config names it.
  const demo = o.demo ? await startDemoImplementations() : null;
  if (demo) {
    env.TOOLCAT_DEMO_EXTENSIONS_URL = demo.url;
    env.TOOLCAT_DEMO_EXTENSIONS_SECRET = demo.secret;
  }
  const app = await createApp(config); // config.secretEnv is `env`, which now names the demo endpoint
  const { url } = await app.listen();
  app.log.info({ url, db: config.db.type }, 'toolcat listening');
  if (o.demo) process.stderr.write(demoBanner(url, await seedDemo(app), demo!.workspace));
  const drainMs = Number(process.env.TOOLCAT_DRAIN_MS ?? 10_000);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    app.log.info({ drainMs }, 'shutting down: draining in-flight requests');
    await app.close(drainMs);
    await demo?.close();
    app.log.info('stopped');
    process.exit(0);
  };
  // `on`, not `once`: a library's signal-exit hook re-raises the signal when it sees no other listener left,
  // which would kill the process in the middle of draining.
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

export async function migrate(o: { json?: boolean }): Promise<void> {
  const config = loadConfig(process.env);
  const ds = createDataSource(config.db);
  await ds.initialize();
  try {
    const applied = await applyMigrations(ds, config.db);
    if (o.json) process.stdout.write(`${JSON.stringify({ applied })}\n`);
    process.stderr.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'no pending migrations\n');
  } finally {
    await ds.destroy();
  }
}

/** Syncs one source or every enabled one; progress on stderr, a result line per source; exit 1 when one failed. */
export async function sync(name: string | undefined, o: { config?: string; json?: boolean }): Promise<void> {
  const base: Config = { ...loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }), startSources: false };
  const file = o.config ?? base.configFile;
  if (!file) {
    // Without a file to apply first, this is an operator command like the others (audited, the operator as actor).
    return withOperator('sources sync', (app) => syncWith(app, name, o.json), { startSources: false });
  }
  const app = await createApp({ ...base, configFile: file });
  try {
    await syncWith(app, name, o.json);
  } finally {
    await app.close();
  }
}

async function syncWith(app: Awaited<ReturnType<typeof createApp>>, name: string | undefined, json: boolean | undefined): Promise<void> {
  let failed = false;
  // Issue 12 defect 6: a long sync shows what it has read so far. On a terminal one line is rewritten in place;
  // otherwise a line at most every half second, each starting like the result line.
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  const unsubscribe = app.services.sync.onProgress((p) => {
    const now = Date.now();
    if (!tty && now - lastLine < 500) return;
    lastLine = now;
    process.stderr.write(`${tty ? '\r\x1b[K' : ''}syncing ${p.source} … page ${p.pages}, ${p.toolsRead} tools read${tty ? '' : '\n'}`);
  });
  const results: Array<Record<string, unknown>> = [];
  try {
    if (name && !(await app.services.sources.names(false)).includes(name)) throw new CatalogError('NOT_FOUND', `no source named "${name}"`);
    const names = name ? [name] : await app.services.sources.names(true);
    for (const n of names) {
      lastLine = 0;
      if (tty) process.stderr.write(`syncing ${n} …`);
      const r = await app.services.sync.sync(n);
      failed ||= r.status === 'failing';
      results.push({ source: n, status: r.status, tools: r.toolCount, quarantined: r.quarantinedCount, added: r.added, changed: r.changed, removed: r.removed, durationMs: r.durationMs, error: r.error ?? null });
      process.stderr.write(
        `${tty ? '\r\x1b[K' : ''}syncing ${n} … ${r.status}: ${r.toolCount} tools served, ${r.quarantinedCount} quarantined, +${r.added} ~${r.changed} -${r.removed} in ${r.durationMs} ms${r.error ? ` (${r.error})` : ''}\n`,
      );
    }
    if (!names.length) process.stderr.write('no enabled sources\n');
  } finally {
    unsubscribe();
  }
  if (json) printRows(results, [], true);
  if (failed) process.exitCode = EXIT.failed;
}

export async function compact(file: string | undefined, o: { notes?: boolean }): Promise<void> {
  const text = file && file !== '-' ? readFileSync(file, 'utf8') : await readStdin();
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw new CatalogError('BAD_USER_INPUT', `${file ?? 'stdin'} is not JSON: ${(err as Error).message}`);
  }
  const result = compactSchema(schema);
  process.stdout.write(`${JSON.stringify(o.notes ? { schema: result.schema, notes: result.notes } : result.schema, null, 2)}\n`);
}

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (c) => (data += c));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}
