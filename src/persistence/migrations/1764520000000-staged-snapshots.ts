import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 12:
 *  - upstream_tool.raw_hash: sha256 of the stored listing text, so a sync compares a listing with what is stored
 *    without reading stored texts back (rows stored before this have NULL and are compared by text once, then filled).
 *  - mcp_source.projection_seq: advanced first by every transaction that projects a source (the per-source lock of
 *    defect 3); a staged snapshot is published only if it is still the value the sync planned against.
 *  - PostgreSQL: the UNLOGGED staging tables of a sync (defect 1). Unlogged: staging is scratch, lost on a server
 *    crash like the sync it belonged to. SQLite stages in TEMP tables of the writer thread's connection instead.
 *    (The DDL is written out here, not imported: a migration must not change when the code does. It matches
 *    stagingDdl('postgres') in src/sources/snapshot-sql.ts.)
 */
export class StagedSnapshots1764520000000 implements MigrationInterface {
  name = 'StagedSnapshots1764520000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE upstream_tool ADD COLUMN raw_hash varchar(64)');
    await q.query('ALTER TABLE mcp_source ADD COLUMN projection_seq integer NOT NULL DEFAULT 0');
    if (q.connection.options.type !== 'postgres') return;
    await q.query(`CREATE UNLOGGED TABLE ingest_stage_upstream (sync_id varchar(36) NOT NULL, key varchar(64) NOT NULL, staged_at varchar(32) NOT NULL,
      source_name varchar(32) NOT NULL, name text NOT NULL, tool_id varchar(200), definition_hash varchar(64) NOT NULL, quarantine_reason text,
      first_seen_at varchar(32) NOT NULL, last_seen_at varchar(32) NOT NULL, raw_hash varchar(64), raw text NOT NULL, PRIMARY KEY (sync_id, key))`);
    await q.query(`CREATE UNLOGGED TABLE ingest_stage_tool (sync_id varchar(36) NOT NULL, tool_id varchar(200) NOT NULL, staged_at varchar(32) NOT NULL,
      source varchar(32) NOT NULL, origin varchar(128) NOT NULL, tenant_id varchar(36), name varchar(128) NOT NULL, title text, description text NOT NULL,
      input_schema text NOT NULL, output_schema text, safety_tier varchar(8) NOT NULL, tier_rank integer NOT NULL, replay_policy varchar(16) NOT NULL,
      egress varchar(16) NOT NULL, classified boolean NOT NULL, claims text, content_hash varchar(64) NOT NULL, compact_schema text NOT NULL,
      compact_notes text NOT NULL, compact_key varchar(80) NOT NULL, row_hash varchar(64) NOT NULL, ingest_notes text NOT NULL,
      gate_version varchar(16) NOT NULL, definition_hash varchar(64), updated_at varchar(32) NOT NULL, PRIMARY KEY (sync_id, tool_id))`);
  }

  async down(q: QueryRunner): Promise<void> {
    if (q.connection.options.type === 'postgres') {
      await q.query('DROP TABLE ingest_stage_tool');
      await q.query('DROP TABLE ingest_stage_upstream');
    }
    await q.query('ALTER TABLE mcp_source DROP COLUMN projection_seq');
    await q.query('ALTER TABLE upstream_tool DROP COLUMN raw_hash');
  }
}
