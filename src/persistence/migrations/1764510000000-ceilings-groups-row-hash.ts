import { randomUUID } from 'node:crypto';
import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableForeignKey, TableIndex } from 'typeorm';

/**
 * Issue 11:
 *  - tenant_ceiling: the host admin's per-tenant ceiling (defect 6). Every tenant that exists gets the unrestricted
 *    ceiling (`*`), so nothing an existing deployment serves changes; host admins narrow it from there.
 *  - tool_grant.group_name: narrowing grants for a group of JWT principals (defect 7).
 *  - tool.served_hash becomes row_hash (defect 5): a stamp of the stored row that caches key on, compared only
 *    with itself. It used to be the hash of the bytes the serializer produced, i.e. state derived from code: a
 *    serializer change without a recompute made every REST read fail. Existing values stay valid stamps.
 *  - tool.ingest_notes: what the ingest gate repaired, for admins (defect 8).
 *  - tool.gate_version: the ingest gate version a row was made by (INGEST_GATE_VERSION). Served rows are derived
 *    from upstream definitions by the gate's code; rows of another version are derived again at start
 *    (services/derived-refresh.ts). Existing rows get '' and so are all re-derived once after this upgrade.
 */
export class CeilingsGroupsRowHash1764510000000 implements MigrationInterface {
  name = 'CeilingsGroupsRowHash1764510000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('tool_grant', new TableColumn({ name: 'group_name', type: 'varchar', length: '128', isNullable: true }));
    await q.createTable(
      new Table({
        name: 'tenant_ceiling',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'tenant_id', type: 'varchar', length: '36' },
          { name: 'tool_pattern', type: 'varchar', length: '200' },
          { name: 'like_pattern', type: 'varchar', length: '400' },
          { name: 'source', type: 'varchar', length: '32', isNullable: true },
          { name: 'max_safety_tier', type: 'varchar', length: '8', isNullable: true },
          { name: 'max_tier_rank', type: 'integer', isNullable: true },
          { name: 'created_at', type: 'varchar', length: '32' },
        ],
        indices: [new TableIndex({ name: 'idx_ceiling_tenant', columnNames: ['tenant_id'] })],
        foreignKeys: [new TableForeignKey({ columnNames: ['tenant_id'], referencedTableName: 'tenant', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
    const tenants = (await q.query('SELECT id FROM tenant')) as Array<{ id: string }>;
    const now = new Date().toISOString();
    const [a, b, c] = q.connection.options.type === 'postgres' ? ['$1', '$2', '$3'] : ['?', '?', '?'];
    for (const t of tenants) {
      await q.query(
        `INSERT INTO tenant_ceiling (id, tenant_id, tool_pattern, like_pattern, source, max_safety_tier, max_tier_rank, created_at) VALUES (${a}, ${b}, '*', '%', NULL, NULL, NULL, ${c})`,
        [randomUUID(), t.id, now],
      );
    }
    await q.query('ALTER TABLE tool RENAME COLUMN served_hash TO row_hash');
    await q.query("ALTER TABLE tool ADD COLUMN ingest_notes text NOT NULL DEFAULT '[]'");
    await q.query("ALTER TABLE tool ADD COLUMN gate_version varchar(16) NOT NULL DEFAULT ''");
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE tool DROP COLUMN gate_version');
    await q.query('ALTER TABLE tool DROP COLUMN ingest_notes');
    await q.query('ALTER TABLE tool RENAME COLUMN row_hash TO served_hash');
    await q.dropTable('tenant_ceiling');
    await q.dropColumn('tool_grant', 'group_name');
  }
}
