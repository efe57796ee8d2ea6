import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { compact } from '../catalog/compact';
import { createApp } from '../app';
import { SYSTEM_ACTOR, runAudited } from '../audit/audit-context';
import { type Config, ConfigError, loadConfig } from '../config/config';
import { ConfigFileError } from '../config/config-file';
import { CatalogError } from '../catalog/catalog.errors';
import { isRole } from '../catalog/principal';
import { createDataSource } from '../persistence/data-source';
import { DEMO_EXTENSIONS_FILE, seedDemo } from './demo';
import { startDemoImplementations } from './demo-implementations';

/**
 * `npx toolcat <command>`: the operator's entry point. The only file besides config.ts that touches
 * process.env, and the only one that listens. Data goes to stdout, progress and errors to stderr.
 */
const program = new Command('toolcat').description('toolcat: a tool catalog service for AI-agent hosts').showHelpAfterError();

program
  .command('serve')
  .description('run the service (SQLite ./data/toolcat.sqlite unless DATABASE_URL is set)')
  .option('--demo', 'load the demo extensions and print demo API keys')
  .option('--port <port>', 'listen port (default $PORT or 8080)')
  .option('--host <host>', 'listen address (default $HOST or 127.0.0.1)')
  .option('--config <file>', 'config file with host extensions and MCP servers, YAML or JSON (default $TOOLCAT_CONFIG_FILE)')
  .option('--extensions <file>', 'alias of --config')
  .option('--migrate', 'run pending migrations before serving')
  .action(async (o: { demo?: boolean; port?: string; host?: string; config?: string; extensions?: string; migrate?: boolean }) => {
    const env = { ...process.env };
    if (o.port !== undefined) env.PORT = o.port;
    if (o.host !== undefined) env.HOST = o.host;
    const file = o.config ?? o.extensions;
    if (file) env.TOOLCAT_CONFIG_FILE = file;
    else if (o.demo && !env.TOOLCAT_CONFIG_FILE && !env.TOOLCAT_EXTENSIONS_FILE) env.TOOLCAT_CONFIG_FILE = DEMO_EXTENSIONS_FILE;
    if (o.migrate) env.TOOLCAT_MIGRATE = 'true';
    // The demo's extensions are called through its own signed endpoint (issue 14), started before the config names it.
    const demo = o.demo ? await startDemoImplementations() : null;
    if (demo) {
      env.TOOLCAT_DEMO_EXTENSIONS_URL = demo.url;
      env.TOOLCAT_DEMO_EXTENSIONS_SECRET = demo.secret;
    }
    const config = loadConfig(env);
    const app = await createApp(config);
    const { url } = await app.listen();
    app.log.info({ url, db: config.db.type }, 'toolcat listening');
    if (o.demo) {
      const keys = await seedDemo(app);
      process.stderr.write(
        `\ntoolcat demo is running at ${url}\n` +
          `  agent key (tenant "demo"): ${keys.agentKey}\n` +
          `  host-admin key:            ${keys.adminKey}\n\n` +
          `  curl -H "Authorization: Bearer ${keys.agentKey}" ${url}/tools\n` +
          `  curl -H "Authorization: Bearer ${keys.agentKey}" -H "Content-Type: application/json" \\\n` +
          `       -d '{"arguments":{"expression":"(2 + 3) * 4"}}' ${url}/tools/ext.calculator/calls\n` +
          `  demo workspace (read_file, write_file): ${demo!.workspace}\n` +
          `  GraphQL (Apollo Sandbox):  ${url}/graphql  (set the Authorization header to "Bearer <key>")\n\n`,
      );
    }
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
  });

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(async () => {
    const config = loadConfig(process.env);
    const ds = createDataSource(config.db);
    await ds.initialize();
    try {
      const applied = await ds.runMigrations({ transaction: 'all' });
      process.stderr.write(applied.length ? `applied: ${applied.map((m) => m.name).join(', ')}\n` : 'no pending migrations\n');
    } finally {
      await ds.destroy();
    }
  });

program
  .command('sync [source]')
  .description('sync one MCP source, or every enabled one, now; prints progress (pages, tools read) and a result line per source')
  .option('--config <file>', 'config file to apply first (default $TOOLCAT_CONFIG_FILE)')
  .action(async (name: string | undefined, o: { config?: string }) => {
    const config: Config = { ...loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }), startSources: false };
    const app = await createApp(o.config ? { ...config, configFile: o.config } : config);
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
    try {
      if (name && !(await app.services.sources.names(false)).includes(name)) throw new CatalogError('NOT_FOUND', `no source named "${name}"`);
      const names = name ? [name] : await app.services.sources.names(true);
      for (const n of names) {
        lastLine = 0;
        if (tty) process.stderr.write(`syncing ${n} …`);
        const r = await app.services.sync.sync(n);
        failed ||= r.status === 'failing';
        process.stderr.write(
          `${tty ? '\r\x1b[K' : ''}syncing ${n} … ${r.status}: ${r.toolCount} tools served, ${r.quarantinedCount} quarantined, +${r.added} ~${r.changed} -${r.removed} in ${r.durationMs} ms${r.error ? ` (${r.error})` : ''}\n`,
        );
      }
      if (!names.length) process.stderr.write('no enabled sources\n');
    } finally {
      unsubscribe();
      await app.close();
    }
    if (failed) process.exitCode = 1;
  });

