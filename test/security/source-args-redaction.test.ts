/**
 * Issue 11, red-team follow-up F4: `--password=<v>`, `--api-key <v>` and `--token=<v>` in a source's command line
 * were shown as given in `sources.args` and in the `registerSource` audit row, which the tenant admin of a
 * tenant-scoped source reads. Pins: the values are redacted in both; the flags stay readable.
 */
import { expect } from 'chai';
import { forEachDatabase } from '../helpers/databases';
import { aTenantWithKey, hostPerSuite } from '../helpers/test-host';

const SECRETS = ['Sup3rS3cretPassw0rd', 'AbCdEf123456XyZ', 'tok-9f8e7d6c5b4a39281706'];

forEachDatabase('issue 11 red team F4: secrets typed into a source\'s arguments', (database) => {
  const suite = hostPerSuite(database, { startSources: false });

  it('are redacted in sources.args and in the audit rows a host or tenant admin reads', async () => {
    const host = suite.host;
    const t = await aTenantWithKey(host, 'args-tenant', 'tenant-admin');
    const args = ['server.js', `--password=${SECRETS[0]}`, '--api-key', SECRETS[1], `--token=${SECRETS[2]}`, '--port', '8080', '-v'];
    await host.gqlOk('mutation($i: SourceInput!) { registerSource(input: $i) { name } }', { i: { name: 'args-src', transport: 'stdio', command: 'node', args, enabled: false, syncIntervalSeconds: 0, tenantId: t.tenantId } });
    const shown = await host.gqlOk<{ source: { args: string[] } }>('{ source(name: "args-src") { args } }');
    expect(shown.source.args).to.have.length(args.length);
    expect(shown.source.args.slice(0, 3)).to.deep.equal(['server.js', '--password=[redacted]', '--api-key']);
    expect(shown.source.args.slice(5)).to.deep.equal(['--port', '8080', '-v']);
    const adminAudit = await host.request('POST', '/graphql', host.adminKey, JSON.stringify({ query: '{ auditLog(first: 100) { action after } }' }));
    const tenantAudit = await host.request('POST', '/graphql', t.key, JSON.stringify({ query: '{ auditLog(first: 100) { action after } }' }));
    expect(tenantAudit.text, 'the tenant admin reads the registerSource row').to.include('registerSource');
    for (const text of [JSON.stringify(shown), adminAudit.text, tenantAudit.text]) for (const s of SECRETS) expect(text).not.to.include(s);
  });
});
