import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex } from 'typeorm';

/** MCP sources, their write-only secrets, upstream tools as received, change history, approved definitions. */
export class AddMcpSources1764470000000 implements MigrationInterface {
  name = 'AddMcpSources1764470000000';

  async up(q: QueryRunner): Promise<void> {
    const at = (name: string, nullable = false) => ({ name, type: 'varchar', length: '32', isNullable: nullable });
    await q.createTable(
      new Table({
        name: 'mcp_source',
        columns: [
          { name: 'name', type: 'varchar', length: '32', isPrimary: true },
          { name: 'transport', type: 'varchar', length: '8' },
          { name: 'command', type: 'text', isNullable: true },
          { name: 'args', type: 'text' },
          { name: 'public_url', type: 'text', isNullable: true },
          { name: 'tenant_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'drift_policy', type: 'varchar', length: '16' },
          { name: 'sync_interval_seconds', type: 'integer' },
          { name: 'enabled', type: 'boolean' },
          { name: 'origin', type: 'varchar', length: '16' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'last_error', type: 'text', isNullable: true },
          at('last_sync_at', true),
          at('last_success_at', true),
          { name: 'tool_count', type: 'integer' },
          { name: 'quarantined_count', type: 'integer' },
          at('created_at'),
        ],
        foreignKeys: [{ columnNames: ['tenant_id'], referencedTableName: 'tenant', referencedColumnNames: ['id'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'mcp_source_secret',
        columns: [
          { name: 'source_name', type: 'varchar', length: '32', isPrimary: true },
          { name: 'env', type: 'text' },
          { name: 'url', type: 'text', isNullable: true },
          { name: 'headers', type: 'text' },
        ],
        foreignKeys: [{ columnNames: ['source_name'], referencedTableName: 'mcp_source', referencedColumnNames: ['name'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'upstream_tool',
        columns: [
          { name: 'key', type: 'varchar', length: '64', isPrimary: true },
          { name: 'source_name', type: 'varchar', length: '32' },
          { name: 'name', type: 'text' },
          { name: 'tool_id', type: 'varchar', length: '200', isNullable: true },
          { name: 'raw', type: 'text' },
          { name: 'definition_hash', type: 'varchar', length: '64' },
          { name: 'quarantine_reason', type: 'text', isNullable: true },
          at('first_seen_at'),
          at('last_seen_at'),
        ],
        indices: [new TableIndex({ name: 'idx_upstream_source', columnNames: ['source_name'] })],
        foreignKeys: [{ columnNames: ['source_name'], referencedTableName: 'mcp_source', referencedColumnNames: ['name'], onDelete: 'CASCADE' }],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool_change',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'seq', type: 'integer' },
          { name: 'source_name', type: 'varchar', length: '32' },
          { name: 'tool_name', type: 'text' },
          { name: 'tool_id', type: 'varchar', length: '200', isNullable: true },
          { name: 'kind', type: 'varchar', length: '16' },
          { name: 'old_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'new_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'detail', type: 'text', isNullable: true },
          at('at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_tool_change_seq', columnNames: ['seq'] }),
          new TableIndex({ name: 'idx_tool_change_source', columnNames: ['source_name'] }),
        ],
      }),
    );
    // The definition a classification was given for: a changed definition no longer carries it (drift review).
    await q.addColumn('tool_classification', new TableColumn({ name: 'approved_hash', type: 'varchar', length: '64', isNullable: true }));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('tool_classification', 'approved_hash');
    for (const t of ['tool_change', 'upstream_tool', 'mcp_source_secret', 'mcp_source']) await q.dropTable(t);
  }
}
