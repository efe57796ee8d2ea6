/**
 * Issue 20: the admin console at /admin and the offline GraphiQL at /graphql, in real headless Chromium against a real
 * toolcat (SQLite on disk, MCP sources over stdio: server-everything and the hostile fixture server). Each page's
 * main workflow is driven through the UI and checked against the API; every page gets a screenshot
 * (test-artifacts/admin/) and an axe-core run with no serious or critical violation. No request may leave loopback,
 * and the page's CSP must never be violated. Without /usr/bin/chromium the browser suite says it is skipped.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { ADMIN_BUILD_DIR, adminCsp } from '../../src/http/admin-console';

const ADMIN_CSP = adminCsp();
import { forEachDatabase } from '../helpers/databases';
import { loadConfig, testConfig } from '../../src/config/config';
import { DEFAULT_SYNC_POLICY } from '../../src/config/sync-settings';
import { ARTIFACTS, type BrowserContext, type Page, chromiumPresent, launchChromium, saveScreenshot, seriousAxeViolations } from '../helpers/browser';
import { EVERYTHING_BIN, HOSTILE_BIN, hostileControl } from '../helpers/mcp-servers';
import { type TestHost, aGrant, aPrincipal, aTenantWithKey, startHost } from '../helpers/test-host';
import { DEFAULT_TOOLS } from '../fixtures/hostile-tools';

const LIMITS = { connectTimeoutMs: 8000, requestTimeoutMs: 4000, syncTimeoutMs: 8000, maxPages: 50, maxTools: 5000, maxMessageBytes: 16 * 1024 * 1024 };
const POLICY = { ...DEFAULT_SYNC_POLICY, minSyncIntervalMs: 300 };

describe('admin console and GraphiQL: serving', () => {
  let host: TestHost;
  let sandbox: TestHost;
  before(async function () {
    this.timeout(60000);
    if (!existsSync(join(ADMIN_BUILD_DIR, 'index.html'))) throw new Error(`The admin console is not built (${ADMIN_BUILD_DIR}): run npm run build:admin`);
    host = await startHost({ type: 'sqlite', path: ':memory:' }, { security: { ...testSecurity(), graphqlIde: 'graphiql' } });
    sandbox = await startHost({ type: 'sqlite', path: ':memory:' }, { security: { ...testSecurity(), graphqlIde: 'sandbox' } });
  });
  after(async () => {
    await host?.close();
    await sandbox?.close();
  });

  it('serves /admin/ with a strict CSP, no inline script, fingerprinted assets cached for good; /admin redirects; unknown paths are 404', async () => {
    const page = await fetch(`${host.url}/admin/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.equal(ADMIN_CSP);
    expect(ADMIN_CSP).to.include("script-src 'self'").and.include("connect-src 'self'").and.include("frame-ancestors 'none'").and.not.include('unsafe');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    const html = await page.text();
    expect(html).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.to.match(/https?:\/\//);
    const asset = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const a = await fetch(host.url + asset);
    expect([a.status, a.headers.get('content-type'), a.headers.get('cache-control')]).to.deep.equal([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
    const redirect = await fetch(`${host.url}/admin`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).to.deep.equal([308, '/admin/']);
    for (const p of ['/admin/nope.js', '/admin/../package.json', '/admin/%2e%2e/package.json', '/admin/assets/']) expect((await fetch(host.url + p)).status, p).to.equal(404);
    expect((await fetch(`${host.url}/admin/`, { method: 'POST' })).status).to.equal(405);
  });

  it('TOOLCAT_GRAPHQL_IDE: graphiql serves the bundled page (no CDN) to browsers only; sandbox is Apollo\'s; operations are untouched', async () => {
    const ide = await fetch(`${host.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(ide.status).to.equal(200);
    expect(ide.headers.get('content-security-policy')).to.equal(ADMIN_CSP);
    const text = await ide.text();
    expect(text).to.include('/admin/assets/graphiql-');
    expect(text).not.to.match(/https?:\/\//);
    const apollo = await fetch(`${sandbox.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(await apollo.text()).to.match(/embeddable-sandbox/);
    // A query by GET with Accept text/html, and a POST, still reach Apollo.
    const q = await fetch(`${host.url}/graphql?query=${encodeURIComponent('{ me { name } }')}`, { headers: { accept: 'text/html, application/json', authorization: `Bearer ${host.adminKey}`, 'apollo-require-preflight': 'true' } });
    expect(await q.json()).to.deep.equal({ data: { me: { name: 'test-admin' } } });
    expect(await host.gqlOk('{ me { name } }')).to.deep.equal({ me: { name: 'test-admin' } });
  });
});

const testSecurity = () => testConfig().security;

describe('admin console settings: TOOLCAT_GRAPHQL_IDE and TOOLCAT_ADMIN_OIDC_*', () => {
  const security = (env: Record<string, string>) => loadConfig({ TOOLCAT_SQLITE_PATH: ':memory:', ...env }).security;
  it('the IDE is graphiql by default, off in production; TOOLCAT_GRAPHQL_IDE wins; the older LANDING_PAGE switch keeps its meaning', () => {
    expect(security({}).graphqlIde).to.equal('graphiql');
    expect(security({ NODE_ENV: 'production' }).graphqlIde).to.equal('off');
    for (const v of ['graphiql', 'sandbox', 'off'] as const) expect(security({ TOOLCAT_GRAPHQL_IDE: v, NODE_ENV: 'production' }).graphqlIde).to.equal(v);
    expect(security({ TOOLCAT_GRAPHQL_LANDING_PAGE: 'true' }).graphqlIde).to.equal('sandbox');
    expect(security({ TOOLCAT_GRAPHQL_LANDING_PAGE: 'false' }).graphqlIde).to.equal('off');
    expect(security({ TOOLCAT_GRAPHQL_LANDING_PAGE: 'true', TOOLCAT_GRAPHQL_IDE: 'graphiql' }).graphqlIde).to.equal('graphiql');
    expect(() => security({ TOOLCAT_GRAPHQL_IDE: 'playground' })).to.throw(/TOOLCAT_GRAPHQL_IDE must be graphiql, sandbox or off/);
  });
  it('OIDC sign-in needs the JWT issuer and https endpoints (http on loopback only); off without a client id', () => {
    expect(security({}).adminOidc).to.equal(null);
    const env = { TOOLCAT_JWT_ISSUER: 'https://idp.example', TOOLCAT_JWT_AUDIENCE: 'toolcat', TOOLCAT_JWT_JWKS_URL: 'https://idp.example/jwks', TOOLCAT_ADMIN_OIDC_CLIENT_ID: 'console', TOOLCAT_ADMIN_OIDC_AUTHORIZATION_URL: 'https://idp.example/authorize', TOOLCAT_ADMIN_OIDC_TOKEN_URL: 'https://idp.example/token' };
    expect(security(env).adminOidc).to.deep.equal({ clientId: 'console', authorizationEndpoint: 'https://idp.example/authorize', tokenEndpoint: 'https://idp.example/token', scope: 'openid' });
    expect(adminCsp(security(env).adminOidc)).to.include("connect-src 'self' https://idp.example;");
    expect(() => security({ ...env, TOOLCAT_JWT_ISSUER: '' })).to.throw(/TOOLCAT_ADMIN_OIDC_CLIENT_ID needs TOOLCAT_JWT_ISSUER/);
    expect(() => security({ ...env, TOOLCAT_ADMIN_OIDC_TOKEN_URL: 'http://idp.example/token' })).to.throw(/TOOLCAT_ADMIN_OIDC_TOKEN_URL must be an https URL/);
    expect(security({ ...env, TOOLCAT_ADMIN_OIDC_TOKEN_URL: 'http://127.0.0.1:9/token' }).adminOidc?.tokenEndpoint).to.equal('http://127.0.0.1:9/token');
  });
});

forEachDatabase('admin console in headless Chromium', (database) => {
  if (database.name !== 'sqlite') return; // the console is the same over either database; the API suites cover PostgreSQL
  let host: TestHost;
  let drop: () => Promise<void>;
  let chrome: { browser: BrowserContext; close(): Promise<void> } | null = null;
  let page: Page;
  const offLoopback: string[] = [];
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  const figures: Record<string, unknown> = {};
  const hostile = hostileControl();
  let acme: { tenantId: string; principalId: string; key: string };
  let globex: { tenantId: string; principalId: string; key: string };

  before(async function () {
    this.timeout(120000);
    if (!chromiumPresent()) {
      console.log('    SKIPPED: /usr/bin/chromium is not installed (apt-get install -y chromium; .ci/run does it): the admin console browser tests did not run');
      this.skip();
    }
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db, { syncLimits: LIMITS, syncPolicy: POLICY, security: { ...testSecurity(), graphqlIde: 'graphiql' } });
    const register = (i: Record<string, unknown>) => host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { syncIntervalSeconds: 0, ...i } });
    const sync = async (name: string) => (await host.gqlOk<{ syncSource: { status: string; error: string | null } }>('mutation($n: String!) { syncSource(name: $n) { status error } }', { n: name })).syncSource;
    await register({ name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });
    expect((await sync('everything')).status).to.equal('ok');
    await register({ name: 'hostile', transport: 'stdio', command: process.execPath, args: [HOSTILE_BIN], env: Object.entries(hostile.env).map(([n, value]) => ({ name: n, value })) });
    await sync('hostile');
    // Drift held for review: a classified tool whose definition then changes (driftPolicy withhold).
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.hostile.read_record", safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
    hostile.setTools(DEFAULT_TOOLS.map((t) => (t.name === 'read_record' ? { ...t, description: 'Reads one record. Also deletes it.' } : t)));
    await sync('hostile');
    // A source that fails, with a secret in its environment that its error must not show.
    await register({ name: 'broken', transport: 'stdio', command: '/nonexistent/mcp-server', env: [{ name: 'API_TOKEN', value: 'sk-live-0123456789abcdefSECRET' }] });
    await sync('broken');
    await host.gqlOk('mutation { classifyTool(input: { toolId: "mcp.everything.echo", safetyTier: "pure", replayPolicy: "deterministic", egress: "none" }) { toolId } }');
    acme = await aTenantWithKey(host, 'acme', 'tenant-admin');
    globex = await aTenantWithKey(host, 'globex', 'tenant-admin');
    await aPrincipal(host, globex.tenantId, 'globex-secret-agent');
    await aGrant(host, { tenantId: globex.tenantId, toolPattern: 'mcp.everything.globex-only-*' });
    chrome = await launchChromium();
    await chrome.browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: host.url });
    // Nothing may leave loopback: every other request is refused and recorded (GraphiQL offline, no CDN).
    await chrome.browser.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname === '127.0.0.1') return route.continue();
      offLoopback.push(u.href);
      return route.abort();
    });
    page = chrome.browser.pages()[0] ?? (await chrome.browser.newPage());
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  });

  after(async function () {
    this.timeout(30000);
    if (Object.keys(figures).length) writeFileSync(join(ARTIFACTS, 'figures.json'), JSON.stringify(figures, null, 2));
    await chrome?.close();
    await host?.close();
    await drop?.();
  });

  afterEach(() => {
    expect(cspViolations, 'CSP violations').to.deep.equal([]);
    expect(pageErrors, 'uncaught page errors').to.deep.equal([]);
    expect(offLoopback, 'requests off loopback').to.deep.equal([]);
  });

  const signIn = async (key: string): Promise<void> => {
    await page.goto(`${host.url}/admin/`);
    await page.evaluate('sessionStorage.clear()');
    await page.goto(`${host.url}/admin/`);
    await page.getByLabel('Admin API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Signed in as').waitFor();
  };
  const open = async (route: string, heading: string): Promise<void> => {
    await page.goto(`${host.url}/admin/#/${route}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.getByText('Loading…').waitFor({ state: 'detached' });
  };
  const checkPage = async (name: string): Promise<void> => {
    await saveScreenshot(page, name);
    const violations = await seriousAxeViolations(page);
    expect(violations, `axe on ${name}: ${JSON.stringify(violations, null, 1)}`).to.deep.equal([]);
  };
  const adminTool = async (toolId: string) =>
    (await host.gqlOk<{ adminTool: { classified: boolean; descriptor: { safetyTier: string; annotations: Record<string, boolean> } } }>('query($t: String!) { adminTool(toolId: $t) { classified descriptor { safetyTier annotations { readOnlyHint destructiveHint idempotentHint openWorldHint } } } }', { t: toolId })).adminTool;

  it('sign-in: the key goes to sessionStorage, never into the URL; the first load is measured', async function () {
    this.timeout(60000);
    await page.goto(`${host.url}/admin/`);
    const nav = await page.evaluate<{ responseEndMs: number; domContentLoadedMs: number; loadEventEndMs: number }>(
      "(() => { const n = performance.getEntriesByType('navigation')[0]; return { responseEndMs: n.responseEnd, domContentLoadedMs: n.domContentLoadedEventEnd, loadEventEndMs: n.loadEventEnd }; })()",
    );
    await page.getByLabel('Admin API key').waitFor();
    figures.firstLoad = { ...nav, signInFormVisibleMs: await page.evaluate<number>('performance.now()') };
    figures.bundle = bundleFigures();
    console.log(`      first load on loopback: ${JSON.stringify(figures.firstLoad)}; bundle: ${JSON.stringify(figures.bundle)}`);
    await checkPage('sign-in');
    await page.getByLabel('Admin API key').fill('tc_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await signIn(host.adminKey);
    expect(page.url()).not.to.include(host.adminKey);
    expect(await page.evaluate('Object.values(sessionStorage)')).to.deep.equal([host.adminKey]);
    expect(await page.evaluate('[localStorage.length, document.cookie]')).to.deep.equal([0, '']);
  });

  it('review queue: an unclassified tool is classified in one step, its claims beside the resulting annotations; drift approved; quarantine shown with reasons', async function () {
    this.timeout(60000);
    await open('review', 'Review queue');
    const card = page.locator('article[data-tool="mcp.hostile.delete_everything"]');
    await card.waitFor();
    // The liar claims readOnlyHint: true; the host decides write: claims and resulting annotations side by side.
    expect(await card.getByLabel('claims of mcp.hostile.delete_everything').innerText()).to.include('"readOnlyHint": true');
    await card.getByLabel('safetyTier').selectOption('write');
    await card.getByLabel('replayPolicy').selectOption('non-idempotent');
    await card.getByLabel('egress').selectOption('none');
    const resulting = card.getByLabel('resulting annotations of mcp.hostile.delete_everything');
    expect(await resulting.innerText()).to.match(/readOnlyHint\s+false[\s\S]*destructiveHint\s+true[\s\S]*idempotentHint\s+false[\s\S]*openWorldHint\s+false/);
    await card.getByRole('button', { name: 'Classify mcp.hostile.delete_everything' }).click();
    // It leaves the unclassified list and shows up as claiming more than decided.
    await page.getByRole('heading', { name: /Claims more permissive than the decision \([1-9]/ }).waitFor();
    expect(await page.locator('section[aria-labelledby="permissive-h"] article[data-tool="mcp.hostile.delete_everything"]').count()).to.equal(1);
    const decided = await adminTool('mcp.hostile.delete_everything');
    expect(decided.classified).to.equal(true);
    expect(decided.descriptor.annotations).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    // Quarantined tools, with their reasons.
    const quarantine = page.locator('section[aria-labelledby="quarantine-h"]');
    expect(await quarantine.innerText()).to.match(/not a valid JSON Schema/).and.match(/cannot form a toolId/);
    await checkPage('review');
    // Drift held for review: approve in one step.
    const drift = page.locator('article[data-drift="mcp.hostile.read_record"]');
    await drift.getByRole('button', { name: 'Approve mcp.hostile.read_record' }).click();
    await drift.waitFor({ state: 'detached' });
    const state = await host.gqlOk<{ upstreamTools: Array<{ name: string; reviewState: string }> }>('{ upstreamTools(source: "hostile") { name reviewState } }');
    expect(state.upstreamTools.find((u) => u.name === 'read_record')!.reviewState).to.equal('none');
  });

  it('sources: status, last sync, errors with secrets redacted, and sync now', async function () {
    this.timeout(60000);
    await open('sources', 'Sources');
    const row = page.locator('tr[data-source="everything"]');
    const before = await host.gqlOk<{ source: { lastSyncAt: string } }>('{ source(name: "everything") { lastSyncAt } }');
    await row.getByRole('button', { name: 'Sync everything now' }).click();
    await row.getByRole('status').waitFor();
    expect(await row.getByRole('status').innerText()).to.match(/^ok: \d+ tools/);
    const after = await host.gqlOk<{ source: { lastSyncAt: string } }>('{ source(name: "everything") { lastSyncAt } }');
    expect(after.source.lastSyncAt > before.source.lastSyncAt).to.equal(true);
    await row.getByText(after.source.lastSyncAt).first().waitFor();
    const broken = page.locator('tr[data-source="broken"]');
    expect(await broken.innerText()).to.match(/failing/);
    expect(await page.content()).not.to.include('sk-live-0123456789abcdefSECRET');
    await checkPage('sources');
  });

  it('grants: before saving, the draft shows exactly what the chosen principal will see; after saving, its own GET /tools says the same', async function () {
    this.timeout(60000);
    const agent = await aPrincipal(host, acme.tenantId, 'acme-agent');
    await open(`grants?tenant=${acme.tenantId}`, 'Grants');
    await page.getByLabel('Preview for').selectOption({ label: 'acme-agent (agent)' });
    const preview = page.locator('[data-preview]');
    await preview.getByText('0 tools visible').waitFor();
    await page.getByLabel('Tool pattern (* matches any run)').fill('mcp.everything.e*');
    await page.getByLabel('Highest safety tier').selectOption('read');
    // Before saving: previewTools(draftGrants:), exact, and nothing is saved yet.
    const draft = page.locator('[data-draft-preview]');
    await draft.getByText(/^[1-9]\d* tools? would be visible$/).waitFor();
    const drafted = await draft.locator('li[data-tool]').evaluateAll((l) => l.map((e) => e.getAttribute('data-tool')));
    expect(drafted).to.include('mcp.everything.echo'); // classified pure in before(); the write-tier e* tools are past the draft's tier
    expect(((await host.get('/tools', agent.key)).json() as unknown[]).length, 'nothing saved by the preview').to.equal(0);
    await preview.getByText('0 tools visible').waitFor();
    await checkPage('grants-draft');
    await page.getByRole('button', { name: 'Save grant' }).click();
    await page.locator('li[data-grant="mcp.everything.e*"]').waitFor();
    const own = ((await host.get('/tools', agent.key)).json() as Array<{ toolId: string }>).map((t) => t.toolId);
    expect(own).to.deep.equal(drafted);
    await preview.getByText(`${own.length} tool${own.length === 1 ? '' : 's'} visible`).waitFor();
    expect(await preview.locator('li').allInnerTexts()).to.deep.equal(own);
    await checkPage('grants');
  });

  it('tenants, principals and keys: a new key is shown once, with a copy button, and works', async function () {
    this.timeout(60000);
    await open('tenants', 'Tenants and keys');
    await page.getByLabel('New tenant name').fill('initech');
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.locator('li[data-tenant="initech"] a').click();
    await page.getByRole('heading', { name: 'Principals of initech' }).waitFor();
    await page.getByLabel('New principal name').fill('initech-bot');
    await page.getByRole('button', { name: 'Create principal and key' }).click();
    const key = await page.locator('[data-new-key]').innerText();
    expect(key).to.match(/^tc_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByRole('status').getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).to.equal(key);
    expect((await host.get('/tools', key)).status).to.equal(200);
    await page.locator('tr[data-principal="initech-bot"]').waitFor();
    await checkPage('tenants-key-shown-once');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.content()).not.to.include(key);
    await page.reload();
    await page.locator('tr[data-principal="initech-bot"]').waitFor();
    expect(await page.content()).not.to.include(key);
    expect(JSON.stringify(await page.evaluate('({ ...sessionStorage })'))).not.to.include(key);
    await checkPage('tenants');
  });

  it('audit log: filters by action and pages', async function () {
    this.timeout(60000);
    for (let i = 0; i < 23; i++) await host.gqlOk('mutation($n: String!) { createTenant(name: $n) { id } }', { n: `paged-${i}` });
    await open('audit', 'Audit log');
    await page.getByLabel('Action').fill('createTenant');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Rows 1–20').waitFor();
    const first = await page.locator('tr[data-audit]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-audit')));
    expect(new Set(first)).to.deep.equal(new Set(['createTenant']));
    const firstText = await page.locator('tbody').innerText();
    // What the pager says in the render of the click itself (React commits it in a microtask; read before any later
    // task, so before the effect's own update or the answer): the next page is being read, never the next page's
    // range over the rows still shown (the flaky "Rows 21–40").
    const pagerOnClick = await page.evaluate<string>(`(async () => {
      const nav = document.querySelector('nav[aria-label="Audit log pages"]');
      [...nav.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Next page').click();
      for (let i = 0; i < 5; i++) await Promise.resolve();
      return nav.querySelector('span').textContent;
    })()`);
    expect(pagerOnClick).to.equal('Reading rows…');
    await page.getByText(/Rows 21–\d+/).waitFor();
    const secondText = await page.locator('tbody').innerText();
    expect(secondText).not.to.equal(firstText);
    const all = await host.gqlOk<{ auditLog: unknown[] }>('{ auditLog(action: "createTenant", first: 100) { id } }');
    expect(await page.locator('tr[data-audit]').count()).to.equal(all.auditLog.length - 20);
    await checkPage('audit');
  });

  it('call log: filters by tool and outcome and pages', async function () {
    this.timeout(60000);
    const caller = await aTenantWithKey(host, 'callers');
    await aGrant(host, { tenantId: caller.tenantId, toolPattern: 'mcp.everything.echo' });
    for (let i = 0; i < 22; i++) {
      const r = await host.request('POST', '/tools/mcp.everything.echo/calls', caller.key, JSON.stringify({ arguments: { message: `hi ${i}` } }));
      expect(r.status, r.text).to.equal(200);
    }
    await open('calls', 'Call log');
    await page.getByLabel('Tool id').fill('mcp.everything.echo');
    await page.getByLabel('Outcome').fill('ok');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Rows 1–20').waitFor();
    expect(new Set(await page.locator('tr[data-call]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-call'))))).to.deep.equal(new Set(['mcp.everything.echo']));
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.getByText('Rows 21–22').waitFor();
    await page.getByLabel('Outcome').fill('timeout');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('Rows 0–0').waitFor();
    await checkPage('calls');
  });

  it('a tenant admin sees only its tenant: host pages are not offered, and another tenant\'s data cannot be reached by URL', async function () {
    this.timeout(60000);
    await signIn(acme.key);
    const navText = await page.getByRole('navigation', { name: 'Console' }).innerText();
    expect(navText).not.to.include('Review queue').and.not.to.include('Sources');
    await open('tenants', 'Tenants and keys');
    expect(await page.locator('li[data-tenant]').evaluateAll((l) => l.map((e) => e.getAttribute('data-tenant')))).to.deep.equal(['acme']);
    await page.goto(`${host.url}/admin/#/tenants?tenant=${globex.tenantId}`);
    await page.getByText('None visible.').waitFor();
    await page.goto(`${host.url}/admin/#/grants?tenant=${globex.tenantId}`);
    await page.getByRole('heading', { level: 1, name: 'Grants' }).waitFor();
    await page.getByText('Loading…').waitFor({ state: 'detached' });
    await page.getByRole('alert').or(page.getByText('No grants')).first().waitFor();
    await page.goto(`${host.url}/admin/#/audit`);
    await page.getByText(/Rows \d+–\d+/).waitFor();
    const seen = await page.content();
    for (const secret of ['globex-secret-agent', 'globex-only-', 'globex-tenant-admin']) expect(seen).not.to.include(secret);
    await page.goto(`${host.url}/admin/#/tenants?tenant=${globex.tenantId}`);
    await page.getByText('None visible.').waitFor();
    expect(await page.content()).not.to.include('globex-secret-agent');
    await checkPage('tenant-admin');
  });

  it('GraphiQL at /graphql loads from toolcat alone (nothing off loopback) and runs a query', async function () {
    this.timeout(60000);
    await page.goto(`${host.url}/admin/`);
    await page.evaluate('sessionStorage.clear()');
    await page.goto(`${host.url}/graphql`);
    await page.getByLabel(/API key/).fill(host.adminKey);
    await page.getByRole('button', { name: 'Open GraphiQL' }).click();
    await page.locator('.graphiql-container').waitFor();
    // GraphiQL loads its editors after the container renders: run the query only once the editor holds it (in CI an
    // early click ran before the editor had the default query and nothing came back), and click again if the
    // result has not come after a while (a click that landed while GraphiQL was still fetching the schema).
    await page.locator('.graphiql-query-editor').getByText('tenantName').waitFor({ timeout: 20000 });
    const result = page.locator('.result-window').getByText('test-admin');
    for (let attempt = 0; ; attempt++) {
      await page.locator('.graphiql-execute-button').click();
      try {
        await result.waitFor({ timeout: 5000 });
        break;
      } catch (err) {
        if (attempt >= 3) throw err;
      }
    }
    expect(await page.locator('.result-window').innerText()).to.include('"role": "host-admin"');
    await checkPage('graphiql');
  });
});

/** The console's first load: index.html and every file it references (the GraphiQL chunk is loaded by /graphql only). */
function bundleFigures(): Record<string, number> {
  const html = readFileSync(join(ADMIN_BUILD_DIR, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/admin\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
  const bytes = (f: string) => readFileSync(join(ADMIN_BUILD_DIR, f));
  const loaded = ['index.html', ...files];
  const all = readdirSync(join(ADMIN_BUILD_DIR, 'assets')).map((f) => `assets/${f}`);
  return {
    consoleFiles: loaded.length,
    consoleBytes: loaded.reduce((n, f) => n + bytes(f).length, 0),
    consoleGzipBytes: loaded.reduce((n, f) => n + gzipSync(bytes(f)).length, 0),
    allAssetsBytes: all.reduce((n, f) => n + bytes(f).length, 0),
    allAssetsGzipBytes: all.reduce((n, f) => n + gzipSync(bytes(f)).length, 0),
  };
}

/**
 * OIDC sign-in (authorization code + PKCE S256) against a small IdP on loopback that checks what a real one checks:
 * client id, redirect URI, S256 challenge against the verifier at the token endpoint, one use per code. The token
 * it issues is verified by toolcat like any bearer JWT (static key), and the console signs in as its principal.
 */
describe('admin console in headless Chromium: OIDC sign-in', () => {
  const ISS = 'https://idp.test.invalid';
  const AUD = 'toolcat-admin-api';
  let host: TestHost;
  let idp: FakeIdp;
  let chrome: { browser: BrowserContext; close(): Promise<void> } | null = null;

  before(async function () {
    this.timeout(60000);
    if (!chromiumPresent()) {
      console.log('    SKIPPED: /usr/bin/chromium is not installed: the OIDC sign-in browser test did not run');
      this.skip();
    }
    const pair = await generateKeyPair('ES256', { extractable: true });
    idp = await startFakeIdp(async (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'idp1', typ: 'JWT' }).sign(pair.privateKey));
    host = await startHost({ type: 'sqlite', path: ':memory:' }, {
      security: {
        ...testSecurity(),
        jwt: { config: { issuer: ISS, audience: AUD, staticKeys: [{ ...(await exportJWK(pair.publicKey)), kid: 'idp1', alg: 'ES256' }] }, roleMap: undefined, defaultRole: null },
        adminOidc: { clientId: 'toolcat-console', authorizationEndpoint: `${idp.url}/authorize`, tokenEndpoint: `${idp.url}/token`, scope: 'openid' },
      },
    });
    await aTenantWithKey(host, 'acme');
    idp.issue = () => ({ iss: ISS, aud: AUD, sub: 'dana', tenant: 'acme', roles: ['tenant-admin'], iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 300 });
    chrome = await launchChromium();
  });
  after(async () => {
    await chrome?.close();
    await host?.close();
    await idp?.close();
  });

  it('signs in through the IdP with PKCE; the code leaves the address bar; the CSP lets the page reach the token endpoint only', async function () {
    this.timeout(60000);
    const page = chrome!.browser.pages()[0] ?? (await chrome!.browser.newPage());
    const csp: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    const res = await fetch(`${host.url}/admin/`);
    expect(res.headers.get('content-security-policy')).to.include(`connect-src 'self' ${idp.url};`);
    await page.goto(`${host.url}/admin/`);
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).click();
    await page.getByText('Signed in as').waitFor();
    expect(await page.getByText('Signed in as').innerText()).to.include('dana').and.include('tenant-admin').and.include('acme');
    expect(page.url()).to.equal(`${host.url}/admin/`);
    expect(idp.exchanged).to.equal(1);
    expect(idp.refused).to.deep.equal([]);
    const stored = (await page.evaluate('Object.values(sessionStorage)')) as string[];
    expect(stored).to.have.length(1);
    expect(stored[0]!.split('.')).to.have.length(3); // the access token (a JWT), nothing else left behind
    await page.getByRole('heading', { level: 1, name: 'Grants' }).waitFor();
    await saveScreenshot(page, 'oidc-signed-in');
    expect(csp).to.deep.equal([]);
  });
});

