import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 12: mcp_source gains what admins see of a running sync (defect 6: sync_started_at, sync_pages,
 * sync_tools_read, sync_progress_at) and of a flooding source (defect 4: throttled_until, throttle_reason).
 * Additive with defaults: existing rows read as "no sync running, not throttled".
 */
export class SyncProgressThrottle1764530000000 implements MigrationInterface {
  name = 'SyncProgressThrottle1764530000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE mcp_source ADD COLUMN sync_started_at varchar(32) NULL');
    await q.query('ALTER TABLE mcp_source ADD COLUMN sync_pages integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE mcp_source ADD COLUMN sync_tools_read integer NOT NULL DEFAULT 0');
    await q.query('ALTER TABLE mcp_source ADD COLUMN sync_progress_at varchar(32) NULL');
    await q.query('ALTER TABLE mcp_source ADD COLUMN throttled_until varchar(32) NULL');
    await q.query('ALTER TABLE mcp_source ADD COLUMN throttle_reason text NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    for (const c of ['throttle_reason', 'throttled_until', 'sync_progress_at', 'sync_tools_read', 'sync_pages', 'sync_started_at']) await q.query(`ALTER TABLE mcp_source DROP COLUMN ${c}`);
  }
}
