/**
 * Issue 11, defect 3: secrets in logs and admin fields. A hostile MCP source lists a tool named like a token, two
 * different tools sharing a token name, credentials in claims and other raw fields, and echoes its literal and
 * `{ fromEnv }` secrets on stderr and in a JSON-RPC error before failing; an http source carries tokens in its URL
 * and a `{ fromEnv }` Authorization header; the CLI syncs a config-file source that leaks the same way. Afterwards
 * every log line, every audit row (GraphQL and table), every error text, every admin GraphQL field, the metrics
 * and the agent catalog are searched for each planted value: nothing may hold one. Seeing a raw value takes one
 * explicit, audited host-admin step (revealUpstreamTool), and its audit row records that, never the value.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { DatabaseConfig } from '../../src/config/config';
import { FROM_ENV, PLANTED, type PlantedName, leakyTools } from '../fixtures/planted-secrets';
import { forEachDatabase } from '../helpers/databases';
import { HOSTILE_BIN, hostileControl } from '../helpers/mcp-servers';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';

const run = promisify(execFile);
const CLI = join(__dirname, '..', '..', 'src', 'cli', 'main.js');
const LIMITS = { connectTimeoutMs: 4000, requestTimeoutMs: 2000, syncTimeoutMs: 4000, maxPages: 50, maxTools: 5000, maxMessageBytes: 16 * 1024 * 1024 };
const SYNC = 'mutation($n: String!) { syncSource(name: $n) { source status toolCount quarantinedCount added changed removed error } }';
const REGISTER = 'mutation($i: SourceInput!) { registerSource(input: $i) { name transport command args url envNames headerNames status lastError } }';
/** Every admin field that can carry upstream or configured text (only fields that exist before the fix, so the scan itself runs there). */
const ADMIN_READS = [
  '{ sources { name transport command args url envNames headerNames tenantId driftPolicy origin status lastError lastSyncAt toolCount quarantinedCount } }',
  '{ toolChanges(first: 300) { id sourceName toolName toolId kind oldHash newHash detail at } }',
  '{ adminTools { toolId source origin tenantId classified claims contentHash compactNotes { path origin rule action text } descriptor { toolId name title description source safetyTier inputSchema outputSchema annotations { readOnlyHint } } } }',
  '{ auditLog(first: 300) { id at requestId actorId actorName actorRole action targetType targetId tenantId before after } }',
];
const upstreamRead = (source: string) => `{ upstreamTools(source: ${JSON.stringify(source)}) { name toolId quarantineReason reviewState claims raw definitionHash firstSeenAt lastSeenAt } }`;

interface Place {
  readonly where: string;
  readonly text: string;
}

/** Every string leaf of a JSON value (keys included), to count the fields a scan covered. */
function leaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (out.push(k), leaves(x, out));
  return out;
}

/** `where: name` for every planted value found in any place. */
function hitsIn(places: readonly Place[]): string[] {
  const hits: string[] = [];
  for (const p of places) for (const [name, value] of Object.entries(PLANTED)) if (p.text.includes(value)) hits.push(`${p.where}: ${name as PlantedName}`);
  return hits;
}

