import { type MigrationInterface, type QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/** Initial schema. Written with the driver-neutral Table API so the same migration runs on SQLite and PostgreSQL. */
export class CreateCatalog1764460000000 implements MigrationInterface {
  name = 'CreateCatalog1764460000000';

  async up(q: QueryRunner): Promise<void> {
    const id = { name: 'id', type: 'varchar', length: '36', isPrimary: true };
    const createdAt = { name: 'created_at', type: 'varchar', length: '32' };
    await q.createTable(
      new Table({
        name: 'tenant',
        columns: [id, { name: 'name', type: 'varchar', length: '64', isUnique: true }, createdAt],
      }),
    );
    await q.createTable(
      new Table({
        name: 'principal',
        columns: [
          id,
          { name: 'tenant_id', type: 'varchar', length: '36' },
          { name: 'name', type: 'varchar', length: '128' },
          { name: 'role', type: 'varchar', length: '16' },
          { name: 'key_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'key_prefix', type: 'varchar', length: '16' },
          createdAt,
          { name: 'revoked_at', type: 'varchar', length: '32', isNullable: true },
        ],
        indices: [new TableIndex({ name: 'idx_principal_tenant', columnNames: ['tenant_id'] })],
        foreignKeys: [new TableForeignKey({ columnNames: ['tenant_id'], referencedTableName: 'tenant', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool_grant',
        columns: [
          id,
          { name: 'tenant_id', type: 'varchar', length: '36' },
          { name: 'principal_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'tool_pattern', type: 'varchar', length: '200' },
          { name: 'like_pattern', type: 'varchar', length: '400' },
          { name: 'source', type: 'varchar', length: '32', isNullable: true },
          { name: 'max_safety_tier', type: 'varchar', length: '8', isNullable: true },
          { name: 'max_tier_rank', type: 'integer', isNullable: true },
          createdAt,
        ],
        indices: [new TableIndex({ name: 'idx_grant_tenant', columnNames: ['tenant_id'] })],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['tenant_id'], referencedTableName: 'tenant', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
          new TableForeignKey({ columnNames: ['principal_id'], referencedTableName: 'principal', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool',
        columns: [
          { name: 'tool_id', type: 'varchar', length: '200', isPrimary: true },
          { name: 'source', type: 'varchar', length: '32' },
          { name: 'origin', type: 'varchar', length: '128' },
          { name: 'tenant_id', type: 'varchar', length: '36', isNullable: true },
          { name: 'name', type: 'varchar', length: '128' },
          { name: 'title', type: 'text', isNullable: true },
          { name: 'description', type: 'text' },
          { name: 'input_schema', type: 'text' },
          { name: 'output_schema', type: 'text', isNullable: true },
          { name: 'safety_tier', type: 'varchar', length: '8' },
          { name: 'tier_rank', type: 'integer' },
          { name: 'replay_policy', type: 'varchar', length: '16' },
          { name: 'egress', type: 'varchar', length: '16' },
          { name: 'classified', type: 'boolean' },
          { name: 'claims', type: 'text', isNullable: true },
          { name: 'content_hash', type: 'varchar', length: '64' },
          { name: 'updated_at', type: 'varchar', length: '32' },
        ],
        indices: [new TableIndex({ name: 'idx_tool_origin', columnNames: ['origin'] })],
        foreignKeys: [new TableForeignKey({ columnNames: ['tenant_id'], referencedTableName: 'tenant', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
    await q.createTable(
      new Table({
        name: 'tool_classification',
        columns: [
          { name: 'tool_id', type: 'varchar', length: '200', isPrimary: true },
          { name: 'safety_tier', type: 'varchar', length: '8' },
          { name: 'replay_policy', type: 'varchar', length: '16' },
          { name: 'egress', type: 'varchar', length: '16' },
          { name: 'decided_by', type: 'varchar', length: '128' },
          { name: 'decided_at', type: 'varchar', length: '32' },
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'catalog_state',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'version', type: 'integer' },
        ],
      }),
    );
    await q.query('INSERT INTO catalog_state (id, version) VALUES (1, 1)');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['catalog_state', 'tool_classification', 'tool', 'tool_grant', 'principal', 'tenant']) await q.dropTable(t);
  }
}
