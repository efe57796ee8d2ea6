import { type MigrationInterface, type QueryRunner, Table, TableIndex } from 'typeorm';

/** The audit log of admin changes, written in the same transaction as each change. */
export class AddAuditLog1764490000000 implements MigrationInterface {
  name = 'AddAuditLog1764490000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'audit_log',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'at', type: 'varchar', length: '32' },
          { name: 'seq', type: 'integer' },
          { name: 'request_id', type: 'varchar', length: '128', isNullable: true },
          { name: 'actor_id', type: 'varchar', length: '64' },
          { name: 'actor_name', type: 'text' },
          { name: 'actor_role', type: 'varchar', length: '16' },
          { name: 'actor_tenant_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'action', type: 'varchar', length: '64' },
          { name: 'target_type', type: 'varchar', length: '32' },
          { name: 'target_id', type: 'text' },
          { name: 'tenant_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'before', type: 'text', isNullable: true },
          { name: 'after', type: 'text', isNullable: true },
        ],
        indices: [
          new TableIndex({ name: 'idx_audit_at', columnNames: ['at'] }),
          new TableIndex({ name: 'idx_audit_action', columnNames: ['action'] }),
          new TableIndex({ name: 'idx_audit_tenant', columnNames: ['tenant_id'] }),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('audit_log');
  }
}
