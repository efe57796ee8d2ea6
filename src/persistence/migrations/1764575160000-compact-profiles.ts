import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 16: the per-provider profiles of the compact view, stored with the row like the neutral compact view.
 * Existing rows get '{}' and a compact key of another compactor version, so the start-up refresh
 * (services/derived-refresh.ts) derives them again, profiles included, before they are served. PostgreSQL's
 * UNLOGGED staging table gets the column too (SQLite stages in TEMP tables made by stagingDdl). The DDL is
 * written out here, not imported: a migration must not change when the code does.
 */
export class CompactProfiles1764575160000 implements MigrationInterface {
  name = 'CompactProfiles1764575160000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tool ADD COLUMN compact_profiles text NOT NULL DEFAULT '{}'`);
    if (q.connection.options.type === 'postgres') await q.query(`ALTER TABLE ingest_stage_tool ADD COLUMN compact_profiles text NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') await q.query('ALTER TABLE ingest_stage_tool DROP COLUMN compact_profiles');
    await q.query('ALTER TABLE tool DROP COLUMN compact_profiles');
  }
}
