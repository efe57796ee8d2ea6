/** Compact forms are computed once per schema version: rows made by another compactor version are redone at start. */
import { expect } from 'chai';
import { COMPACTOR_VERSION } from '../../src/catalog/compact';
import { forEachDatabase } from '../helpers/databases';
import { anExtension, startHost } from '../helpers/test-host';

forEachDatabase('compact form refresh', (database) => {
  it('recomputes rows whose compact key names another compactor version, and only those', async () => {
    const { db, drop } = await database.create();
    try {
      let host = await startHost(db, { startSources: false });
      await anExtension(host, { name: 'keep', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } } });
      await anExtension(host, { name: 'redo', safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none', inputSchema: { type: 'object', properties: { b: { oneOf: [{ type: 'string' }, { type: 'null' }] } } } });
      const before = (await host.app.dataSource.query('SELECT tool_id, compact_schema, compact_key, row_hash FROM tool ORDER BY tool_id')) as Array<Record<string, string>>;
      await host.app.dataSource.query(`UPDATE tool SET compact_schema = '{"type":"object","properties":{}}', compact_key = 'x:0.0.0-old', row_hash = 'old' WHERE tool_id = 'ext.redo'`);
      await host.close();
      host = await startHost(db, { startSources: false }, false);
      const after = (await host.app.dataSource.query('SELECT tool_id, compact_schema, compact_key, row_hash FROM tool ORDER BY tool_id')) as Array<Record<string, string>>;
      expect(after).to.deep.equal(before);
      expect(after.every((r) => r.compact_key.endsWith(`:${COMPACTOR_VERSION}`))).to.equal(true);
      expect(host.logs.join('')).to.include('compact view recomputed');
      await host.close();
    } finally {
      await drop();
    }
  });
});
