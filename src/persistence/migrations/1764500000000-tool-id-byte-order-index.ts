import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lets a tenant's list query read only the key ranges its grants can match (issue 6; see
 * ToolRepository.grantRanges). The ranges compare toolIds byte by byte. SQLite's primary-key index already has
 * that order (BINARY collation); a PostgreSQL primary key follows the database collation, which in production
 * is often a linguistic one (en_US.UTF-8) where byte ranges do not map onto index ranges, so PostgreSQL gets an
 * index in the "C" collation.
 */
export class ToolIdByteOrderIndex1764500000000 implements MigrationInterface {
  name = 'ToolIdByteOrderIndex1764500000000';

  async up(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') await q.query('CREATE INDEX idx_tool_id_bytes ON tool (tool_id COLLATE "C")');
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') await q.query('DROP INDEX idx_tool_id_bytes');
  }
}
