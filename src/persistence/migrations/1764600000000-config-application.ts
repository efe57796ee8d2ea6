import { type MigrationInterface, type QueryRunner, Table } from 'typeorm';

/**
 * Issue 19: the config file last applied (its hash and per-entry hashes), so replicas with different files do
 * not fight and an apply can tell changes of the file from changes made through the API. Written out here, not
 * derived from the entity: a migration must not change when the code does.
 */
export class ConfigApplication1764600000000 implements MigrationInterface {
  name = 'ConfigApplication1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'config_application',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'hash', type: 'varchar', length: '64' },
          { name: 'file', type: 'varchar', length: '1024' },
          { name: 'entries', type: 'text' },
          { name: 'applied_at', type: 'varchar', length: '32' },
          { name: 'applied_by', type: 'varchar', length: '256' },
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('config_application');
  }
}
