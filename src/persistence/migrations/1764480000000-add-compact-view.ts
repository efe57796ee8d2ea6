import { type MigrationInterface, type QueryRunner, TableColumn } from 'typeorm';

/**
 * Compact view and served-bytes address per tool. Existing rows get placeholders that can never match a
 * current compact key, so the start-up refresh (CompactRefreshService) recomputes them before serving.
 */
export class AddCompactView1764480000000 implements MigrationInterface {
  name = 'AddCompactView1764480000000';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('tool', [
      new TableColumn({ name: 'compact_schema', type: 'text', default: `'{"type":"object","properties":{}}'` }),
      new TableColumn({ name: 'compact_notes', type: 'text', default: `'[]'` }),
      new TableColumn({ name: 'compact_key', type: 'varchar', length: '80', default: `'stale'` }),
      new TableColumn({ name: 'served_hash', type: 'varchar', length: '64', default: `'stale'` }),
      new TableColumn({ name: 'definition_hash', type: 'varchar', length: '64', isNullable: true }),
    ]);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of ['definition_hash', 'served_hash', 'compact_key', 'compact_notes', 'compact_schema']) await q.dropColumn('tool', c);
  }
}
