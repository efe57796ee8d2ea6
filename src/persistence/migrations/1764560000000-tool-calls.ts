import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** Issue 14: the call log (with idempotency keys bound to a principal) and host-extension implementations. */
export class ToolCalls1764560000000 implements MigrationInterface {
  name = 'ToolCalls1764560000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'tool_call',
        columns: [
          { name: 'call_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'scope', type: 'varchar', length: '64' },
          { name: 'tenant_id', type: 'varchar', length: '36' },
          { name: 'principal_id', type: 'varchar', length: '64' },
          { name: 'principal_kind', type: 'varchar', length: '16' },
          { name: 'tool_id', type: 'varchar', length: '200' },
          { name: 'safety_tier', type: 'varchar', length: '8' },
          { name: 'replay_policy', type: 'varchar', length: '16' },
          { name: 'egress', type: 'varchar', length: '16' },
          { name: 'idempotency_key', type: 'varchar', length: '256', isNullable: true },
          { name: 'request_hash', type: 'varchar', length: '64' },
          { name: 'arguments', type: 'text', isNullable: true },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'outcome', type: 'varchar', length: '24', isNullable: true },
          { name: 'answer', type: 'text', isNullable: true },
          { name: 'argument_bytes', type: 'integer' },
          { name: 'result_bytes', type: 'integer', isNullable: true },
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'started_at', type: 'varchar', length: '32' },
          { name: 'finished_at', type: 'varchar', length: '32', isNullable: true },
          { name: 'duration_ms', type: 'integer', isNullable: true },
          { name: 'request_id', type: 'varchar', length: '128', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'idx_tool_call_idempotency', columnNames: ['scope', 'idempotency_key'], isUnique: true, where: 'idempotency_key IS NOT NULL' }),
          new TableIndex({ name: 'idx_tool_call_tenant', columnNames: ['tenant_id'] }),
          new TableIndex({ name: 'idx_tool_call_tool', columnNames: ['tool_id'] }),
          new TableIndex({ name: 'idx_tool_call_started', columnNames: ['started_at'] }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'extension_implementation',
        columns: [
          { name: 'tool_id', type: 'varchar', length: '200', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'url', type: 'text' },
          { name: 'secret', type: 'text' },
          { name: 'timeout_ms', type: 'integer', isNullable: true },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('extension_implementation');
    await q.dropTable('tool_call');
  }
}
