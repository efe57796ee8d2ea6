import { ownerOfOrigin } from '../services/ownership';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import type { McpSourceEntity } from '../persistence/mcp-source.entity';
import type { ToolChangeEntity } from '../persistence/tool-change.entity';
import { requireRole } from '../catalog/admin-scope';
import type { SourceInput } from '../sources/source-admin.service';
import { redactArgs, redactJson, redactText } from '../catalog/credential-redaction';
import type { SecretValue } from '../sources/source-spec';
import type { GraphQLContext } from './context';
import type { AppServices } from './services';
import { McpSourceType, RevealedUpstreamToolType, type SecretInput, SourceInputType, SyncProgressType, SyncResultType, ToolChangeType, UpstreamToolType } from './source.types';
import { FIRST_ARG_DESCRIPTION, OFFSET_ARG_DESCRIPTION } from './log-page.args';

/**
 * MCP sources for host admins: registration (secrets write-only), status, upstream claims, history, sync.
 * Whatever an upstream server or an admin put there that looks like a credential is shown as `[redacted]`
 * (issue 11, defect 3); revealUpstreamTool is the one audited way to see an upstream tool's raw listing.
 */
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

  @Query(() => [UpstreamToolType], {
    description: 'Everything the source listed, quarantined tools included, with claims and review state; credentials redacted (see revealUpstreamTool).',
  })
  async upstreamTools(@Ctx() ctx: GraphQLContext, @Arg('source', () => String) source: string): Promise<UpstreamToolType[]> {
    return (await this.s.sources.upstreamTools(ctx.principal, source)).map((u) => {
      const raw = redactJson(JSON.parse(u.raw) as unknown);
      const rawName = (raw.value as { name?: unknown } | null)?.name;
      // The name is taken from the listing, redacted whole, and only then cut (a cut token would not look like one).
      const name = typeof rawName === 'string' ? rawName.slice(0, 512) : redactText(u.name);
      const toolId = redactText(u.toolId);
      return Object.assign(new UpstreamToolType(), {
        key: u.key, name, toolId, quarantineReason: redactText(u.quarantineReason), reviewState: u.reviewState, definitionHash: u.definitionHash,
        raw: raw.value, claims: claimsOf(raw.value), redacted: raw.redacted || toolId !== u.toolId || name !== u.name.slice(0, 512), firstSeenAt: u.firstSeenAt, lastSeenAt: u.lastSeenAt,
      });
    });
  }

  @Mutation(() => RevealedUpstreamToolType, {
    description:
      'host-admin: an upstream tool exactly as received, credentials included (upstreamTools and adminTools show them redacted). Give its key or its name. ' +
      'Every call writes an audit row recording that it was revealed and by whom; the value is never recorded.',
  })
  async revealUpstreamTool(
    @Ctx() ctx: GraphQLContext,
    @Arg('source', () => String) source: string,
    @Arg('key', () => ID, { nullable: true }) key?: string | null,
    @Arg('name', () => String, { nullable: true }) name?: string | null,
  ): Promise<RevealedUpstreamToolType> {
    const u = await this.s.sources.reveal(ctx.principal, source, { key, name });
    const raw = JSON.parse(u.raw) as unknown;
    const rawName = (raw as { name?: unknown } | null)?.name;
    return Object.assign(new RevealedUpstreamToolType(), { source, key: u.key, name: typeof rawName === 'string' ? rawName : u.name, toolId: u.toolId, raw, claims: claimsOf(raw) });
  }

  @Query(() => [ToolChangeType], { description: 'Upstream change history, newest first.' })
  async toolChanges(
    @Ctx() ctx: GraphQLContext,
    @Arg('source', () => String, { nullable: true }) source?: string | null,
    @Arg('toolId', () => String, { nullable: true }) toolId?: string | null,
    @Arg('first', () => Int, { defaultValue: 50, description: FIRST_ARG_DESCRIPTION }) first = 50,
    @Arg('offset', () => Int, { defaultValue: 0, description: OFFSET_ARG_DESCRIPTION }) offset = 0,
  ): Promise<ToolChangeType[]> {
    // Rows are written redacted (change()); read redacted too, for rows older than that and a detector that learnt more.
    return (await this.s.sources.changes(ctx.principal, { sourceName: source, toolId, first, offset })).map((c: ToolChangeEntity) =>
      Object.assign(new ToolChangeType(), c, { toolName: redactText(c.toolName), toolId: redactText(c.toolId), detail: redactText(c.detail) }),
    );
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
    // The old sessions are not ended upstream: the URL or secrets may have changed because that host is no longer
    // trusted, and a DELETE would carry the old secrets there once more.
    await this.s.sync.drop(saved.name, { endUpstream: false });
    await this.s.callSessions.drop(saved.name, { endUpstream: false });
    await this.s.scheduler.refresh(saved.name);
    return this.toType(saved);
  }

  @Mutation(() => Boolean, { description: 'host-admin: remove a source; its tools stop being served at once.' })
  async removeSource(@Ctx() ctx: GraphQLContext, @Arg('name', () => String) name: string): Promise<boolean> {
    const ok = await this.s.sources.remove(ctx.principal, name);
    this.s.scheduler.unschedule(name);
    await this.s.sync.drop(name, { endUpstream: false }); // as in updateSource
    await this.s.callSessions.drop(name, { endUpstream: false });
    return ok;
  }

  @Mutation(() => SyncResultType, {
    description: 'host-admin: sync a source now and wait for the result. CONFLICT ("Too many syncs") when this replica already runs and queues as many as it may.',
  })
  async syncSource(@Ctx() ctx: GraphQLContext, @Arg('name', () => String) name: string): Promise<SyncResultType> {
    requireRole(ctx.principal, 'host-admin');
    if (!(await this.s.sources.get(ctx.principal, name))) throw new CatalogError(CatalogErrorCode.NotFound, 'No source with this name.');
    const result = await this.s.sync.sync(name);
    await this.s.audit.record({ targetType: 'source', targetId: name, tenantId: null, after: result });
    return Object.assign(new SyncResultType(), result, { error: redactText(result.error) });
  }

  @Mutation(() => Boolean, { description: 'host-admin: approve the changed definition of a drifted MCP tool; its classification applies again.' })
  async approveTool(@Ctx() ctx: GraphQLContext, @Arg('toolId', () => String) toolId: string): Promise<boolean> {
    await this.s.sources.approve(ctx.principal, toolId);
    return true;
  }

  private async toType(r: McpSourceEntity): Promise<McpSourceType> {
    // Only the names of secret entries are exposed; values never leave the secrets table through GraphQL. A token
    // typed into the command line is stored as given (the server needs it) and shown redacted (issue 11).
    const names = await this.s.sources.secretNames(r.name);
    return Object.assign(new McpSourceType(), {
      name: r.name, transport: r.transport, command: redactText(r.command), args: redactArgs(JSON.parse(r.args) as string[]), url: redactText(r.publicUrl),
      envNames: names.env.map((n) => redactText(n)), headerNames: names.headers.map((n) => redactText(n)),
      tenantId: r.tenantId, driftPolicy: r.driftPolicy, syncIntervalSeconds: r.syncIntervalSeconds, enabled: Boolean(r.enabled), origin: r.origin, owner: ownerOfOrigin(r.origin),
      status: r.status, lastError: redactText(r.lastError), lastSyncAt: r.lastSyncAt, lastSuccessAt: r.lastSuccessAt, toolCount: r.toolCount, quarantinedCount: r.quarantinedCount,
      ...this.liveState(r),
    });
  }

  /**
   * Issue 12: a running sync's progress and a flooding source's throttle, from the row (any replica) and this
   * replica's own counters. A throttle is shown while it lasts, by this replica's clock or the row's.
   */
  private liveState(r: McpSourceEntity): Pick<McpSourceType, 'syncProgress' | 'throttledUntil' | 'throttleReason' | 'notificationsReceived' | 'notificationsDropped'> {
    const p = this.s.sync.progressOf(r);
    const n = this.s.sync.notificationStatsOf(r.name);
    const until = Math.max(n.throttledUntil ?? 0, r.throttledUntil ? Date.parse(r.throttledUntil) : 0);
    const throttled = until > Date.now();
    return {
      syncProgress: p ? Object.assign(new SyncProgressType(), { startedAt: p.startedAt, pages: p.pages, toolsRead: p.toolsRead, updatedAt: p.updatedAt }) : null,
      throttledUntil: throttled ? new Date(until).toISOString() : null,
      throttleReason: throttled ? redactText(r.throttleReason) : null,
      notificationsReceived: n.received,
      notificationsDropped: n.dropped,
    };
  }
}

/** An upstream tool's claims: its MCP annotations. */
function claimsOf(raw: unknown): unknown {
  return raw && typeof raw === 'object' ? ((raw as { annotations?: unknown }).annotations ?? null) : null;
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

