/**
 * Issue 15, red-team findings on the MCP face and their siblings, each pinned by a test that failed on the code
 * before the fix: forged cursors growing memory, batches past the request budget, one tenant taking every session,
 * deeply nested bodies holding the event loop (also on the call endpoint and /graphql), trickled bodies holding
 * connections, duplicate names on a source endpoint, the RFC 9728 document naming any Host, several Host headers.
 */
import { connect as tcpConnect } from 'node:net';
import { expect } from 'chai';
import { DEFAULT_MCP_SETTINGS } from '../../src/config/mcp-settings';
import { testConfig } from '../../src/config/config';
import { McpToolListCache, pageOf } from '../../src/mcp-face/tool-list';
import { forEachDatabase } from '../helpers/databases';
import { aGrant, aPrincipal, aTenantWithKey, anExtension, hostPerSuite } from '../helpers/test-host';
import { rawRequest as raw } from '../helpers/raw-http';

const MCP = { ...DEFAULT_MCP_SETTINGS, maxSessionsPerTenant: 3, bodyDeadlineMs: 300 };


const descriptor = (toolId: string, name: string) => ({ toolId, name, description: 'd', source: 'mcp', inputSchema: { type: 'object' }, annotations: {}, safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });

describe('MCP face tool lists (red-team findings 1 and 6)', () => {
  it('forged cursors are served but never kept: a list keeps at most its own pages', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `mcp.s.t${String(i).padStart(3, '0')}`);
    const body = JSON.stringify(ids.map((id) => descriptor(id, id.slice(6))));
    const list = new McpToolListCache(1 << 26).of('"e1"', { toString: () => body }, null);
    for (let i = 0; i < 300; i++) pageOf(list, `0${String(i).padStart(4, '0')}`, 10);
    let after: string | null = null;
    for (;;) {
      const page = pageOf(list, after, 10).result as { tools: Array<{ name: string }>; nextCursor?: string };
      if (!page.nextCursor) break;
      after = page.tools[page.tools.length - 1].name;
    }
    expect(list.pages.size).to.be.at.most(4);
  });

  it('on a source endpoint, an upstream name starting with "_" cannot take another tool\'s name', () => {
    const body = JSON.stringify([descriptor('mcp.srca._aaunder', '_aaunder'), descriptor('mcp.srca.mcp.srca._aaunder', 'mcp.srca._aaunder')]);
    const list = new McpToolListCache(1 << 26).of('"e2"', { toString: () => body }, 'srca');
    const names = list.tools.map((t) => t.name);
    expect(new Set(names).size).to.equal(2);
    expect(list.toolIdByName.get('mcp.srca._aaunder')).to.equal('mcp.srca.mcp.srca._aaunder');
    expect(list.toolIdByName.get(names.find((n) => n !== 'mcp.srca._aaunder')!)).to.equal('mcp.srca._aaunder');
  });
});

