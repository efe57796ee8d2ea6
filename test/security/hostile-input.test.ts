/**
 * Hostile input over REST, GraphQL and raw TCP against the real host (issue 5): generated and hand-written paths,
 * query strings, headers, bodies and malformed HTTP (hostile-corpus.ts). For every input: an answer (or a close)
 * within 5 s, never a 5xx (503 excepted), never another tenant's tool id or description in any byte; after each
 * batch a normal request still answers 200 with the unchanged catalog; RSS growth over the suite stays < 200 MB.
 * Prints `hostile inputs: N tried, X 4xx, Y 2xx/3xx, Z 5xx`.
 */
import { expect } from 'chai';
import { testConfig } from '../../src/config/config';
import { aSimulatedSource, applyListing } from '../conformance/scenario';
import { forEachDatabase } from '../helpers/databases';
import { expectCompactDescriptor, expectCompactList, expectStandardDescriptor, expectStandardList } from '../helpers/schema-assert';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';
import { type HostileInput, type Keys, SEED, bodies, headers, malformed, paths, queries } from './hostile-corpus';
import { type RawOutcome, rawExchange } from './raw-http';

/** Strings that only another tenant's tools hold; a response containing one of them leaked. */
const SECRET_IDS = ['zz_secret_other', 'secret_op'];
const SECRET_TEXT = 'SECRET-DESCRIPTION-7f3a9';
const SUITE_BUDGET_MS = 90_000;
const RSS_BOUND = 200 * 1024 * 1024;

