/**
 * The REST facade matches its paths as the Express router it replaced did (issue 6 moved it in front of
 * Express): `/tools` and `/capabilities` case-insensitively with one optional trailing slash, toolIds exactly.
 * `view` is read like Express's query parser read it.
 */
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { aGrant, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';

forEachDatabase('REST routing', (database) => {
  const suite = hostPerSuite(database, {}, async (h) => {
    await anExtension(h, { name: 'alpha', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
  });
  let key = '';
  before(async () => {
    const t = await aTenantWithKey(suite.host, 'routing');
    await aGrant(suite.host, { tenantId: t.tenantId, toolPattern: '*' });
    key = t.key;
  });
  const get = (path: string) => suite.host.get(path, key);

  it('serves /tools, /tools/{toolId} and /capabilities with any case of the fixed part and one trailing slash', async () => {
    const list = (await get('/tools')).text;
    const one = (await get('/tools/ext.alpha')).text;
    for (const p of ['/tools/', '/TOOLS', '/Tools/']) expect((await get(p)).text, p).to.equal(list);
    for (const p of ['/tools/ext.alpha/', '/TOOLS/ext.alpha', '/tools/ext%2Ealpha']) expect((await get(p)).text, p).to.equal(one);
    for (const p of ['/capabilities/', '/CAPABILITIES']) expect((await get(p)).status, p).to.equal(200);
  });

  it('keeps toolIds case-sensitive, and other paths are not the catalog', async () => {
    const unknown = await get('/tools/ext.nope');
    expect(unknown.status).to.equal(404);
    expect((await get('/tools/EXT.ALPHA')).text).to.equal(unknown.text); // an unknown id, like any other
    for (const p of ['/tools//', '/tools/ext.alpha/x', '/toolsx', '/tool']) {
      const r = await get(p);
      expect(r.status, p).to.equal(404);
      expect(JSON.parse(r.text), p).to.have.nested.property('error.code', 'NOT_FOUND');
    }
  });

  it('reads view as the query parser always did: decoded keys count, a repeated view is no view', async () => {
    const compact = (await get('/tools?view=compact')).text;
    const standard = (await get('/tools')).text;
    expect(compact).not.to.equal(standard);
    expect((await get('/tools?vi%65w=compact')).text).to.equal(compact);
    expect((await get('/tools?view=compact&view=compact')).text).to.equal(standard);
    expect((await get('/tools?view[x]=compact')).text).to.equal(standard);
  });
});
