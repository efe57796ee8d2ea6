import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Role } from '../catalog/principal';
import type { GrantEntity } from '../persistence/grant.entity';
import type { PrincipalEntity } from '../persistence/principal.entity';
import type { TenantEntity } from '../persistence/tenant.entity';
import { CeilingEntryInput, CeilingEntryType, CreateGrantInput, CreatePrincipalInput, CreatedPrincipalType, GrantType, PrincipalType, TenantType } from './admin.types';
import type { GrantShape } from '../catalog/grant-scope';
import type { GraphQLContext } from './context';
import type { AppServices } from './services';

/** Tenants, principals (API keys) and grants. Scope rules live in the services; resolvers only translate. */
@Resolver()
export class TenancyResolver {
  constructor(private readonly s: AppServices) {}

  @Query(() => [TenantType], { description: 'host-admin: all tenants; tenant-admin: its own.' })
  async tenants(@Ctx() ctx: GraphQLContext): Promise<TenantType[]> {
    return (await this.s.tenancy.listTenants(ctx.principal)).map(toTenant);
  }

  @Query(() => [PrincipalType])
  async principals(@Ctx() ctx: GraphQLContext, @Arg('tenantId', () => ID) tenantId: string): Promise<PrincipalType[]> {
    return (await this.s.tenancy.listPrincipals(ctx.principal, tenantId)).map(toPrincipal);
  }

  @Query(() => [GrantType])
  async grants(@Ctx() ctx: GraphQLContext, @Arg('tenantId', () => ID) tenantId: string): Promise<GrantType[]> {
    return (await this.s.grants.listGrants(ctx.principal, tenantId)).map(toGrant);
  }

  @Query(() => [CeilingEntryType], { description: 'The tenant\'s ceiling: the most its grants may allow. host-admin, or a tenant-admin of that tenant.' })
  async tenantCeiling(@Ctx() ctx: GraphQLContext, @Arg('tenantId', () => ID) tenantId: string): Promise<CeilingEntryType[]> {
    return (await this.s.ceilings.get(ctx.principal, tenantId)).map(toCeilingEntry);
  }

  @Mutation(() => [CeilingEntryType], {
    description: 'host-admin only: replaces the tenant\'s ceiling. Tools outside it are invisible to the tenant at once; new grants must fit inside it.',
  })
  async setTenantCeiling(
    @Ctx() ctx: GraphQLContext,
    @Arg('tenantId', () => ID) tenantId: string,
    @Arg('entries', () => [CeilingEntryInput]) entries: CeilingEntryInput[],
  ): Promise<CeilingEntryType[]> {
    return (await this.s.ceilings.set(ctx.principal, tenantId, entries)).map(toCeilingEntry);
  }

  @Mutation(() => TenantType, { description: 'host-admin only.' })
  async createTenant(@Ctx() ctx: GraphQLContext, @Arg('name', () => String) name: string): Promise<TenantType> {
    return toTenant(await this.s.tenancy.createTenant(ctx.principal, name));
  }

  @Mutation(() => Boolean, { description: 'host-admin only. Deletes the tenant with its principals, grants and tenant-scoped tools.' })
  async deleteTenant(@Ctx() ctx: GraphQLContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    return this.s.tenancy.deleteTenant(ctx.principal, id);
  }

  @Mutation(() => CreatedPrincipalType, { description: 'Creates a principal and its API key (returned once).' })
  async createPrincipal(@Ctx() ctx: GraphQLContext, @Arg('input', () => CreatePrincipalInput) input: CreatePrincipalInput): Promise<CreatedPrincipalType> {
    const created = await this.s.tenancy.createPrincipal(ctx.principal, input.tenantId, input.name, input.role as Role);
    return Object.assign(new CreatedPrincipalType(), { principal: toPrincipal(created.principal), apiKey: created.apiKey });
  }

  @Mutation(() => PrincipalType, { description: 'Revokes a principal: its API key stops working at once.' })
  async revokePrincipal(@Ctx() ctx: GraphQLContext, @Arg('id', () => ID) id: string): Promise<PrincipalType> {
    return toPrincipal(await this.s.tenancy.revokePrincipal(ctx.principal, id));
  }

  @Mutation(() => GrantType)
  async createGrant(@Ctx() ctx: GraphQLContext, @Arg('input', () => CreateGrantInput) input: CreateGrantInput): Promise<GrantType> {
    return toGrant(await this.s.grants.createGrant(ctx.principal, input));
  }

  @Mutation(() => Boolean)
  async deleteGrant(@Ctx() ctx: GraphQLContext, @Arg('id', () => ID) id: string): Promise<boolean> {
    return this.s.grants.deleteGrant(ctx.principal, id);
  }
}

function toTenant(t: TenantEntity): TenantType {
  return Object.assign(new TenantType(), { id: t.id, name: t.name, createdAt: t.createdAt });
}

function toPrincipal(p: PrincipalEntity): PrincipalType {
  return Object.assign(new PrincipalType(), {
    id: p.id, tenantId: p.tenantId, name: p.name, role: p.role, keyPrefix: p.keyPrefix, createdAt: p.createdAt, revokedAt: p.revokedAt,
  });
}

function toGrant(g: GrantEntity & { withinCeiling?: boolean }): GrantType {
  return Object.assign(new GrantType(), {
    id: g.id, tenantId: g.tenantId, principalId: g.principalId, group: g.groupName, toolPattern: g.toolPattern, source: g.source, maxSafetyTier: g.maxSafetyTier,
    createdAt: g.createdAt, withinCeiling: g.withinCeiling ?? true, // a grant just created passed the ceiling check
  });
}

function toCeilingEntry(e: GrantShape): CeilingEntryType {
  return Object.assign(new CeilingEntryType(), { toolPattern: e.toolPattern, source: e.source, maxSafetyTier: e.maxSafetyTier });
}