forEachDatabase('security: hostile input', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let port: number;
  let keys: Keys;
  let baseline: { text: string; ids: string[] };
  let rssBefore = 0;
  let logsBefore = 0;
  let validated = 0;
  let started = 0;
  const stats = { tried: 0, c2xx3xx: 0, c4xx: 0, c5xx: 0, c503: 0, closed: 0, slowest: { ms: 0, label: '' } };
  const byCategory = new Map<string, number>();

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    // The rate limiter would answer most of these inputs with 429 before they reach the layers under test; it has
    // its own suite (limits-http.test.ts), so here its budget is out of reach.
    host = await startHost(created.db, { security: { ...testConfig().security, rateLimit: { capacity: 1_000_000, refillPerSecond: 1_000_000, maxKeys: 1000 } } });
    port = Number(new URL(host.url).port);
    const other = await aTenantWithKey(host, 'other');
    await aGrant(host, { tenantId: other.tenantId, toolPattern: '*' });
    await anExtension(host, { name: 'zz_secret_other', description: SECRET_TEXT, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: other.tenantId });
    await aSimulatedSource(host, 'othersrc', other.tenantId);
    await applyListing(host, 'othersrc', [{ name: 'secret_op', description: SECRET_TEXT, inputSchema: { type: 'object' } }]);
    await anExtension(host, { name: 'calculator', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    await anExtension(host, { name: 'read_file', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
    const me = await aTenantWithKey(host, 'me');
    await aGrant(host, { tenantId: me.tenantId, toolPattern: '*' });
    // The other tenant really does see its tools (so "absent for me" below means something).
    expect((await host.get('/tools', other.key)).text).to.include('ext.zz_secret_other').and.include('mcp.othersrc.secret_op');
    const list = await host.get('/tools', me.key);
    expect(list.status).to.equal(200);
    baseline = { text: list.text, ids: (list.json() as Array<{ toolId: string }>).map((d) => d.toolId) };
    expect(baseline.ids).to.deep.equal(['ext.calculator', 'ext.read_file']);
    keys = { me: me.key, admin: host.adminKey, etag: list.headers.get('etag')! };
    logsBefore = host.logs.length;
    rssBefore = process.memoryUsage().rss;
    started = Date.now();
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  /** A normal request still answers 200 with exactly the catalog it answered before the hostile inputs. */
  async function healthy(after: string) {
    const r = await host.get('/tools', keys.me);
    expect(r.status, `after ${after}: ${r.text.slice(0, 200)}`).to.equal(200);
    expectStandardList(r.json());
    expect(r.text, `after ${after}`).to.equal(baseline.text);
  }

  function judge(input: HostileInput, o: RawOutcome) {
    const sent = Buffer.concat(Array.isArray(input.data) ? input.data : [input.data]).toString('latin1');
    expect(o.timedOut, `${input.label}: no answer and no close within 5 s`).to.equal(false);
    if (o.status === null) stats.closed++;
    else if (o.status === 503) stats.c503++;
    else if (o.status >= 500) stats.c5xx++;
    else if (o.status >= 400) stats.c4xx++;
    else stats.c2xx3xx++;
    expect(o.status === null || o.status < 500 || o.status === 503, `${input.label}: ${o.text.slice(0, 300)}`).to.equal(true);
    // docs/errors.md pairs INTERNAL_SERVER_ERROR with HTTP 500 ("anything unexpected"): a 4xx never carries it.
    if (o.status !== null && o.status < 500) expect(o.body, `${input.label}: HTTP ${o.status} with code INTERNAL_SERVER_ERROR`).not.to.include('INTERNAL_SERVER_ERROR');
    expect(o.text, `${input.label}: leaked another tenant's description`).not.to.include(SECRET_TEXT);
    for (const id of SECRET_IDS) if (!sent.includes(id)) expect(o.text, `${input.label}: leaked ${id}`).not.to.include(id);
    // Where the input names a secret id itself, the answer may only be a refusal: never a descriptor.
    if (SECRET_IDS.some((id) => sent.includes(id))) expect(o.text, input.label).not.to.match(/"toolId":"(ext\.zz_secret_other|mcp\.othersrc\.secret_op)"/);
    // Every 200 catalog body is validated against the committed schemas (TC-SHAPE-1), whatever the input was.
    if (o.status === 200 && /^GET \/tools/.test(sent)) validateCatalogBody(o);
    input.check?.(o);
    if (o.ms > stats.slowest.ms) stats.slowest = { ms: o.ms, label: input.label };
  }

  function validateCatalogBody(o: RawOutcome) {
    validated++;
    const length = Number(o.headers['content-length']);
    const body = JSON.parse(Buffer.from(o.body, 'latin1').subarray(0, Number.isFinite(length) ? length : undefined).toString('utf8')) as unknown;
    if (Array.isArray(body)) return expectStandardList(body);
    if (body && typeof body === 'object' && 'tools' in body) return expectCompactList(body);
    try {
      expectStandardDescriptor(body);
    } catch {
      expectCompactDescriptor(body);
    }
  }

  async function run(inputs: HostileInput[]) {
    const failures: string[] = [];
    for (const [i, input] of inputs.entries()) {
      const o = await rawExchange(port, input.data, { timeoutMs: 5000, halfClose: input.halfClose });
      stats.tried++;
      if (process.env.HOSTILE_VERBOSE) console.log(`${input.category}\t${o.status}\t${o.ms}ms\t${input.label.slice(0, 60)}\t${o.body.slice(0, 160).replace(/\s+/g, ' ')}`);
      byCategory.set(input.category, (byCategory.get(input.category) ?? 0) + 1);
      try {
        judge(input, o);
      } catch (err) {
        failures.push((err as Error).message.slice(0, 400));
      }
      if (i % 40 === 39) await healthy(input.label);
    }
    await healthy(`${inputs.length} ${inputs[0]?.category} inputs`);
    // Every failing input of the batch is reported at once, not only the first.
    expect(failures, `${failures.length} of ${inputs.length} inputs failed:\n${failures.join('\n')}`).to.deep.equal([]);
  }

  it('generated paths: unicode, percent-encodings (invalid too), dot segments, very long', async function () {
    this.timeout(SUITE_BUDGET_MS);
    await run(paths(keys));
  });

  it('query strings: repeated keys, nested a[b][c], prototype keys, 10k parameters, huge values', async function () {
    this.timeout(SUITE_BUDGET_MS);
    await run(queries(keys));
  });

  it('headers: huge and odd Authorization, non-ASCII bytes, duplicates, If-None-Match monsters, X-Request-Id', async function () {
    this.timeout(SUITE_BUDGET_MS);
    await run(headers(keys));
  });

  it('bodies: invalid JSON and UTF-8, 10k-deep JSON, huge arrays and variables, deep/aliased/batched GraphQL, content types, GET /graphql', async function () {
    this.timeout(SUITE_BUDGET_MS);
    await run(bodies(keys));
    // Nothing hostile changed state: no tenant made over GET, no extension with a 5000-deep schema.
    const tenants = (await host.gqlOk<{ tenants: Array<{ name: string }> }>('{ tenants { name } }')).tenants.map((t) => t.name);
    expect(tenants).not.to.include('get-made');
    expect(await host.gqlOk('{ adminTool(toolId: "ext.zz_hostile_deep") { toolId } }')).to.deep.equal({ adminTool: null });
  });

  it('malformed HTTP over raw TCP: request lines, binary noise, bad chunked encoding, smuggling, pipelining', async function () {
    this.timeout(SUITE_BUDGET_MS);
    await run(malformed(keys));
  });

  // Time is reported, not asserted (issue 13): every exchange is bounded by its own socket timeout, so a hang fails
  // as that input's failure, and mocha's timeout bounds the whole.
  it('the process survives with bounded memory', async () => {
    await healthy('all inputs');
    const grown = process.memoryUsage().rss - rssBefore;
    const elapsed = Date.now() - started;
    console.log(`      hostile inputs: ${stats.tried} tried, ${stats.c4xx} 4xx, ${stats.c2xx3xx} 2xx/3xx, ${stats.c5xx} 5xx`);
    console.log(`      [${database.name}] seed ${SEED}; ${[...byCategory].map(([c, n]) => `${c} ${n}`).join(', ')}; ${stats.closed} closed without an HTTP answer, ` +
      `${stats.c503} 503; ${validated} catalog 200 bodies validated with ajv; slowest ${stats.slowest.ms} ms (${stats.slowest.label}); RSS growth ${(grown / 1048576).toFixed(1)} MB; ${(elapsed / 1000).toFixed(1)} s`);
    // Error-level log lines the inputs caused (an unexpected error is logged: docs/errors.md). Reported, not asserted.
    const errors = host.logs.slice(logsBefore).map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string } }).filter((l) => l.level >= 50);
    const distinct = [...new Set(errors.map((e) => `${e.msg}: ${e.err?.message ?? ''}`))];
    console.log(`      [${database.name}] ${errors.length} error-level log lines${distinct.length ? `: ${distinct.join(' | ')}` : ''}`);
    expect(stats.c5xx).to.equal(0);
    expect(grown, 'RSS growth').to.be.lessThan(RSS_BOUND);
  });
});