forEachDatabase('issue 11: secrets in logs and admin fields', (database) => {
  let host: TestHost;
  let db: DatabaseConfig;
  let drop: () => Promise<void>;
  let agent: string;
  let tenantAdmin: string;
  let echo: Server;
  const leaky = hostileControl();
  const cliControl = hostileControl();
  /** GraphQL answers and CLI output produced while syncing (error texts among them). */
  const produced: Place[] = [];

  const gqlText = async (query: string, variables: Record<string, unknown>, where: string, key: string | null = host.adminKey) => {
    const res = await host.request('POST', '/graphql', key, JSON.stringify({ query, variables }));
    produced.push({ where, text: res.text });
    return JSON.parse(res.text) as { data?: Record<string, unknown>; errors?: Array<{ message: string }> };
  };
  const syncVia = async (name: string, mode: string) => {
    (name === 'leaky' ? leaky : cliControl).setMode(mode);
    await host.app.services.sync.drop(name); // a fresh connection, as after a restart
    const r = await gqlText(SYNC, { n: name }, `syncSource(${name}) in ${mode}`);
    // The direct service result is what `toolcat sync` prints; it is an error text too.
    return r.data?.syncSource as { status: string; error: string | null } | undefined;
  };

  before(async function () {
    this.timeout(120_000);
    const created = await database.create();
    db = created.db;
    drop = created.drop;
    host = await startHost(db, { syncLimits: LIMITS, secretEnv: FROM_ENV });
    const t = await aTenantWithKey(host, 'leak-agents');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: 'mcp.*' });
    agent = t.key;
    tenantAdmin = (await aTenantWithKey(host, 'leak-tenant', 'tenant-admin')).key;

    leaky.setTools(leakyTools());
    const env = [
      ...Object.entries(leaky.env).map(([name, value]) => ({ name, value })),
      { name: 'LEAK_LITERAL', value: PLANTED.literalEnv },
      { name: 'LEAK_FROMENV', fromEnv: 'TOOLCAT_TEST_LEAK_FROMENV' },
      { name: 'LEAK_SHAPED', fromEnv: 'TOOLCAT_TEST_LEAK_SHAPED' },
    ];
    await gqlText(REGISTER, { i: { name: 'leaky', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN, '--api-token', PLANTED.argToken], env, syncIntervalSeconds: 0 } }, 'registerSource(leaky)');
    // An http "MCP server" that refuses every request, quoting the Authorization header and the URL it got.
    echo = createServer((req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`denied: ${req.headers.authorization} for ${req.url}`));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    const port = (echo.address() as { port: number }).port;
    await gqlText(
      REGISTER,
      {
        i: {
          name: 'leaky-http', transport: 'http', syncIntervalSeconds: 0,
          url: { value: `http://127.0.0.1:${port}/mcp/${PLANTED.urlPathToken}?access_token=${PLANTED.urlQuerySecret}` },
          headers: [{ name: 'Authorization', fromEnv: 'TOOLCAT_TEST_HTTP_AUTH' }],
        },
      },
      'registerSource(leaky-http)',
    );

    // (a), (c), (d): a listing with a token-named tool, a duplicated token name and leaky claims; synced twice
    // (the second time nothing changes, the first writes the quarantine history).
    expect((await syncVia('leaky', 'normal'))?.status).to.equal('degraded');
    await syncVia('leaky', 'normal');
    // (b): the server echoes its secrets and fails, three ways.
    for (const mode of ['leak-stderr-exit', 'leak-error', 'leak-at-start']) expect((await syncVia('leaky', mode))?.status, mode).to.equal('failing');
    expect((await syncVia('leaky-http', 'normal'))?.status).to.equal('failing');
    leaky.setMode('normal');

    // The operator's CLI syncs a config-file source that leaks (literal and fromEnv) and fails.
    cliControl.setMode('leak-stderr-exit');
    const dir = mkdtempSync(join(tmpdir(), 'toolcat-leak-cli-'));
    const configFile = join(dir, 'toolcat.json');
    writeFileSync(configFile, JSON.stringify({
      mcpServers: [{
        name: 'cli-leaky', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], syncIntervalSeconds: 0,
        env: { ...cliControl.env, LEAK_LITERAL: PLANTED.literalEnv, LEAK_FROMENV: { fromEnv: 'TOOLCAT_TEST_LEAK_FROMENV' } },
      }],
    }));
    const dbEnv = db.type === 'sqlite' ? { TOOLCAT_SQLITE_PATH: db.path, DATABASE_URL: '' } : { DATABASE_URL: db.url };
    const cli = await run(process.execPath, [CLI, 'sync', 'cli-leaky', '--config', configFile], { env: { ...process.env, ...dbEnv, ...FROM_ENV, LOG_LEVEL: 'debug' } }).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => e,
    );
    expect(cli.code, cli.stderr).to.equal(1); // the sync failed, as planned
    expect(cli.stderr).to.match(/syncing cli-leaky … failing: /);
    produced.push({ where: 'CLI stdout (its log lines)', text: cli.stdout }, { where: 'CLI stderr (its progress line and error)', text: cli.stderr });
  });
  after(async () => {
    echo?.close();
    await host?.close();
    await drop?.();
  });

  /** Everything a reader can get at without the explicit reveal step. */
  const everything = async (): Promise<{ places: Place[]; logLines: number; auditRows: number; fields: number }> => {
    const places: Place[] = [...produced];
    let fields = 0;
    for (const q of [...ADMIN_READS, upstreamRead('leaky'), upstreamRead('leaky-http'), upstreamRead('cli-leaky')]) {
      const r = await host.request('POST', '/graphql', host.adminKey, JSON.stringify({ query: q }));
      expect(r.status, r.text.slice(0, 300)).to.equal(200);
      fields += leaves(r.json()).length;
      places.push({ where: q.slice(0, 40), text: r.text });
    }
    const gqlAudit = (await host.gqlOk<{ auditLog: unknown[] }>('{ auditLog(first: 500) { id } }')).auditLog.length;
    const table = (await host.app.dataSource.query('SELECT * FROM audit_log')) as unknown[];
    expect(table.length).to.equal(gqlAudit).and.be.below(300); // the auditLog read above saw every row
    for (const [i, row] of table.entries()) places.push({ where: `audit_log row ${i}`, text: JSON.stringify(row) });
    for (const [i, line] of host.logs.entries()) places.push({ where: `log line ${i}`, text: line });
    for (const [where, res] of [['GET /metrics', await host.get('/metrics')], ['GET /tools (agent)', await host.get('/tools', agent)]] as const) {
      expect(res.status).to.equal(200);
      places.push({ where, text: res.text });
    }
    return { places, logLines: host.logs.length, auditRows: table.length, fields };
  };

  it('issue 11 defect 3: secrets in logs and admin fields — no planted secret (literal, fromEnv, token name, claims, raw) is in any log line, audit row, error text, metric or admin field', async function () {
    this.timeout(30_000);
    // The planted material really went through: quarantines happened and the sync errors quote the server.
    const sources = await host.gqlOk<{ sources: Array<{ name: string; status: string; lastError: string | null; quarantinedCount: number }> }>('{ sources { name status lastError quarantinedCount } }');
    const byName = Object.fromEntries(sources.sources.map((s) => [s.name, s]));
    expect(byName.leaky).to.include({ status: 'failing' });
    expect(byName.leaky.lastError).to.match(/exited \(code 4\); stderr: fatal: cannot authenticate with /);
    expect(byName['cli-leaky'].lastError).to.match(/stderr: fatal: cannot authenticate with /);
    expect(byName['leaky-http'].lastError).to.match(/Error POSTing to endpoint: denied: /);
    const upstream = await host.gqlOk<{ upstreamTools: Array<{ quarantineReason: string | null }> }>(`{ upstreamTools(source: "leaky") { quarantineReason } }`);
    expect(upstream.upstreamTools.filter((u) => u.quarantineReason).map((u) => u.quarantineReason)).to.have.length(2);
    expect(host.logs.join('')).to.include('tool quarantined').and.include('source sync failed');

    const { places, logLines, auditRows, fields } = await everything();
    const hits = hitsIn(places);
    console.log(`      secret scan: ${Object.keys(PLANTED).length} planted values; ${logLines} log lines, ${auditRows} audit rows (each read through auditLog and from the table), ${fields} string fields of admin GraphQL answers, ${produced.length} mutation answers and CLI outputs; ${hits.length} hits`);
    expect(hits, hits.join('\n')).to.deep.equal([]);

    // Redacted where they were, not dropped, so the texts stay useful. The server echoed three secrets (literal,
    // fromEnv, fromEnv credential-shaped): each is there, as [redacted].
    expect(byName.leaky.lastError).to.match(/exited \(code 4\); stderr: fatal: cannot authenticate with \[redacted\] \[redacted\] \[redacted\]/);
    expect(byName['cli-leaky'].lastError).to.match(/stderr: fatal: cannot authenticate with \[redacted\] \[redacted\]/);
    expect(byName['leaky-http'].lastError).to.match(/Error POSTing to endpoint: denied: \[redacted\] for \/mcp\/\[redacted\]\?\[redacted\]$/);
    // Claims are shown redacted, not dropped: what is not a credential stays readable.
    const claims = await host.gqlOk<{ adminTool: { claims: unknown; claimsRedacted: boolean } }>('{ adminTool(toolId: "mcp.leaky.search_issues") { claims claimsRedacted } }');
    expect(claims.adminTool).to.deep.equal({ claims: { readOnlyHint: true, title: 'signed [redacted]', apiKey: '[redacted]', password: '[redacted]' }, claimsRedacted: true });
  });

  it('issue 11 defect 3: revealUpstreamTool is the one explicit step: host admins only, the raw value comes back, and the audit row says it was revealed and by whom, never the value', async function () {
    this.timeout(30_000);
    const listed = await host.gqlOk<{ upstreamTools: Array<{ key: string; name: string; toolId: string | null; redacted: boolean; quarantineReason: string | null }> }>(
      '{ upstreamTools(source: "leaky") { key name toolId redacted quarantineReason } }',
    );
    // Redacted by default, and marked so; the key names the tool to reveal when its name cannot be shown.
    const tokenNamed = listed.upstreamTools.filter((u) => u.redacted && u.name.includes('[redacted]'));
    expect(tokenNamed).to.have.length(2);
    expect(new Set(tokenNamed.map((u) => u.key)).size).to.equal(2);
    const plain = listed.upstreamTools.find((u) => u.name === 'plain_tool')!;
    expect(plain.redacted).to.equal(false);

    const REVEAL = 'mutation($s: String!, $k: ID) { revealUpstreamTool(source: $s, key: $k) { source key name toolId raw claims } }';
    for (const [key, code] of [[agent, 'GRAPHQL_VALIDATION_FAILED'], [tenantAdmin, 'FORBIDDEN']] as const) {
      // Agents are served the catalog schema only (the mutation is unknown to them); tenant admins lack the role.
      const refused = await host.gql(REVEAL, { s: 'leaky', k: tokenNamed[0].key }, key);
      expect(refused.errors?.[0].extensions?.code).to.equal(code);
      expect(JSON.stringify(refused)).not.to.include(PLANTED.nameToken).and.not.to.include(PLANTED.duplicateNameToken);
    }
    type Revealed = { revealUpstreamTool: { name: string; toolId: string | null; raw: Record<string, unknown>; claims: Record<string, unknown> | null } };
    const named = tokenNamed.map((u) => u.key);
    const revealed: Revealed['revealUpstreamTool'][] = [];
    for (const k of named) revealed.push((await host.gqlOk<Revealed>(REVEAL, { s: 'leaky', k })).revealUpstreamTool);
    expect(revealed.map((r) => r.name).sort()).to.deep.equal([PLANTED.nameToken, PLANTED.duplicateNameToken].sort());
    expect(revealed.map((r) => r.toolId).sort()).to.deep.equal([`mcp.leaky.${PLANTED.nameToken}`, `mcp.leaky.${PLANTED.duplicateNameToken}`].sort());
    const byName = await host.gqlOk<Revealed>('mutation { revealUpstreamTool(source: "leaky", name: "search_issues") { name toolId raw claims } }');
    expect(byName.revealUpstreamTool.claims).to.deep.include({ apiKey: PLANTED.claimKey, password: PLANTED.claimPassword });
    expect(JSON.stringify(byName.revealUpstreamTool.raw)).to.include(PLANTED.metaAwsKey).and.include(PLANTED.descriptionToken);

    const me = await host.gqlOk<{ me: { principalId: string } }>('{ me { principalId } }');
    const rows = await host.gqlOk<{ auditLog: Array<{ actorId: string; actorRole: string; targetType: string; targetId: string; after: Record<string, unknown> }> }>(
      '{ auditLog(action: "revealUpstreamTool", first: 50) { actorId actorRole targetType targetId after } }',
    );
    expect(rows.auditLog).to.have.length(named.length + 1); // the refused attempts wrote nothing
    for (const r of rows.auditLog) {
      expect(r).to.include({ actorId: me.me.principalId, actorRole: 'host-admin', targetType: 'upstream-tool' });
      expect(r.after).to.include({ revealed: true, source: 'leaky' });
    }
    // After the reveal, logs and audit rows still hold none of it.
    const { places } = await everything();
    const hits = hitsIn(places);
    expect(hits, hits.join('\n')).to.deep.equal([]);
  });
});
