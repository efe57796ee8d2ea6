import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { EXIT, UsageError, exitCodeOf, oneLine } from './exit-codes';

/**
 * `npx toolcat <command>`: the operator's entry point. The only file besides config.ts that touches process.env,
 * and the only one that listens. Data goes to stdout, progress and errors to stderr; errors are one line with an
 * exit code from exit-codes.ts (a stack trace only with --debug).
 *
 * Issue 19: this file loads commander and nothing else. Each action imports its module when it runs, so
 * `--help` never loads the app, TypeORM, GraphQL or the database drivers (test/integration/cli-lazy.test.ts).
 */
const program = new Command('toolcat')
  .description('toolcat: a tool catalog service for AI-agent hosts')
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('--debug', 'print stack traces of errors')
  .showHelpAfterError()
  .exitOverride();

const json = (c: Command) => c.option('--json', 'print JSON');
const serveCommands = () => import('./serve-commands');
const admin = () => import('./admin-commands');
const configCommands = () => import('./config-commands');

program
  .command('serve')
  .description('run the service (SQLite ./data/toolcat.sqlite unless DATABASE_URL is set)')
  .option('--demo', 'load the demo extensions and print demo API keys (they replace the keys of an earlier demo run)')
  .option('--port <port>', 'listen port (default $PORT or 8080)')
  .option('--host <host>', 'listen address (default $HOST or 127.0.0.1)')
  .option('--config <file>', 'config file with host extensions and MCP servers, YAML or JSON (default $TOOLCAT_CONFIG_FILE)')
  .option('--extensions <file>', 'alias of --config')
  .option('--config-prune', 'at start, also remove what the config file owns and no longer declares ($TOOLCAT_CONFIG_PRUNE)')
  .option('--config-force', 'at start, apply the config file even if the database has another one applied ($TOOLCAT_CONFIG_FORCE)')
  .option('--migrate', 'run pending migrations before serving')
  .action(async (o: { config?: string; extensions?: string }) => {
    if (o.config !== undefined && o.extensions !== undefined && o.config !== o.extensions) throw new UsageError('--config and --extensions name the same thing; give one');
    await (await serveCommands()).serve(o);
  });

json(program.command('migrate').description('apply pending database migrations')).action(async (o: { json?: boolean }) => (await serveCommands()).migrate(o));

json(
  program
    .command('sync [source]')
    .description('sync one MCP source, or every enabled one, now (same as `sources sync`); progress on stderr, a result line per source')
    .option('--config <file>', 'config file to apply first (default $TOOLCAT_CONFIG_FILE)'),
).action(async (name: string | undefined, o: { config?: string; json?: boolean }) => (await serveCommands()).sync(name, o));

program
  .command('compact [file]')
  .description('print the compact view of a JSON Schema (file or stdin) as JSON, as agents get it with ?view=compact')
  .option('--notes', 'print { "schema", "notes" }: the schema and what compaction relaxed')
  .action(async (file: string | undefined, o: { notes?: boolean }) => (await serveCommands()).compact(file, o));

const tenants = program.command('tenants').description('manage tenants');
json(tenants.command('list').description('list tenants')).action(async (o) => (await admin()).tenants.list(o));
json(tenants.command('create <name>').description('create a tenant; prints its id')).action(async (name: string, o) => (await admin()).tenants.create(name, o));
json(tenants.command('delete <name>').description('delete a tenant with its keys, grants and tenant-scoped tools')).action(async (name: string, o) => (await admin()).tenants.delete(name, o));

const keys = program.command('keys').description('manage API keys (principals)');
json(keys.command('list').description('list the active keys of a tenant (never the keys themselves: their prefixes)').requiredOption('--tenant <name>', 'tenant name').option('--all', 'include revoked keys')).action(
  async (o) => (await admin()).keys.list(o),
);
json(
  keys
    .command('create')
    .description('create a principal with a new API key; prints only the key (once)')
    .requiredOption('--tenant <name>', 'tenant name')
    .option('--name <name>', 'principal name, unique among the active keys of the tenant (default: <role>-<6 random hex digits>)')
    .option('--admin', 'host-admin role (same as --role host-admin)')
    .addOption(new Option('--role <role>', 'role (default agent)').choices(['agent', 'tenant-admin', 'host-admin'])),
).action(async (o) => (await admin()).keys.create(o));
json(keys.command('revoke [id]').description('revoke a key by principal id, or by --tenant and --name').option('--tenant <name>', 'tenant name').option('--name <name>', 'principal name')).action(
  async (id: string | undefined, o) => (await admin()).keys.revoke(id, o),
);

