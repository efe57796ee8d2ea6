import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Classification } from '../catalog/descriptor';
import type { ToolRecord } from '../catalog/tool-record';
import { requireRole } from '../catalog/admin-scope';
import { AdminToolType, ClassifyToolInput, CompactNoteType, DraftGrantInput, type ExtensionImplementationInput, HostExtensionInputType, IngestNoteType } from './admin.types';
import type { ExtensionImplementationSpec, SecretSpec } from '../catalog/host-extension';
import type { GraphQLContext } from './context';
import type { AppServices } from './services';
import { redactJson } from '../catalog/credential-redaction';
import { recordView, toToolView } from './tool.mapper';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ToolDescriptorType, ToolListType } from './tool.types';

/** Host-admin governance of tools: host extensions, classification, claims vs decisions, and preview. */
@Resolver()
export class ToolAdminResolver {
  constructor(private readonly s: AppServices) {}

  @Query(() => [AdminToolType], { description: 'host-admin: every tool with its upstream claims and the host decision.' })
  async adminTools(@Ctx() ctx: GraphQLContext): Promise<AdminToolType[]> {
    const own = await this.s.toolAdmin.ownership(ctx.principal);
    return (await this.s.toolAdmin.listTools(ctx.principal)).map((r) => toAdminTool(r, own(r)));
  }

  @Query(() => AdminToolType, { nullable: true })
  async adminTool(@Ctx() ctx: GraphQLContext, @Arg('toolId', () => String) toolId: string): Promise<AdminToolType | null> {
    const r = await this.s.toolAdmin.getTool(ctx.principal, toolId);
    return r ? toAdminTool(r, (await this.s.toolAdmin.ownership(ctx.principal))(r)) : null;
  }

  @Query(() => ToolListType, {
    description:
      'Exactly what a principal sees: the same read its own GET /tools makes. Give principalId (a stored principal) or claims (a JWT payload, ' +
      'mapped as a verified token would be: tenant, roles, groups). tenant-admins may preview their own tenant only. ' +
      'With draftGrants: what it would see were those grants added to its tenant (checked as createGrant checks them); nothing is saved.',
  })
  async previewTools(
    @Ctx() ctx: GraphQLContext,
    @Arg('principalId', () => ID, { nullable: true }) principalId?: string | null,
    @Arg('claims', () => GraphQLJSONObject, { nullable: true }) claims?: Record<string, unknown> | null,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('draftGrants', () => [DraftGrantInput], { nullable: true }) draftGrants?: DraftGrantInput[] | null,
  ): Promise<ToolListType> {
    const actor = requireRole(ctx.principal, 'host-admin', 'tenant-admin');
    const subject = await this.s.tenancy.previewSubject(actor, { principalId: principalId ?? null, claims: claims ?? null }, this.s.identity.principalFromClaims);
    const { appliedView, descriptors } = draftGrants
      ? this.s.catalog.project(await this.s.grants.previewWithDrafts(actor, subject, draftGrants), view)
      : await this.s.catalog.list(subject, view);
    return Object.assign(new ToolListType(), { appliedView, tools: descriptors.map((d) => toToolView(d, appliedView)) });
  }

  @Mutation(() => AdminToolType, { description: 'host-admin: create or replace a host extension (may be exec).' })
  async upsertHostExtension(@Ctx() ctx: GraphQLContext, @Arg('input', () => HostExtensionInputType) input: HostExtensionInputType): Promise<AdminToolType> {
    return this.withOwnership(ctx, await this.s.toolAdmin.upsertHostExtension(ctx.principal, { ...input, ...classificationOf(input), implementation: implementationOf(input.implementation) }));
  }

  @Mutation(() => Boolean)
  async deleteHostExtension(@Ctx() ctx: GraphQLContext, @Arg('toolId', () => String) toolId: string): Promise<boolean> {
    return this.s.toolAdmin.deleteHostExtension(ctx.principal, toolId);
  }

  @Mutation(() => AdminToolType, { description: 'host-admin: the host classification of a tool. exec is refused for anything but host-extension.' })
  async classifyTool(@Ctx() ctx: GraphQLContext, @Arg('input', () => ClassifyToolInput) input: ClassifyToolInput): Promise<AdminToolType> {
    return this.withOwnership(ctx, await this.s.toolAdmin.classifyTool(ctx.principal, input.toolId, classificationOf(input)));
  }

  @Mutation(() => AdminToolType, { description: 'host-admin: withdraw the decision for an MCP tool; it becomes write again (TC-DESC-6).' })
  async unclassifyTool(@Ctx() ctx: GraphQLContext, @Arg('toolId', () => String) toolId: string): Promise<AdminToolType> {
    return this.withOwnership(ctx, await this.s.toolAdmin.unclassifyTool(ctx.principal, toolId));
  }

  private async withOwnership(ctx: GraphQLContext, r: ToolRecord): Promise<AdminToolType> {
    return toAdminTool(r, (await this.s.toolAdmin.ownership(ctx.principal))(r));
  }
}

/** GraphQL's { value | fromEnv } inputs to the domain's secret form; a value given both ways is refused by the service. */
function implementationOf(i: ExtensionImplementationInput | null | undefined): ExtensionImplementationSpec | null {
  if (!i) return null;
  const v = (x: { value?: string | null; fromEnv?: string | null }): SecretSpec => (x.fromEnv ? { fromEnv: x.fromEnv } : (x.value ?? ''));
  return { http: { url: v(i.http.url), secret: v(i.http.secret), ...(i.http.timeoutMs != null ? { timeoutMs: i.http.timeoutMs } : {}) } };
}

function classificationOf(i: { safetyTier: string; replayPolicy: string; egress: string }): Classification {
  // Validated by the service (assertClassificationAllowed) before anything is written.
  return { safetyTier: i.safetyTier, replayPolicy: i.replayPolicy, egress: i.egress } as Classification;
}

function toAdminTool(r: ToolRecord, own: { owner: string; classificationOwner: string | null }): AdminToolType {
  // Claims are upstream text, stored as received: shown redacted (issue 11, defect 3; revealUpstreamTool has the raw value).
  const claims = r.claimsText === null ? { value: null, redacted: false } : redactJson(JSON.parse(r.claimsText) as unknown);
  return Object.assign(new AdminToolType(), {
    toolId: r.toolId,
    source: r.source,
    origin: r.origin,
    owner: own.owner,
    classificationOwner: own.classificationOwner,
    tenantId: r.tenantId,
    classified: r.classified,
    claims: claims.value,
    claimsRedacted: claims.redacted,
    contentHash: r.contentHash,
    descriptor: recordView(r, 'standard') as ToolDescriptorType,
    compactNotes: (JSON.parse(r.compactNotesText) as CompactNoteType[]).map((n) => Object.assign(new CompactNoteType(), n)),
    ingestNotes: (JSON.parse(r.ingestNotesText) as IngestNoteType[]).map((n) => Object.assign(new IngestNoteType(), n)),
  });
}
