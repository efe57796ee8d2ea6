import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { McpSourceEntity } from '../persistence/mcp-source.entity';
import type { ToolChangeEntity } from '../persistence/tool-change.entity';
import { requireRole } from '../services/admin-scope';
import type { SourceInput } from '../sources/source-admin.service';
import type { SecretValue } from '../sources/source-spec';
import type { GraphQLContext } from './context';
import type { AppServices } from './services';
import { McpSourceType, type SecretInput, SourceInputType, SyncResultType, ToolChangeType, UpstreamToolType } from './source.types';

/** MCP sources for host admins: registration (secrets write-only), status, upstream claims, history, sync. */
@Resolver()
export class SourceResolver {
  constructor(private readonly s: AppServices) {}

  @Query(() => [McpSourceType])
  async sources(@Ctx() ctx: GraphQLContext): Promise<McpSourceType[]> {
    return Promise.all((await this.s.sources.list(ctx.principal)).map((r) => this.toType(r)));
  }

  @Query(() => McpSourceType, { nullable: true })
  async source(@Ctx() ctx: GraphQLContext, @Arg('name', () => String) name: string): Promise<McpSourceType | null> {
    const r = await this.s.sources.get(ctx.principal, name);
    return r ? this.toType(r) : null;
  }

  @Query(() => [UpstreamToolType], { description: 'Everything the source listed, quarantined tools included, with claims and review state.' })
  async upstreamTools(@Ctx() ctx: GraphQLContext, @Arg('source', () => String) source: string): Promise<UpstreamToolType[]> {
    return (await this.s.sources.upstreamTools(ctx.principal, source)).map((u) => {
      const raw = JSON.parse(u.raw) as Record<string, unknown> | null;
      return Object.assign(new UpstreamToolType(), {
        name: u.name, toolId: u.toolId, quarantineReason: u.quarantineReason, reviewState: u.reviewState, definitionHash: u.definitionHash,
        raw, claims: raw && typeof raw === 'object' ? (raw.annotations ?? null) : null, firstSeenAt: u.firstSeenAt, lastSeenAt: u.lastSeenAt,
      });
    });
  }

  @Query(() => [ToolChangeType], { description: 'Upstream change history, newest first.' })
  async toolChanges(
    @Ctx() ctx: GraphQLContext,
    @Arg('source', () => String, { nullable: true }) source?: string | null,
    @Arg('toolId', () => String, { nullable: true }) toolId?: string | null,
    @Arg('first', () => Int, { defaultValue: 50 }) first = 50,
    @Arg('offset', () => Int, { defaultValue: 0 }) offset = 0,
  ): Promise<ToolChangeType[]> {
    return (await this.s.sources.changes(ctx.principal, { sourceName: source, toolId, first, offset })).map((c: ToolChangeEntity) => Object.assign(new ToolChangeType(), c));
  }

  @Mutation(() => McpSourceType, { description: 'host-admin: register an MCP server (not synced until syncSource or its schedule).' })
  async registerSource(@Ctx() ctx: GraphQLContext, @Arg('input', () => SourceInputType) input: SourceInputType): Promise<McpSourceType> {
    const saved = await this.s.sources.register(ctx.principal, toInput(input, true));
    await this.s.scheduler.refresh(saved.name);
    return this.toType(saved);
  }

  @Mutation(() => McpSourceType, { description: 'host-admin: change a source. Omitted env/headers/url keep their stored values.' })
  async updateSource(@Ctx() ctx: GraphQLContext, @Arg('input', () => SourceInputType) input: SourceInputType): Promise<McpSourceType> {
    const secretsGiven = input.env != null || input.headers != null || input.url != null;
    const saved = await this.s.sources.update(ctx.principal, toInput(input, secretsGiven));
    await this.s.sync.drop(saved.name);
    await this.s.scheduler.refresh(saved.name);
    return this.toType(saved);
  }

  @Mutation(() => Boolean, { description: 'host-admin: remove a source; its tools stop being served at once.' })
  async removeSource(@Ctx() ctx: GraphQLContext, @Arg('name', () => String) name: string): Promise<boolean> {
    const ok = await this.s.sources.remove(ctx.principal, name);
    this.s.scheduler.unschedule(name);
    await this.s.sync.drop(name);
    return ok;
  }

  @Mutation(() => SyncResultType, { description: 'host-admin: sync a source now and wait for the result.' })
  async syncSource(@Ctx() ctx: GraphQLContext, @Arg('name', () => String) name: string): Promise<SyncResultType> {
    requireRole(ctx.principal, 'host-admin');
    if (!(await this.s.sources.get(ctx.principal, name))) throw new CatalogError(CatalogErrorCode.NotFound, 'No source with this name.');
    const result = await this.s.sync.sync(name);
    await this.s.audit.record({ targetType: 'source', targetId: name, tenantId: null, after: result });
    return Object.assign(new SyncResultType(), result);
  }

  @Mutation(() => Boolean, { description: 'host-admin: approve the changed definition of a drifted MCP tool; its classification applies again.' })
  async approveTool(@Ctx() ctx: GraphQLContext, @Arg('toolId', () => String) toolId: string): Promise<boolean> {
    await this.s.sources.approve(ctx.principal, toolId);
    return true;
  }

  private async toType(r: McpSourceEntity): Promise<McpSourceType> {
    // Only the names of secret entries are exposed; values never leave the secrets table through GraphQL.
    const names = await this.s.sources.secretNames(r.name);
    return Object.assign(new McpSourceType(), {
      name: r.name, transport: r.transport, command: r.command, args: JSON.parse(r.args), url: r.publicUrl,
      envNames: names.env, headerNames: names.headers,
      tenantId: r.tenantId, driftPolicy: r.driftPolicy, syncIntervalSeconds: r.syncIntervalSeconds, enabled: Boolean(r.enabled), origin: r.origin,
      status: r.status, lastError: r.lastError, lastSyncAt: r.lastSyncAt, lastSuccessAt: r.lastSuccessAt, toolCount: r.toolCount, quarantinedCount: r.quarantinedCount,
    });
  }
}

function secretMap(list: SecretInput[] | null | undefined): Record<string, SecretValue> {
  const out: Record<string, SecretValue> = {};
  for (const e of list ?? []) out[e.name] = toSecret(e, e.name);
  return out;
}

function toSecret(e: { value?: string | null; fromEnv?: string | null }, what: string): SecretValue {
  if ((e.value == null) === (e.fromEnv == null)) throw new CatalogError(CatalogErrorCode.InvalidArgument, `${what}: give exactly one of value or fromEnv`);
  return e.value != null ? { value: e.value } : { fromEnv: e.fromEnv! };
}

function toInput(i: SourceInputType, withSecrets: boolean): SourceInput {
  return {
    spec: {
      name: i.name, transport: i.transport as 'stdio' | 'http', command: i.command ?? null, args: i.args ?? [], tenantId: i.tenantId ?? null,
      driftPolicy: (i.driftPolicy ?? 'withhold') as 'withhold', syncIntervalSeconds: i.syncIntervalSeconds ?? 300, enabled: i.enabled ?? true,
    },
    secrets: withSecrets ? { env: secretMap(i.env), headers: secretMap(i.headers), url: i.url ? toSecret(i.url, 'url') : null } : null,
  };
}