const grants = program.command('grants').description('manage grants');
json(grants.command('list').description('list the grants of a tenant').requiredOption('--tenant <name>', 'tenant name')).action(async (o) => (await admin()).grants.list(o));
json(
  grants
    .command('create')
    .description('grant a tenant the tools matching a pattern; prints the grant id')
    .requiredOption('--tenant <name>', 'tenant name')
    .requiredOption('--pattern <pattern>', 'toolId pattern, * matches any run of characters')
    .addOption(new Option('--source <source>', 'only tools of this source').choices(['mcp', 'host-extension']))
    .addOption(new Option('--max-tier <tier>', 'highest safetyTier').choices(['pure', 'read', 'write', 'exec']))
    .option('--principal <id>', 'narrow the grant to one principal')
    .option('--group <name>', 'narrow the grant to a group (JWT groups claim)'),
).action(async (o) => (await admin()).grants.create(o));
json(grants.command('delete <id>').description('delete a grant')).action(async (id: string, o) => (await admin()).grants.delete(id, o));

const sources = program.command('sources').description('manage MCP sources');
json(sources.command('list').description('list MCP sources with owner (config | api) and sync status')).action(async (o) => (await admin()).sources.list(o));
json(sources.command('sync [source]').description('sync one source, or every enabled one, now').option('--config <file>', 'config file to apply first')).action(
  async (name: string | undefined, o: { config?: string; json?: boolean }) => (await serveCommands()).sync(name, o),
);
json(sources.command('remove <name>').description('remove a source and every tool it served')).action(async (name: string, o) => (await admin()).sources.remove(name, o));

const tools = program.command('tools').description('tools and their classification');
json(tools.command('list').description('list every tool with owner, classification and who made it').addOption(new Option('--source <source>', 'only this source').choices(['mcp', 'host-extension']))).action(
  async (o) => (await admin()).tools.list(o),
);
json(
  tools
    .command('classify <toolId>')
    .description('set the host classification of a tool (exec only for host extensions)')
    .addOption(new Option('--tier <tier>', 'safetyTier').choices(['pure', 'read', 'write', 'exec']).makeOptionMandatory())
    .addOption(new Option('--replay <policy>', 'replayPolicy').choices(['deterministic', 'idempotent', 'non-idempotent']).makeOptionMandatory())
    .addOption(new Option('--egress <egress>', 'egress').choices(['none', 'restricted', 'open']).makeOptionMandatory()),
).action(async (toolId: string, o) => (await admin()).tools.classify(toolId, o));
json(tools.command('unclassify <toolId>').description('withdraw the decision for an MCP tool (it becomes write again)')).action(async (toolId: string, o) => (await admin()).tools.unclassify(toolId, o));

json(
  program
    .command('audit')
    .description('the audit log, newest first')
    .option('--first <n>', 'how many rows (1-500)', '50')
    .option('--action <action>', 'only this action (e.g. classifyTool, cli:keys create, applyConfigFile)')
    .option('--target <id>', 'only this target id'),
).action(async (o) => (await admin()).audit(o));

const config = program.command('config').description('the config file: plan and apply with ownership (docs/operators.md)');
json(config.command('plan <file>').description('print the exact diff applying the file would make; changes nothing').option('--prune', 'show removals as applied').option('--reset-drift', 'plan as if the file\'s word won over API changes')).action(
  async (file: string, o) => (await configCommands()).plan(file, o),
);
json(
  config
    .command('apply <file>')
    .description('apply the file (prints the diff); what the API owns is never changed; removals need --prune')
    .option('--prune', 'also remove what the file owns and no longer declares')
    .option('--reset-drift', 'the file\'s word wins over API changes to what it owns (re-create deleted, restore classifications)'),
).action(async (file: string, o) => (await configCommands()).apply(file, o));

function packageVersion(): string {
  // dist/src/cli -> the package root (the only layout that runs: bin/toolcat.js requires the build).
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof CommanderError) {
    // --help and --version end here with code 0; usage errors have been printed by commander already.
    process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  process.stderr.write(`toolcat: ${oneLine(err)}\n`);
  if (process.argv.includes('--debug') && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
  process.exit(exitCodeOf(err));
});
