/**
 * Issue 19 item 1: a config file never silently undoes anyone's work. Each ownership rule of
 * services/config-apply.service.ts on both databases: the file adds; the API adds; the file removes only with
 * prune; an API classification of a file tool survives a restart; a second file does not undo the first.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { loadConfigFile } from '../../src/config/config-file';
import { planLines } from '../../src/services/config-apply.service';
import { forEachDatabase } from '../helpers/databases';
import { aGrant, aTenantWithKey, startHost } from '../helpers/test-host';

const dir = mkdtempSync(join(tmpdir(), 'toolcat-own-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const ext = (name: string, tier = 'read') =>
  `  - name: ${name}\n    description: ${name} tool\n    safetyTier: ${tier}\n    replayPolicy: idempotent\n    egress: none\n    inputSchema: { type: object }\n`;
const EXTENSIONS = file('extensions.yaml', `extensions:\n${ext('clock')}${ext('calc', 'pure').replace('idempotent', 'deterministic')}`);
const MCP_ONLY = file('mcp-only.yaml', 'mcpServers:\n  - name: files\n    transport: stdio\n    command: /bin/true\n    syncIntervalSeconds: 0\n');
const CLASSIFY = 'mutation($id: String!) { classifyTool(input: { toolId: $id, safetyTier: "write", replayPolicy: "non-idempotent", egress: "open" }) { toolId } }';

type Listed = Array<{ toolId: string; safetyTier: string }>;

forEachDatabase('config ownership (issue 19)', (database) => {
  it('the file adds; a file with only MCP servers keeps the earlier file\'s extensions unless pruned', async () => {
    const { db, drop } = await database.create();
    try {
      let host = await startHost(db, { configFile: EXTENSIONS });
      const t = await aTenantWithKey(host, 'own');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
      expect(((await host.get('/tools', t.key)).json() as Listed).map((d) => d.toolId)).to.deep.equal(['ext.calc', 'ext.clock']);
      await host.close();
      // Another file: not applied at start (the database has the first one applied), and nothing is removed.
      host = await startHost(db, { configFile: MCP_ONLY }, false);
      expect(((await host.get('/tools', t.key)).json() as Listed).map((d) => d.toolId)).to.deep.equal(['ext.calc', 'ext.clock']);
      expect(host.logs.join('')).to.match(/differs from the config file this database has applied/);
      // Applied on purpose (as `toolcat config apply` does): added, removals listed and kept without prune.
      const loaded = loadConfigFile(MCP_ONLY);
      const plan = await host.app.services.config.plan(loaded);
      expect(plan.add.map((i) => i.id)).to.deep.equal(['files']);
      expect(plan.remove.map((i) => i.id)).to.deep.equal(['ext.calc', 'ext.clock']);
      expect(planLines(plan).join('\n')).to.match(/- remove extension ext\.calc: no longer in the file \(kept: removals need --prune\)/);
      await host.app.services.config.apply(loaded, { by: 'test', force: true });
      expect(((await host.get('/tools', t.key)).json() as Listed).map((d) => d.toolId)).to.deep.equal(['ext.calc', 'ext.clock']);
      const recorded = (await host.app.dataSource.query('SELECT hash, file FROM config_application')) as Array<{ hash: string; file: string }>;
      expect(recorded, 'the database records the applied file').to.deep.equal([{ hash: loaded.hash, file: MCP_ONLY }]);
      await host.close();
      // Restarting with the extensions file (forced: another file is applied) keeps the MCP-only file's source.
      host = await startHost(db, { configFile: EXTENSIONS, configApply: { force: true, prune: false } }, false);
      expect(((await host.app.dataSource.query('SELECT name FROM mcp_source')) as Array<{ name: string }>).map((r) => r.name)).to.deep.equal(['files']);
      expect(host.logs.join('')).to.match(/- remove mcp-server files: no longer in the file \(kept: removals need --prune\)/);
      await host.app.services.config.apply(loaded, { by: 'test', force: true });
      const pruned = await host.app.services.config.apply(loaded, { by: 'test', force: true, prune: true });
      expect(pruned.pruned).to.equal(true);
      expect(((await host.get('/tools', t.key)).json() as Listed).map((d) => d.toolId)).to.deep.equal([]);
      await host.close();
    } finally {
      await drop();
    }
  });

  it('the API adds: an extension made through GraphQL is never removed or changed by a file; a file entry naming it is a conflict', async () => {
    const { db, drop } = await database.create();
    try {
      const host = await startHost(db);
      await host.gqlOk('mutation { upsertHostExtension(input: { name: "mine", inputSchema: { type: "object" }, safetyTier: "read", replayPolicy: "idempotent", egress: "none" }) { toolId } }');
      const owners = await host.gqlOk<{ adminTools: Array<{ toolId: string; owner: string }> }>('{ adminTools { toolId owner } }');
      expect(owners.adminTools).to.deep.include({ toolId: 'ext.mine', owner: 'api' });
      await host.app.services.config.apply(loadConfigFile(EXTENSIONS), { by: 'test', prune: true });
      const after = await host.gqlOk<{ adminTools: Array<{ toolId: string; owner: string }> }>('{ adminTools { toolId owner } }');
      expect(after.adminTools.map((x) => [x.toolId, x.owner]).sort()).to.deep.equal([['ext.calc', 'config'], ['ext.clock', 'config'], ['ext.mine', 'api']]);
      const clash = loadConfigFile(file('clash.yaml', `extensions:\n${ext('clock')}${ext('mine', 'exec')}`));
      const plan = await host.app.services.config.plan(clash);
      expect(plan.conflicts).to.deep.equal([{ at: '/extensions/1/name', problem: 'ext.mine exists and is owned by the API (made through GraphQL); delete it there or rename this entry' }]);
      const err = await host.app.services.config.apply(clash, { by: 'test', force: true, prune: true }).then(() => null, (e: Error) => e);
      expect(err?.message).to.match(/at \/extensions\/1\/name: ext\.mine exists and is owned by the API/);
      const still = await host.gqlOk<{ adminTools: Array<{ toolId: string }> }>('{ adminTools { toolId } }');
      expect(still.adminTools.map((x) => x.toolId).sort(), 'nothing applied').to.deep.equal(['ext.calc', 'ext.clock', 'ext.mine']);
      await host.close();
    } finally {
      await drop();
    }
  });

  it('a classification made through GraphQL for a config tool survives the next start, and is reported as drift', async () => {
    const { db, drop } = await database.create();
    try {
      let host = await startHost(db, { configFile: EXTENSIONS });
      await host.gqlOk(CLASSIFY, { id: 'ext.clock' });
      const t = await aTenantWithKey(host, 'cls');
      await aGrant(host, { tenantId: t.tenantId, toolPattern: '*' });
      await host.close();
      host = await startHost(db, { configFile: EXTENSIONS });
      const served = (await host.get('/tools/ext.clock', t.key)).json() as { safetyTier: string; replayPolicy: string };
      expect(served.safetyTier, 'the API classification is kept across a restart').to.equal('write');
      const plan = await host.app.services.config.plan(loadConfigFile(EXTENSIONS));
      expect(plan.drift.map((d) => d.id)).to.deep.equal(['ext.clock']);
      expect(plan.drift[0].what).to.match(/^classification write\/non-idempotent\/open set through the API by principal:.* the file says read\/idempotent\/none; kept$/);
      expect(host.logs.join('')).to.match(/! drift extension ext\.clock/);
      const tools = await host.gqlOk<{ adminTools: Array<{ toolId: string; owner: string; classificationOwner: string | null }> }>('{ adminTools { toolId owner classificationOwner } }');
      expect(tools.adminTools.find((x) => x.toolId === 'ext.clock')).to.deep.equal({ toolId: 'ext.clock', owner: 'config', classificationOwner: 'api' });
      // The file's word wins when the file changes that classification, or on --reset-drift.
      await host.app.services.config.apply(loadConfigFile(EXTENSIONS), { by: 'test', resetDrift: true });
      expect(((await host.get('/tools/ext.clock', t.key)).json() as { safetyTier: string }).safetyTier).to.equal('read');
      await host.close();
    } finally {
      await drop();
    }
  });

  it('a config tool deleted through the API is not re-created by the same file (drift), but is when the file changes it', async () => {
    const { db, drop } = await database.create();
    try {
      let host = await startHost(db, { configFile: EXTENSIONS });
      await host.gqlOk('mutation { deleteHostExtension(toolId: "ext.calc") }');
      await host.close();
      host = await startHost(db, { configFile: EXTENSIONS });
      const ids = async () => (await host.gqlOk<{ adminTools: Array<{ toolId: string }> }>('{ adminTools { toolId } }')).adminTools.map((x) => x.toolId).sort();
      expect(await ids()).to.deep.equal(['ext.clock']);
      const plan = await host.app.services.config.plan(loadConfigFile(EXTENSIONS));
      expect(plan.drift).to.deep.equal([{ kind: 'extension', id: 'ext.calc', at: '/extensions/1', what: 'deleted through the API; not re-created (apply with --reset-drift to re-create it)' }]);
      const changed = loadConfigFile(file('changed.yaml', `extensions:\n${ext('clock')}${ext('calc', 'read')}`));
      const applied = await host.app.services.config.apply(changed, { by: 'test', force: true });
      expect(applied.plan.add.map((i) => i.id)).to.deep.equal(['ext.calc']);
      expect(await ids()).to.deep.equal(['ext.calc', 'ext.clock']);
      await host.close();
    } finally {
      await drop();
    }
  });
});
