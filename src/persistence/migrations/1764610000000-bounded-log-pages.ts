import { type MigrationInterface, type QueryRunner, TableIndex } from 'typeorm';

/**
 * The admin logs are paged newest first, filtered by tenant, tool, outcome, action, target or source. Their
 * single-column indexes found the matching rows but not their order, so every page read and sorted all of them (at
 * 300,000 calls a tenant admin's page took 187-195 ms on SQLite, on the serving thread), and the abandoned-call sweep
 * read every call older than its cutoff (97-108 ms every 5 minutes). Each filter's index now carries the order (keys,
 * time, tie-break), and the sweep reads a partial index of the running calls only (test/persistence/
 * log-page-plans.test.ts). Written out here, not derived from the entities: a migration must not change when the code
 * does.
 */
export class BoundedLogPages1764610000000 implements MigrationInterface {
  name = 'BoundedLogPages1764610000000';

  async up(q: QueryRunner): Promise<void> {
    await q.dropIndex('tool_call', 'idx_tool_call_tenant');
    await q.dropIndex('tool_call', 'idx_tool_call_tool');
    await q.createIndices('tool_call', [
      // A tenant admin's pages always name the tenant: alone, with a tool, with an outcome.
      new TableIndex({ name: 'idx_tool_call_tenant_started', columnNames: ['tenant_id', 'started_at', 'call_id'] }),
      new TableIndex({ name: 'idx_tool_call_tenant_tool_started', columnNames: ['tenant_id', 'tool_id', 'started_at', 'call_id'] }),
      // An outcome is set when a call ends: a running call has none and is in neither outcome index.
      new TableIndex({ name: 'idx_tool_call_tenant_outcome_started', columnNames: ['tenant_id', 'outcome', 'started_at', 'call_id'], where: 'outcome IS NOT NULL' }),
      // A host admin's, across tenants.
      new TableIndex({ name: 'idx_tool_call_tool_started', columnNames: ['tool_id', 'started_at', 'call_id'] }),
      new TableIndex({ name: 'idx_tool_call_outcome_started', columnNames: ['outcome', 'started_at', 'call_id'], where: 'outcome IS NOT NULL' }),
      new TableIndex({ name: 'idx_tool_call_running', columnNames: ['started_at'], where: "status = 'running'" }),
    ]);
    await q.dropIndex('audit_log', 'idx_audit_tenant');
    await q.dropIndex('audit_log', 'idx_audit_action');
    await q.createIndices('audit_log', [
      new TableIndex({ name: 'idx_audit_tenant_at', columnNames: ['tenant_id', 'at', 'seq'] }),
      new TableIndex({ name: 'idx_audit_tenant_action_at', columnNames: ['tenant_id', 'action', 'at', 'seq'] }),
      new TableIndex({ name: 'idx_audit_action_at', columnNames: ['action', 'at', 'seq'] }),
      // target_id is text, but bounded when written (audit.ts auditTargetId: a PostgreSQL index row holds ~2.7 KB).
      new TableIndex({ name: 'idx_audit_target_at', columnNames: ['target_id', 'at', 'seq'] }),
    ]);
    await q.dropIndex('tool_change', 'idx_tool_change_source');
    await q.createIndices('tool_change', [
      new TableIndex({ name: 'idx_tool_change_source_at', columnNames: ['source_name', 'at', 'seq'] }),
      new TableIndex({ name: 'idx_tool_change_tool_at', columnNames: ['tool_id', 'at', 'seq'] }),
      new TableIndex({ name: 'idx_tool_change_at', columnNames: ['at', 'seq'] }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropIndex('tool_change', 'idx_tool_change_at');
    await q.dropIndex('tool_change', 'idx_tool_change_tool_at');
    await q.dropIndex('tool_change', 'idx_tool_change_source_at');
    await q.createIndex('tool_change', new TableIndex({ name: 'idx_tool_change_source', columnNames: ['source_name'] }));
    await q.dropIndex('audit_log', 'idx_audit_target_at');
    await q.dropIndex('audit_log', 'idx_audit_action_at');
    await q.dropIndex('audit_log', 'idx_audit_tenant_action_at');
    await q.dropIndex('audit_log', 'idx_audit_tenant_at');
    await q.createIndices('audit_log', [
      new TableIndex({ name: 'idx_audit_tenant', columnNames: ['tenant_id'] }),
      new TableIndex({ name: 'idx_audit_action', columnNames: ['action'] }),
    ]);
    await q.dropIndex('tool_call', 'idx_tool_call_running');
    await q.dropIndex('tool_call', 'idx_tool_call_outcome_started');
    await q.dropIndex('tool_call', 'idx_tool_call_tenant_outcome_started');
    await q.dropIndex('tool_call', 'idx_tool_call_tenant_tool_started');
    await q.dropIndex('tool_call', 'idx_tool_call_tool_started');
    await q.dropIndex('tool_call', 'idx_tool_call_tenant_started');
    await q.createIndices('tool_call', [
      new TableIndex({ name: 'idx_tool_call_tenant', columnNames: ['tenant_id'] }),
      new TableIndex({ name: 'idx_tool_call_tool', columnNames: ['tool_id'] }),
    ]);
  }
}
