/** Untrusted request shapes against the REST facade: never a 5xx, never another tenant's data. */
import { request as httpRequest } from 'node:http';
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, anExtension, startHost } from '../helpers/test-host';

function raw(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

forEachDatabase('hostile requests', (database) => {
  let host: TestHost;
  let drop: () => Promise<void>;
  let key: string;
  before(async () => {
    const created = await database.create();
    drop = created.drop;
    host = await startHost(created.db);
    const other = await aTenantWithKey(host, 'other');
    await anExtension(host, { name: 'secret_tool', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none', tenantId: other.tenantId });
    await anExtension(host, { name: 'calculator', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' });
    const t = await aTenantWithKey(host, 'me');
    await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
    key = t.key;
  });
  after(async () => {
    await host?.close();
    await drop?.();
  });

  const PATHS = [
    '/tools/%E0%A4%A', '/tools/%', '/tools/%00', '/tools/..%2F..%2Fetc%2Fpasswd', '/tools/ext.secret_tool', '/tools/ext.secret_tool%00',
    '/tools/EXT.SECRET_TOOL', `/tools/${'a'.repeat(5000)}`, `/tools/${'%41'.repeat(1500)}`, '/tools/%F0%9F%92%A9', '/tools/ext.calculator/',
    '/tools/ext.calculator/extra', '/tools?view=%E0%A4%A', '/tools?view[$ne]=x', `/tools?${'a=1&'.repeat(2000)}`, '/tools?view=compact%00',
    '/tools/%2e%2e', '/tools/ext.*', "/tools/ext.' OR '1'='1", '/tools/ext.%25', '/tools/ext._', '/tools//ext.calculator',
  ];

  it(`never answers 5xx and never serves another tenant's tool (${PATHS.length} paths)`, async () => {
    for (const p of PATHS) {
      const r = await raw(host.url, p.replace(/ /g, '%20').replace(/'/g, '%27'), { authorization: `Bearer ${key}` });
      expect(r.status, p).to.be.oneOf([200, 400, 404]);
      expect(r.body, p).not.to.include('secret_tool"');
      if (r.status !== 200) expect(() => JSON.parse(r.body), p).not.to.throw();
    }
    expect((await raw(host.url, '/tools/ext._', { authorization: `Bearer ${key}` })).status).to.equal(404); // `_` is no wildcard
    expect((await raw(host.url, `/tools/${'a'.repeat(5000)}`, { authorization: `Bearer ${key}` })).status).to.equal(400);
  });

  it('odd Authorization headers are 401, never 5xx', async () => {
    for (const auth of ['Bearer', 'Bearer ', 'Bearer\t' + key, 'Basic ' + key, `Bearer ${key} extra`, `Bearer ${'x'.repeat(10000)}`, 'Bearer \u00ff\u00fe', `Bearer ${key.slice(0, -1)}`]) {
      const r = await raw(host.url, '/tools', { authorization: auth });
      expect(r.status, auth.slice(0, 30)).to.equal(401);
    }
  });

  it('malformed GraphQL bodies are 4xx', async () => {
    for (const body of ['{', '[]', '{"query": 5}', '{"query": "{ tools { appliedView } }", "variables": "x"}', 'null']) {
      const r = await host.request('POST', '/graphql', key, body);
      expect(r.status, body).to.be.within(400, 499);
    }
  });
});
