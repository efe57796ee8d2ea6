import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 18: the vectors of the optional embedding stage of tool search, one per tool (tool-embedding.entity.ts).
 * Empty until an operator configures TOOLCAT_EMBEDDINGS_URL. The DDL is written out here, not imported: a migration
 * must not change when the code does.
 */
export class ToolEmbeddings1764590000000 implements MigrationInterface {
  name = 'ToolEmbeddings1764590000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE tool_embedding (
      tool_id varchar(200) PRIMARY KEY NOT NULL,
      model varchar(200) NOT NULL,
      text_hash varchar(64) NOT NULL,
      dimensions integer NOT NULL,
      vector text NOT NULL,
      updated_at varchar(32) NOT NULL
    )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE tool_embedding');
  }
}