forEachDatabase('MCP face under hostile input (issue 15 red team)', (database) => {
  // A budget that does not refill within a test: what a batch costs is counted exactly.
  const security = { ...testConfig().security, rateLimit: { capacity: 30, refillPerSecond: 0.001, maxKeys: 10_000 } };
  const s = hostPerSuite(database, { mcp: MCP, security });
  const hdr = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1', ...extra });
  const init = (v = '2025-11-25') => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'x', version: '1' } } });

  it('a JSON-RPC batch costs one request-budget token per message', async () => {
    const t = await aTenantWithKey(s.host, 'batch');
    const opened = await raw(s.host.url, '/mcp', 'POST', hdr(t.key), init('2025-03-26'));
    const sh = hdr(t.key, { 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-03-26' });
    // The budget is 30: initialize took 1, the first batch of 20 takes 20, a second one does not fit.
    const batch = JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: 10 + i, method: 'ping' })));
    const first = await raw(s.host.url, '/mcp', 'POST', sh, batch);
    expect(first.status, first.text).to.equal(200);
    const huge = await raw(s.host.url, '/mcp', 'POST', sh, JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: 100 + i, method: 'ping' }))));
    expect(huge.status).to.equal(400);
    const second = await raw(s.host.url, '/mcp', 'POST', sh, batch);
    expect(second.status, 'a second batch of 20 is past the budget').to.equal(429);

  });

  it('one tenant cannot take every session: past its bound its principals get 429, another tenant still opens one', async () => {
    const t = await aTenantWithKey(s.host, 'greedy');
    const keys = [t.key, (await aPrincipal(s.host, t.tenantId, 'greedy-2')).key, (await aPrincipal(s.host, t.tenantId, 'greedy-3')).key, (await aPrincipal(s.host, t.tenantId, 'greedy-4')).key];
    const statuses = [];
    for (const k of keys) statuses.push((await raw(s.host.url, '/mcp', 'POST', hdr(k), init())).status);
    expect(statuses).to.deep.equal([200, 200, 200, 429]);
    const other = await aTenantWithKey(s.host, 'modest');
    expect((await raw(s.host.url, '/mcp', 'POST', hdr(other.key), init())).status).to.equal(200);
  });

  it('a deeply nested body is refused before it is parsed, on /mcp, the call endpoint, POST /tools/search and /graphql', async () => {
    const t = await aTenantWithKey(s.host, 'nesting');
    await anExtension(s.host, { name: 'nest_target', safetyTier: 'read', replayPolicy: 'idempotent', egress: 'none' });
    await aGrant(s.host, { tenantId: t.tenantId, toolPattern: 'ext.*' });
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const mcp = await raw(s.host.url, '/mcp', 'POST', hdr(t.key), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":${deep}}}`);
    expect(mcp.status).to.equal(400);
    expect(mcp.text).to.include('nested more than');
    const call = await raw(s.host.url, '/tools/ext.nest_target/calls', 'POST', hdr(t.key), `{"arguments":{"x":${deep}}}`);
    expect(call.status).to.equal(400);
    expect(call.text).to.include('nested more than');
    const search = await raw(s.host.url, '/tools/search', 'POST', hdr(t.key), `{"query":"x","view":${deep}}`);
    expect(search.status).to.equal(400);
    expect(search.text).to.include('nested more than');
    const gql = await raw(s.host.url, '/graphql', 'POST', hdr(s.host.adminKey), `{"query":"{ capabilities { hostVersion } }","variables":{"x":${deep}}}`);
    expect(gql.status).to.equal(400);
    expect(gql.text).to.include('nested more than');
  });

  it('a body trickled in past the deadline is cut (408) on /mcp and the call endpoint', async () => {
    const t = await aTenantWithKey(s.host, 'slowloris');
    const u = new URL(s.host.url);
    for (const path of ['/mcp', '/tools/ext.whatever/calls']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const sock = tcpConnect(Number(u.port), u.hostname, () => {
          sock.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`);
        });
        let text = '';
        sock.setEncoding('utf8');
        sock.on('data', (c: string) => (text += c));
        sock.on('close', () => resolve(text));
        sock.on('error', reject);
        setTimeout(() => sock.destroy(), 5000).unref();
      });
      expect(answer.split('\r\n')[0], path).to.match(/^HTTP\/1\.1 408/);
    }
  });

  it('the RFC 9728 document is only served for allowed Hosts, and says it varies by Host', async () => {
    const ok = await raw(s.host.url, '/.well-known/oauth-protected-resource/mcp', 'GET', { host: '127.0.0.1' });
    expect(ok.status).to.equal(200);
    expect(ok.headers.vary).to.equal('Host');
    expect((await raw(s.host.url, '/.well-known/oauth-protected-resource/mcp', 'GET', { host: 'evil.example:443' })).status).to.equal(403);
  });

  it('several Host headers are refused', async () => {
    const t = await aTenantWithKey(s.host, 'two-hosts');
    const r = await raw(s.host.url, '/mcp', 'POST', ['Host', '127.0.0.1', 'Host', 'evil.example', 'Authorization', `Bearer ${t.key}`, 'Content-Type', 'application/json', 'Accept', 'application/json, text/event-stream'], init());
    expect(r.status).to.equal(400);
  });
});