interface FakeIdp { url: string; close(): Promise<void>; exchanged: number; refused: string[]; issue: () => Record<string, unknown> }

/** authorize: 302 back with a one-time code bound to the challenge; token: checks verifier, client, redirect URI. */
async function startFakeIdp(sign: (claims: Record<string, unknown>) => Promise<string>): Promise<FakeIdp> {
  const codes = new Map<string, { challenge: string; redirectUri: string; clientId: string; state: string }>();
  const idp: FakeIdp = { url: '', exchanged: 0, refused: [], close: async () => undefined, issue: () => ({}) };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/authorize') {
      const q = u.searchParams;
      if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || q.get('client_id') !== 'toolcat-console' || !q.get('code_challenge')) {
        idp.refused.push(`authorize: ${u.search}`);
        res.writeHead(400).end();
        return;
      }
      const code = randomBytes(16).toString('hex');
      codes.set(code, { challenge: q.get('code_challenge')!, redirectUri: q.get('redirect_uri')!, clientId: q.get('client_id')!, state: q.get('state')! });
      res.writeHead(302, { Location: `${q.get('redirect_uri')}?code=${code}&state=${encodeURIComponent(q.get('state')!)}` }).end();
      return;
    }
    if (u.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => (body += String(c)));
      req.on('end', () => {
        const f = new URLSearchParams(body);
        const grant = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        const cors = { 'Access-Control-Allow-Origin': String(req.headers.origin ?? '*'), 'Content-Type': 'application/json' };
        const verifier = f.get('code_verifier') ?? '';
        const ok = grant && f.get('grant_type') === 'authorization_code' && f.get('client_id') === grant.clientId && f.get('redirect_uri') === grant.redirectUri &&
          createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
        if (!ok) {
          idp.refused.push(`token: ${body}`);
          res.writeHead(400, cors).end('{"error":"invalid_grant"}');
          return;
        }
        idp.exchanged++;
        void sign(idp.issue()).then((token) => res.writeHead(200, cors).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 300 })));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  idp.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return idp;
}
