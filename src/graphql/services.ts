import type { Capabilities } from '../catalog/capabilities';
import type { CatalogReadService } from '../services/catalog-read.service';
import type { GrantService } from '../services/grant.service';
import type { TenancyService } from '../services/tenancy.service';
import type { ToolAdminService } from '../services/tool-admin.service';

/** What resolvers are given by the composition root (constructor injection through the container). */
export interface AppServices {
  readonly tenancy: TenancyService;
  readonly grants: GrantService;
  readonly toolAdmin: ToolAdminService;
  readonly catalog: CatalogReadService;
  readonly capabilities: Capabilities;
}

export const SERVICES = Symbol('AppServices');
