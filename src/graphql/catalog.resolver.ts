import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { requirePrincipal } from './require-principal';
import type { GraphQLContext } from './context';
import type { AppServices } from './services';
import { CapabilitiesType, MeType, ToolCatalogCapabilitiesType } from './capabilities.types';
import { toToolView } from './tool.mapper';
import { CatalogDocumentType, ToolListType, ToolViewUnion } from './tool.types';

/**
 * Agent-facing reads. Every one is tenant-scoped by the services' queries; an invisible tool is null, never
 * an error (TC-CAT-4). `view` is a String, not an enum, so unknown views fall back (TC-VIEW-4); so is `profile`
 * (issue 16): an unknown or absent profile is the neutral compact view, and it changes nothing outside the compact view.
 */
@Resolver()
export class CatalogResolver {
  constructor(private readonly s: AppServices) {}

  @Query(() => CapabilitiesType, { description: 'The capabilities document (also GET /capabilities).' })
  capabilities(@Ctx() ctx: GraphQLContext): CapabilitiesType {
    requirePrincipal(ctx);
    const c = this.s.capabilities;
    return Object.assign(new CapabilitiesType(), {
      hostVersion: c.hostVersion,
      toolCatalog: Object.assign(new ToolCatalogCapabilitiesType(), { ...c.toolCatalog, sources: [...c.toolCatalog.sources], profiles: [...c.toolCatalog.profiles] }),
    });
  }

  @Query(() => MeType, { description: 'The calling principal.' })
  me(@Ctx() ctx: GraphQLContext): MeType {
    const p = requirePrincipal(ctx);
    return Object.assign(new MeType(), { principalId: p.id, kind: p.kind, name: p.name, role: p.role, tenantId: p.tenantId, tenantName: p.tenantName, groups: [...p.groups] });
  }

  @Query(() => ToolListType, { description: 'The tools the caller may invoke, sorted by toolId (TC-CAT-3, TC-CAT-7).' })
  async tools(
    @Ctx() ctx: GraphQLContext,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('profile', () => String, { nullable: true, description: 'gemini | openai | anthropic (issue 16); compact view only.' }) profile?: string | null,
  ): Promise<ToolListType> {
    const { appliedView, appliedProfile, descriptors } = await this.s.catalog.list(requirePrincipal(ctx), view, profile);
    return Object.assign(new ToolListType(), { appliedView, appliedProfile, tools: descriptors.map((d) => toToolView(d, appliedView)) });
  }

  @Query(() => ToolViewUnion, { nullable: true, description: 'null when the tool is unknown or not visible to the caller: the two are indistinguishable.' })
  async tool(
    @Ctx() ctx: GraphQLContext,
    @Arg('toolId', () => String) toolId: string,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('profile', () => String, { nullable: true, description: 'gemini | openai | anthropic (issue 16); compact view only.' }) profile?: string | null,
  ): Promise<typeof ToolViewUnion | null> {
    const found = await this.s.catalog.get(requirePrincipal(ctx), toolId, view, profile);
    return found ? toToolView(found.descriptor, found.appliedView) : null;
  }

  @Query(() => CatalogDocumentType, { description: 'GET /tools as one exact JSON body with its ETag (used by the REST facade).' })
  async toolsDocument(
    @Ctx() ctx: GraphQLContext,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('profile', () => String, { nullable: true, description: 'gemini | openai | anthropic (issue 16); compact view only.' }) profile?: string | null,
  ): Promise<CatalogDocumentType> {
    return Object.assign(new CatalogDocumentType(), await this.s.catalog.listDocument(requirePrincipal(ctx), view, profile, { stream: ctx.streamBodies === true }));
  }

  @Query(() => CatalogDocumentType, { nullable: true, description: 'GET /tools/{toolId} as one exact JSON body; null when unknown or not visible.' })
  async toolDocument(
    @Ctx() ctx: GraphQLContext,
    @Arg('toolId', () => String) toolId: string,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('profile', () => String, { nullable: true, description: 'gemini | openai | anthropic (issue 16); compact view only.' }) profile?: string | null,
  ): Promise<CatalogDocumentType | null> {
    const doc = await this.s.catalog.toolDocument(requirePrincipal(ctx), toolId, view, profile);
    return doc ? Object.assign(new CatalogDocumentType(), doc) : null;
  }
}
