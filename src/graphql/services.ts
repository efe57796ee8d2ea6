import type { AuditQueryService } from '../audit/audit-query.service';
import type { Identity } from '../auth/authenticator';
import type { InvocationService } from '../invocation/invocation.service';
import type { ToolCallStore } from '../persistence/tool-call.store';
import type { Capabilities } from '../catalog/capabilities';
import type { CatalogReadService } from '../services/catalog-read.service';
import type { CeilingService } from '../services/ceiling.service';
import type { ConfigApplyService } from '../services/config-apply.service';
import type { GrantService } from '../services/grant.service';
import type { TenancyService } from '../services/tenancy.service';
import type { ToolAdminService } from '../services/tool-admin.service';
import type { ToolSearchService } from '../services/tool-search.service';
import type { SourceAdminService } from '../sources/source-admin.service';
import type { SourceScheduler } from '../sources/source-scheduler';
import type { SourceSnapshotService } from '../sources/source-snapshot.service';
import type { SourceSyncService } from '../sources/source-sync.service';

/** What resolvers are given by the composition root (constructor injection through the container). */
export interface AppServices {
  readonly tenancy: TenancyService;
  readonly grants: GrantService;
  readonly ceilings: CeilingService;
  /** The identity mapping, for previews of principals described by claims. */
  readonly identity: Pick<Identity, 'principalFromClaims'>;
  readonly toolAdmin: ToolAdminService;
  readonly sources: SourceAdminService;
  /** The config file's plan and apply, with ownership (issue 19): start-up and `toolcat config`. */
  readonly config: ConfigApplyService;
  readonly snapshots: SourceSnapshotService;
  readonly sync: SourceSyncService;
  readonly scheduler: SourceScheduler;
  readonly audit: AuditQueryService;
  readonly catalog: CatalogReadService;
  /** Tool search over the caller's visible tools (issue 18). */
  readonly search: ToolSearchService;
  readonly capabilities: Capabilities;
  /** Tool calls (issue 14) and their log. */
  readonly invocation: InvocationService;
  readonly calls: ToolCallStore;
  /** The call sessions of MCP sources: a removed or changed source's session is closed. */
  readonly callSessions: { drop(source: string, opts?: { readonly endUpstream?: boolean }): Promise<void> };
}