program
  .command('compact [file]')
  .description('print the compact view of a JSON Schema (file or stdin) as JSON, as agents get it with ?view=compact')
  .option('--notes', 'print { "schema", "notes" }: the schema and what compaction relaxed')
  .action(async (file: string | undefined, o: { notes?: boolean }) => {
    const text = file && file !== '-' ? readFileSync(file, 'utf8') : await readStdin();
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (err) {
      throw new CatalogError('BAD_USER_INPUT', `${file ?? 'stdin'} is not JSON: ${(err as Error).message}`);
    }
    const result = compact(schema);
    process.stdout.write(`${JSON.stringify(o.notes ? { schema: result.schema, notes: result.notes } : result.schema, null, 2)}\n`);
  });

const tenants = program.command('tenants').description('manage tenants');
tenants
  .command('create <name>')
  .description('create a tenant; prints its id')
  .action(async (name: string) =>
    withApp(async (app) => {
      const t = await app.services.tenancy.createTenantUnchecked(name);
      process.stdout.write(`${t.id}\n`);
    }),
  );
tenants
  .command('list')
  .description('list tenants (id and name)')
  .action(async () =>
    withApp(async (app) => {
      const rows = (await app.dataSource.query('SELECT id, name FROM tenant ORDER BY name')) as Array<{ id: string; name: string }>;
      for (const r of rows) process.stdout.write(`${r.id}\t${r.name}\n`);
    }),
  );

program
  .command('keys')
  .description('manage API keys')
  .command('create')
  .description('create a principal with a new API key; prints only the key')
  .requiredOption('--tenant <name>', 'tenant name')
  .option('--name <name>', 'principal name', 'cli-key')
  .option('--admin', 'host-admin role (manages everything)')
  .addOption(new Option('--role <role>', 'agent | tenant-admin | host-admin').default('agent'))
  .action(async (o: { tenant: string; name: string; admin?: boolean; role: string }) =>
    withApp(async (app) => {
      const role = o.admin ? 'host-admin' : o.role;
      if (!isRole(role)) throw new CatalogError('BAD_USER_INPUT', '--role must be agent, tenant-admin or host-admin');
      const tenant = await app.services.tenancy.findTenantByName(o.tenant);
      if (!tenant) throw new CatalogError('NOT_FOUND', `no tenant named "${o.tenant}"`);
      const created = await app.services.tenancy.createPrincipalUnchecked(tenant.id, o.name, role);
      process.stdout.write(`${created.apiKey}\n`);
    }),
  );

program
  .command('grants')
  .description('manage grants')
  .command('create')
  .description('grant a tenant the tools matching a pattern; prints the grant id')
  .requiredOption('--tenant <name>', 'tenant name')
  .requiredOption('--pattern <pattern>', 'toolId pattern, * matches any run of characters')
  .option('--source <source>', 'mcp | host-extension')
  .option('--max-tier <tier>', 'highest safetyTier: pure | read | write | exec')
  .action(async (o: { tenant: string; pattern: string; source?: string; maxTier?: string }) =>
    withApp(async (app) => {
      const tenant = await app.services.tenancy.findTenantByName(o.tenant);
      if (!tenant) throw new CatalogError('NOT_FOUND', `no tenant named "${o.tenant}"`);
      const g = await app.services.grants.createGrantUnchecked({ tenantId: tenant.id, toolPattern: o.pattern, source: o.source, maxSafetyTier: o.maxTier });
      process.stdout.write(`${g.id}\n`);
    }),
  );

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (c) => (data += c));
    process.stdin.on('end', () => resolve(data));
    process.stdin.on('error', reject);
  });
}

async function withApp(fn: (app: Awaited<ReturnType<typeof createApp>>) => Promise<void>): Promise<void> {
  const config: Config = { ...loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' }), configFile: null, startSources: false };
  const app = await createApp(config);
  try {
    // Operator changes are audited like admin mutations, with the command as the action.
    await runAudited({ action: `cli:${process.argv.slice(2, 4).join(' ')}`, requestId: null, actor: SYSTEM_ACTOR }, () => fn(app));
  } finally {
    await app.close();
  }
}

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof ConfigFileError || err instanceof CatalogError) {
    process.stderr.write(`toolcat: ${err.message}\n`);
  } else {
    process.stderr.write(`toolcat: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(1);
});
