/**
 * Issue 12 defect 5: every unique key, foreign key and column bound of the schema (src/persistence/migrations),
 * violated for real on each database, is recognised by constraint-errors.ts and answered with its client code
 * by writeTransaction's one mapping, in words that carry no SQL or driver text.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource, EntityManager } from 'typeorm';
import { createDataSource } from '../../src/persistence/data-source';
import { constraintViolationOf } from '../../src/persistence/constraint-errors';
import { CatalogError } from '../../src/catalog/catalog.errors';
import { writeTransaction } from '../../src/persistence/write-transaction';
import { forEachDatabase } from '../helpers/databases';

forEachDatabase('issue 12 defect 5: the constraint table', (database) => {
  let ds: DataSource;
  let drop: () => Promise<void>;
  const tenant = randomUUID();
  const principal = randomUUID();
  const at = new Date().toISOString();
  const pg = () => ds.options.type === 'postgres';
  const ph = (n: number) => Array.from({ length: n }, (_, i) => (pg() ? `$${i + 1}` : '?')).join(', ');

  before(async function () {
    this.timeout(60_000);
    const created = await database.create();
    drop = created.drop;
    ds = createDataSource(created.db);
    await ds.initialize();
    await ds.runMigrations({ transaction: 'all' });
    await ds.query(`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [tenant, 'taken', at]);
    await ds.query(`INSERT INTO principal (id, tenant_id, name, role, key_hash, key_prefix, created_at) VALUES (${ph(7)})`, [principal, tenant, 'p', 'agent', 'h'.repeat(64), 'tc_x', at]);
    await ds.query(`INSERT INTO mcp_source (name, transport, args, drift_policy, sync_interval_seconds, enabled, origin, status, tool_count, quarantined_count, created_at) VALUES (${ph(11)})`, ['src', 'stdio', '[]', 'withhold', 0, 0, 'graphql', 'never-synced', 0, 0, at]);
    await ds.query(`INSERT INTO tool_classification (tool_id, safety_tier, replay_policy, egress, decided_by, decided_at) VALUES (${ph(6)})`, ['ext.x', 'read', 'idempotent', 'none', 'me', at]);
  });
  after(async () => {
    await ds?.destroy();
    await drop?.();
  });

  const unknown = randomUUID();
  const grant = (tenantId: string, principalId: string | null) => [`INSERT INTO tool_grant (id, tenant_id, principal_id, tool_pattern, like_pattern, created_at) VALUES (${ph(6)})`, [randomUUID(), tenantId, principalId, 'a', 'a', at]] as const;
  const ceiling = (tenantId: string) => [`INSERT INTO tenant_ceiling (id, tenant_id, tool_pattern, like_pattern, created_at) VALUES (${ph(5)})`, [randomUUID(), tenantId, '*', '%', at]] as const;
  const source = (name: string, tenantId: string | null) => [`INSERT INTO mcp_source (name, transport, args, drift_policy, sync_interval_seconds, enabled, origin, status, tool_count, quarantined_count, created_at, tenant_id) VALUES (${ph(12)})`, [name, 'stdio', '[]', 'withhold', 0, 0, 'graphql', 'never-synced', 0, 0, at, tenantId]] as const;
  const cases: Array<{ label: string; sql: () => readonly [string, readonly unknown[]]; kind: string; code: string; message: RegExp; refersTo?: string; pgOnly?: boolean }> = [
    { label: 'tenant.name unique', sql: () => [`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [randomUUID(), 'taken', at]], kind: 'unique', code: 'CONFLICT', message: /^A tenant with this name already exists\.$/ },
    { label: 'tenant primary key', sql: () => [`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [tenant, 'other', at]], kind: 'unique', code: 'CONFLICT', message: /^A tenant with this name already exists\.$/ },
    { label: 'principal.key_hash unique', sql: () => [`INSERT INTO principal (id, tenant_id, name, role, key_hash, key_prefix, created_at) VALUES (${ph(7)})`, [randomUUID(), tenant, 'q', 'agent', 'h'.repeat(64), 'tc_y', at]], kind: 'unique', code: 'CONFLICT', message: /retry/ },
    { label: 'principal.tenant_id foreign key', sql: () => [`INSERT INTO principal (id, tenant_id, name, role, key_hash, key_prefix, created_at) VALUES (${ph(7)})`, [randomUUID(), unknown, 'q', 'agent', 'k'.repeat(64), 'tc_y', at]], kind: 'foreign-key', code: 'NOT_FOUND', message: /^No tenant with this id in your scope\.$/, refersTo: 'tenant' },
    { label: 'tool_grant.tenant_id foreign key', sql: () => grant(unknown, null), kind: 'foreign-key', code: 'NOT_FOUND', message: /^No tenant with this id in your scope\.$/, refersTo: 'tenant' },
    { label: 'tool_grant.principal_id foreign key', sql: () => grant(tenant, unknown), kind: 'foreign-key', code: 'NOT_FOUND', message: /^No (principal|tenant or principal) with this id in your scope\.$/, refersTo: 'tenant or principal' },
    { label: 'tenant_ceiling.tenant_id foreign key', sql: () => ceiling(unknown), kind: 'foreign-key', code: 'NOT_FOUND', message: /^No tenant with this id in your scope\.$/, refersTo: 'tenant' },
    { label: 'mcp_source primary key', sql: () => source('src', null), kind: 'unique', code: 'CONFLICT', message: /^A source with this name already exists\.$/ },
    { label: 'mcp_source.tenant_id foreign key', sql: () => source('src2', unknown), kind: 'foreign-key', code: 'NOT_FOUND', message: /^No tenant with this id in your scope\.$/, refersTo: 'tenant' },
    { label: 'mcp_source_secret.source_name foreign key', sql: () => [`INSERT INTO mcp_source_secret (source_name, env, headers) VALUES (${ph(3)})`, ['nosuch', '{}', '{}']], kind: 'foreign-key', code: 'NOT_FOUND', message: /^No source with this id in your scope\.$/, refersTo: 'source' },
    { label: 'upstream_tool.source_name foreign key', sql: () => [`INSERT INTO upstream_tool (key, source_name, name, raw, definition_hash, first_seen_at, last_seen_at) VALUES (${ph(7)})`, ['k1', 'nosuch', 'n', '{}', 'h', at, at]], kind: 'foreign-key', code: 'NOT_FOUND', message: /^No source with this id in your scope\.$/, refersTo: 'source' },
    { label: 'tool_classification primary key', sql: () => [`INSERT INTO tool_classification (tool_id, safety_tier, replay_policy, egress, decided_by, decided_at) VALUES (${ph(6)})`, ['ext.x', 'read', 'idempotent', 'none', 'me', at]], kind: 'unique', code: 'CONFLICT', message: /classified by another change/ },
    { label: 'tenant.name not null', sql: () => [`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [randomUUID(), null, at]], kind: 'not-null', code: 'BAD_USER_INPUT', message: /^A required value is missing\.$/ },
    { label: 'tenant.name longer than varchar(64)', sql: () => [`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [randomUUID(), 'n'.repeat(65), at]], kind: 'too-long', code: 'BAD_USER_INPUT', message: /longer than the catalog stores/, pgOnly: true },
    { label: 'U+0000 in text', sql: () => [`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [randomUUID(), 'a\u0000b', at]], kind: 'bad-text', code: 'BAD_USER_INPUT', message: /U\+0000/, pgOnly: true },
  ];

  for (const c of cases) {
    if (c.pgOnly && database.name !== 'postgres') continue; // SQLite stores these: nothing to violate
    it(`issue 12 defect 5: ${c.label} → ${c.code}`, async () => {
      const [sql, params] = c.sql();
      let raw: unknown = null;
      try {
        await ds.query(sql, params as unknown[]);
      } catch (err) {
        raw = err;
      }
      expect(raw, 'the statement must violate the constraint').not.to.equal(null);
      expect(constraintViolationOf(raw)?.kind).to.equal(c.kind);
      let mapped: unknown = null;
      try {
        // What the service writing this row would say it refers to (SQLite does not name the table; PostgreSQL does).
        await writeTransaction(ds, { refersTo: c.refersTo }, (m: EntityManager) => m.query(sql, params as unknown[]));
      } catch (err) {
        mapped = err;
      }
      expect(mapped).to.be.instanceOf(CatalogError);
      const e = mapped as CatalogError;
      expect(e.code).to.equal(c.code);
      expect(e.message).to.match(c.message);
      expect(e.message).not.to.match(/constraint|violates|duplicate|INSERT|SQLITE|key \(|FK_|PK_|UQ_/i);
    });
  }

  it('issue 12 defect 5: the caller\'s words win where it gives them, and an upsert that lost its key race runs again', async () => {
    const [sql, params] = [`INSERT INTO tenant (id, name, created_at) VALUES (${ph(3)})`, [randomUUID(), 'taken', at]];
    const err = await writeTransaction(ds, { taken: 'A tenant named "taken" already exists.' }, (m) => m.query(sql, params)).catch((e: unknown) => e);
    expect((err as CatalogError).message).to.equal('A tenant named "taken" already exists.');
    let attempts = 0;
    const result = await writeTransaction(ds, { upsert: true }, async (m) => {
      attempts++;
      // The first attempt meets a key taken first (as a concurrent insert would); the next runs to the end.
      if (attempts === 1) await m.query(sql, params);
      return 'applied';
    });
    expect({ attempts, result }).to.deep.equal({ attempts: 2, result: 'applied' });
    // Without `upsert` the same violation is answered at once.
    attempts = 0;
    const refused = await writeTransaction(ds, {}, async (m) => {
      attempts++;
      await m.query(sql, params);
    }).catch((e: unknown) => e);
    expect({ attempts, code: (refused as CatalogError).code }).to.deep.equal({ attempts: 1, code: 'CONFLICT' });
  });
});
