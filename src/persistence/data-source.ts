import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource } from 'typeorm';
import { SQLITE_MATCH_PRAGMAS } from './grant-match';
import type { DatabaseConfig } from '../config/config';
import { CatalogStateEntity } from './catalog-state.entity';
import { ClassificationEntity } from './classification.entity';
import { GrantEntity } from './grant.entity';
import { McpSourceSecretEntity } from './mcp-source-secret.entity';
import { McpSourceEntity } from './mcp-source.entity';
import { ToolChangeEntity } from './tool-change.entity';
import { UpstreamToolEntity } from './upstream-tool.entity';
import { CreateCatalog1764460000000 } from './migrations/1764460000000-create-catalog';
import { AddMcpSources1764470000000 } from './migrations/1764470000000-add-mcp-sources';
import { AddCompactView1764480000000 } from './migrations/1764480000000-add-compact-view';
import { AddAuditLog1764490000000 } from './migrations/1764490000000-add-audit-log';
import { ToolIdByteOrderIndex1764500000000 } from './migrations/1764500000000-tool-id-byte-order-index';
import { CeilingsGroupsRowHash1764510000000 } from './migrations/1764510000000-ceilings-groups-row-hash';
import { StagedSnapshots1764520000000 } from './migrations/1764520000000-staged-snapshots';
import { SyncProgressThrottle1764530000000 } from './migrations/1764530000000-sync-progress-throttle';
import { BoundedLogPages1764610000000 } from './migrations/1764610000000-bounded-log-pages';
import { ToolCalls1764560000000 } from './migrations/1764560000000-tool-calls';
import { CompactProfiles1764575160000 } from './migrations/1764575160000-compact-profiles';
import { ToolEmbeddings1764590000000 } from './migrations/1764590000000-tool-embeddings';
import { ToolEmbeddingEntity } from './tool-embedding.entity';
import { ConfigApplication1764600000000 } from './migrations/1764600000000-config-application';
import { ConfigApplicationEntity } from './config-application.entity';
import { ToolCallEntity } from './tool-call.entity';
import { ExtensionImplementationEntity } from './extension-implementation.entity';
import { TenantCeilingEntity } from './tenant-ceiling.entity';
import { AuditEntity } from './audit.entity';
import { PrincipalEntity } from './principal.entity';
import { TenantEntity } from './tenant.entity';
import { ToolEntity } from './tool.entity';

const ENTITIES = [
  TenantEntity, PrincipalEntity, GrantEntity, ToolEntity, ClassificationEntity, CatalogStateEntity,
  McpSourceEntity, McpSourceSecretEntity, UpstreamToolEntity, ToolChangeEntity, AuditEntity, TenantCeilingEntity, ToolCallEntity, ExtensionImplementationEntity, ToolEmbeddingEntity,
  ConfigApplicationEntity,
];
const MIGRATIONS = [CreateCatalog1764460000000, AddMcpSources1764470000000, AddCompactView1764480000000, AddAuditLog1764490000000, ToolIdByteOrderIndex1764500000000,
  CeilingsGroupsRowHash1764510000000, StagedSnapshots1764520000000, SyncProgressThrottle1764530000000,
  ToolCalls1764560000000, CompactProfiles1764575160000, ToolEmbeddings1764590000000, ConfigApplication1764600000000,
  BoundedLogPages1764610000000,
];

/** How long a request's statement may run on PostgreSQL before the client gives up on it (answering 503). */
export const QUERY_TIMEOUT_MS = 15_000;

/**
 * Applies the pending migrations: on PostgreSQL over a connection of its own without QUERY_TIMEOUT_MS (see
 * createDataSource's `migrating`), on SQLite over `ds` (no statement bound there). Index builds in a migration
 * block writes to their table on PostgreSQL until they finish (docs/operators.md).
 */
export async function applyMigrations(ds: DataSource, db: DatabaseConfig): Promise<string[]> {
  if (db.type !== 'postgres') return (await ds.runMigrations({ transaction: 'all' })).map((m) => m.name);
  const own = createDataSource(db, { migrating: true });
  await own.initialize();
  try {
    return (await own.runMigrations({ transaction: 'all' })).map((m) => m.name);
  } finally {
    await own.destroy();
  }
}

/**
 * SQLite file by default, PostgreSQL when a URL is given. Schema changes only through migrations
 * (never `synchronize`), so what tests run is what production runs.
 */
export function createDataSource(db: DatabaseConfig, opts: { migrating?: boolean } = {}): DataSource {
  if (db.type === 'postgres') {
    return new DataSource({
      type: 'postgres',
      url: db.url,
      entities: ENTITIES,
      migrations: MIGRATIONS,
      migrationsTransactionMode: 'all',
      // Fail fast when the database is away (503 instead of a hung request); recover as soon as it answers.
      // JIT off: the scoped visibility query crosses the JIT cost threshold at scale and spends most of its
      // time compiling (measured by the bench: 240 of 327 ms at 100k tools).
      // `migrating`: no bound on a statement. A migration may build an index over a long call log for longer than any
      // request may wait, and cut at 15 s it would roll back and the service would never start (applyMigrations).
      extra: { max: opts.migrating ? 1 : db.poolSize, connectionTimeoutMillis: 2000, ...(opts.migrating ? {} : { query_timeout: QUERY_TIMEOUT_MS }), options: '-c jit=off' },
    });
  }
  if (db.path !== ':memory:') mkdirSync(dirname(db.path), { recursive: true });
  return new DataSource({
    type: 'better-sqlite3',
    database: db.path,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTransactionMode: 'all',
    enableWAL: db.path !== ':memory:',
    // LIKE must be case-sensitive on SQLite as it is on PostgreSQL: grant patterns match toolIds exactly.
    prepareDatabase: (raw: { pragma(s: string): unknown }) => {
      for (const pragma of SQLITE_MATCH_PRAGMAS) raw.pragma(pragma);
      raw.pragma('busy_timeout = 5000');
      // A per-connection setting (TypeORM turns WAL on right after this hook): see DatabaseConfig's `synchronous`.
      raw.pragma(`synchronous = ${db.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    },
  });
}
