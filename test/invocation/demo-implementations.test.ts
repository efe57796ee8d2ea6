/**
 * The demo's extension implementations (src/cli/demo-implementations.ts) called through a real toolcat, as `serve
 * --demo` wires them (demo/extensions.yaml, the endpoint's URL and secret from the environment), over real HTTP on
 * loopback. Issue 14 item 4: the demo's file and shell tools stay confined. Red-team pass on issue 14: a write the
 * file system refuses threw inside the endpoint's request callback, in toolcat's own process, and ended it; and every
 * tenant shared one workspace (files and the e-mail outbox), named by its absolute host path in send_email's result.
 */
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { DEFAULT_CALL_SETTINGS } from '../../src/config/call-settings';
import { DEMO_EXTENSIONS_FILE } from '../../src/cli/demo';
import { type DemoImplementations, startDemoImplementations } from '../../src/cli/demo-implementations';
import { signedHeaders } from '../../src/invocation/signature';
import { forEachDatabase } from '../helpers/databases';
import { type TestHost, aGrant, aTenantWithKey, startHost } from '../helpers/test-host';

type Answer = { status: number; body: { isError?: boolean; content?: Array<{ text: string }>; structuredContent?: Record<string, unknown> }; text: string };

forEachDatabase("the demo's extension implementations (issue 14 item 4)", (database) => {
  let host: TestHost;
  let impl: DemoImplementations;
  let drop: () => Promise<void>;
  let ta: { tenantId: string; key: string };
  let tb: { tenantId: string; key: string };

  const call = async (tool: string, key: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = await fetch(`${host.url}/tools/ext.${tool}/calls`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ arguments: args }) });
    const text = await r.text();
    return { status: r.status, body: JSON.parse(text) as Answer['body'], text };
  };
  const textOf = (a: Answer) => a.body.content?.map((c) => c.text).join('') ?? '';
  /** No host path in what a caller reads: neither the workspace nor the temporary directory it lives in. */
  const expectNoHostPath = (a: Answer) => {
    expect(a.text).not.to.include(impl.workspace);
    expect(a.text).not.to.include(tmpdir());
  };

  before(async function () {
    this.timeout(60000);
    const created = await database.create();
    drop = created.drop;
    impl = await startDemoImplementations();
    host = await startHost(created.db, {
      calls: { ...DEFAULT_CALL_SETTINGS, timeoutMs: 5000 },
      configFile: DEMO_EXTENSIONS_FILE,
      secretEnv: { TOOLCAT_DEMO_EXTENSIONS_URL: impl.url, TOOLCAT_DEMO_EXTENSIONS_SECRET: impl.secret },
    });
    ta = await aTenantWithKey(host, 'demo-a');
    tb = await aTenantWithKey(host, 'demo-b');
    await aGrant(host, { tenantId: ta.tenantId, toolPattern: 'ext.*' });
    await aGrant(host, { tenantId: tb.tenantId, toolPattern: 'ext.*' });
  });
  after(async () => {
    await host?.close();
    await impl?.close();
    await drop?.();
  });

  describe('a write the file system refuses is answered, and the endpoint keeps serving', () => {
    const refused: ReadonlyArray<[string, () => Promise<unknown>, string]> = [
      ['a name too long (ENAMETOOLONG)', async () => undefined, 'a'.repeat(300)],
      ['a path that is a directory (EISDIR)', () => call('write_file', ta.key, { path: 'sub/x.txt', content: 'x' }), 'sub'],
      ['a path under a file (mkdir refuses)', async () => undefined, 'README.txt/x'],
    ];
    for (const [what, setup, path] of refused) {
      it(`write_file to ${what}: a tool error naming no host path; the next call works`, async () => {
        await setup();
        const r = await call('write_file', ta.key, { path, content: 'x' });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.isError, r.text).to.equal(true);
        expect(textOf(r)).to.match(/^cannot write /);
        expectNoHostPath(r);
        const after = await call('calculator', ta.key, { expression: '1 + 1' });
        expect(after.body.structuredContent, after.text).to.deep.equal({ value: 2 });
      });
    }

    it('send_email into an outbox the tenant made a directory: a tool error naming no host path', async () => {
      await call('write_file', tb.key, { path: 'outbox.jsonl/x', content: 'x' });
      const r = await call('send_email', tb.key, { to: ['b@example.com'], subject: 's', body: 'b' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body.isError, r.text).to.equal(true);
      expectNoHostPath(r);
      expect((await call('calculator', tb.key, { expression: '2 * 3' })).body.structuredContent).to.deep.equal({ value: 6 });
    });
  });
  describe('each tenant has its own workspace (files and outbox)', () => {
    let a: { tenantId: string; key: string };
    let b: { tenantId: string; key: string };
    before(async () => {
      a = await aTenantWithKey(host, 'workspace-a');
      b = await aTenantWithKey(host, 'workspace-b');
      await aGrant(host, { tenantId: a.tenantId, toolPattern: 'ext.*' });
      await aGrant(host, { tenantId: b.tenantId, toolPattern: 'ext.*' });
    });

    it("a tenant reads its own files and never another's", async () => {
      expect((await call('write_file', a.key, { path: 'notes.txt', content: 'from a' })).body.isError).to.equal(false);
      const bReadsA = await call('read_file', b.key, { path: 'notes.txt' });
      expect(bReadsA.body.isError, bReadsA.text).to.equal(true);
      expect(bReadsA.text).not.to.include('from a');
      await call('write_file', b.key, { path: 'notes.txt', content: 'from b' });
      expect(textOf(await call('read_file', a.key, { path: 'notes.txt' }))).to.equal('from a');
      expect(textOf(await call('read_file', b.key, { path: 'notes.txt' }))).to.equal('from b');
      // Each workspace starts with the demo's README.
      expect(textOf(await call('read_file', b.key, { path: 'README.txt' }))).to.match(/toolcat demo workspace/);
    });

    it("send_email queues into the sender's own outbox, and its result names no host path", async () => {
      const sent = await call('send_email', a.key, { to: ['x@example.com'], subject: 'hi', body: 'a-private-body' });
      expect(sent.body.isError, sent.text).to.equal(false);
      expectNoHostPath(sent);
      expect(textOf(await call('read_file', a.key, { path: 'outbox.jsonl' }))).to.include('a-private-body');
      expect((await call('read_file', b.key, { path: 'outbox.jsonl' })).text).not.to.include('a-private-body');
    });
  });

  describe('the endpoint keeps tenants apart by the caller named in the signed request', () => {
    const post = (body: unknown) => {
      const raw = JSON.stringify(body);
      return fetch(impl.url, { method: 'POST', headers: { 'content-type': 'application/json', ...signedHeaders(impl.secret, raw, Date.now() / 1000) }, body: raw });
    };

    it('a call that names no tenant is refused and runs nothing', async () => {
      const r = await post({ callId: 'c1', toolId: 'ext.write_file', name: 'write_file', arguments: { path: 'orphan.txt', content: 'x' } });
      expect(r.status).to.equal(400);
      for (const dir of readdirSync(impl.workspace)) expect(existsSync(join(impl.workspace, dir, 'orphan.txt'))).to.equal(false);
    });

    it('a call no handler expected (arguments that cannot be read as text) is answered 500, not thrown', async () => {
      const caller = { tenantId: 'direct', principalKind: 'api-key', principalId: 'p' };
      // String() of an object whose toString is not a function throws; toolcat's schema check keeps this from run_shell
      // only while the extension declares command a string, so the endpoint must survive it on its own.
      const r = await post({ callId: 'c3', toolId: 'ext.run_shell', name: 'run_shell', arguments: { command: { toString: 1 } }, caller });
      expect(r.status).to.equal(500);
      expect(await r.text()).not.to.include(impl.workspace);
      const after = await post({ callId: 'c4', toolId: 'ext.calculator', name: 'calculator', arguments: { expression: '1' }, caller });
      expect(after.status).to.equal(200);
    });

    it('a tenant id is never a path: one with ../ gets a workspace like any other, inside the demo root', async () => {
      const caller = { tenantId: '../../escape', principalKind: 'api-key', principalId: 'p' };
      const r = await post({ callId: 'c2', toolId: 'ext.write_file', name: 'write_file', arguments: { path: 'x.txt', content: 'x' }, caller });
      expect(r.status).to.equal(200);
      expect(existsSync(resolve(impl.workspace, caller.tenantId))).to.equal(false);
      for (const dir of readdirSync(impl.workspace)) expect(dir).to.match(/^[0-9a-f]{32}$/);
    });
  });
});
