import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { requireRole, tenantScopeOf } from '../catalog/admin-scope';
import { View, resolveProfile } from '../catalog/projection';
import type { Principal } from '../catalog/principal';
import { toolIdForFunctionName } from '../catalog/compact/profiles/function-name';
import { argumentsFromProfile } from '../catalog/compact/profiles/arguments';
import type { JsonObject, JsonValue } from '../catalog/compact/types';
import type { ToolCallResult } from '../invocation/invocation.service';
import type { GraphQLContext } from './context';
import { requirePrincipal } from './require-principal';
import type { AppServices } from './services';
import { AdminToolCallType, CallErrorType, ToolCallRecordType, ToolCallResultType, ToolCallStartType } from './call.types';
import { FIRST_ARG_DESCRIPTION, OFFSET_ARG_DESCRIPTION } from './log-page.args';

/**
 * Calls (issue 14). A call is decided by the catalog's own read (null = the catalog's 404); the faces translate:
 * REST runs startToolCall in-process (JSON or SSE), as the MCP face will. There is no call mutation over HTTP
 * GraphQL: a GraphQL request could carry many aliased calls past the REST request budget, and its caller's
 * disconnect would not cancel them (red-team pass on issue 14); agents call through REST (or MCP).
 */
@Resolver()
export class CallResolver {
  constructor(private readonly s: AppServices) {}

  @Mutation(() => ToolCallStartType, { nullable: true, description: 'In-process only (REST, MCP): starts a call and hands back its live handle.' })
  async startToolCall(
    @Ctx() ctx: GraphQLContext,
    @Arg('toolId', () => String) toolId: string,
    @Arg('arguments', () => GraphQLJSON, { nullable: true }) args?: unknown,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey?: string | null,
    @Arg('profile', () => String, { nullable: true, description: 'Issue 16: the profile whose functionName `toolId` may be, and whose argument conventions apply.' }) profile?: string | null,
  ): Promise<ToolCallStartType | null> {
    const p = requirePrincipal(ctx);
    const named = await this.fromProfile(p, toolId, args, profile);
    if (!named) return null;
    const handle = await this.s.invocation.start(p, named.toolId, named.args, { idempotencyKey, requestId: ctx.requestId, ...(ctx.bodyBytes !== undefined ? { argumentBytesAtMost: ctx.bodyBytes } : {}) });
    return handle ? Object.assign(new ToolCallStartType(), { callId: handle.callId, replayed: handle.replayed, handle }) : null;
  }

  /**
   * Issue 16 §2: a model calls a tool by its profile's `functionName`; resolved back to the toolId among the caller's
   * own visible tools (the profile's list, so it can only name a tool the caller sees), and openai strict's
   * "null for an optional field" undone before validation (argumentsFromProfile). No profile: the toolId as given.
   * null: no visible tool has that name (the catalog's 404, as for an unknown toolId).
   */
  private async fromProfile(p: Principal, name: string, args: unknown, requested: string | null | undefined): Promise<{ toolId: string; args: unknown } | null> {
    const profile = resolveProfile(View.Compact, requested);
    if (profile === null) return { toolId: name, args };
    const listed = await this.s.catalog.list(p, View.Compact, profile);
    const byName = listed.descriptors.find((d) => d.toolId === name || (d as { functionName?: string }).functionName === name);
    const toolId = byName?.toolId ?? toolIdForFunctionName(profile, name, listed.descriptors.map((d) => d.toolId));
    if (toolId === null) return null;
    const neutral = await this.s.catalog.get(p, toolId, View.Compact, null);
    if (!neutral) return null;
    const isObject = args !== null && typeof args === 'object' && !Array.isArray(args);
    return { toolId, args: isObject ? argumentsFromProfile(profile, neutral.descriptor.inputSchema as JsonObject, args as JsonValue) : args };
  }

  @Query(() => ToolCallRecordType, { nullable: true, description: 'A past call of the caller; null for anyone else\'s (as for one that never was).' })
  async toolCall(@Ctx() ctx: GraphQLContext, @Arg('toolId', () => String) toolId: string, @Arg('callId', () => String) callId: string): Promise<ToolCallRecordType | null> {
    const past = await this.s.invocation.past(requirePrincipal(ctx), toolId, callId);
    if (!past) return null;
    const a = past.answer;
    return Object.assign(new ToolCallRecordType(), {
      callId: past.row.callId, toolId: past.row.toolId, status: past.status, outcome: past.outcome, startedAt: past.row.startedAt, finishedAt: past.row.finishedAt,
      durationMs: past.row.durationMs, result: a && 'result' in a ? toResult(a.result, false) : null, error: a && 'error' in a ? Object.assign(new CallErrorType(), a.error) : null,
    });
  }

  @Query(() => [AdminToolCallType], { description: 'The call log, newest first. host-admin: every tenant; tenant-admin: its own.' })
  async toolCalls(
    @Ctx() ctx: GraphQLContext,
    @Arg('toolId', () => String, { nullable: true }) toolId?: string | null,
    @Arg('outcome', () => String, { nullable: true }) outcome?: string | null,
    @Arg('first', () => Int, { defaultValue: 50, description: FIRST_ARG_DESCRIPTION }) first = 50,
    @Arg('offset', () => Int, { defaultValue: 0, description: OFFSET_ARG_DESCRIPTION }) offset = 0,
  ): Promise<AdminToolCallType[]> {
    const p = requireRole(ctx.principal, 'host-admin', 'tenant-admin');
    const rows = await this.s.calls.page({ tenantId: tenantScopeOf(p), toolId, outcome, first, offset });
    return rows.map((r) =>
      Object.assign(new AdminToolCallType(), {
        callId: r.callId, tenantId: r.tenantId, principalId: r.principalId, principalKind: r.principalKind, toolId: r.toolId, safetyTier: r.safetyTier,
        replayPolicy: r.replayPolicy, egress: r.egress, status: r.status, outcome: r.outcome, argumentBytes: r.argumentBytes, resultBytes: r.resultBytes,
        requestHash: r.requestHash, arguments: r.arguments === null ? null : (JSON.parse(r.arguments) as unknown), idempotencyKeyUsed: r.idempotencyKey !== null,
        attempts: r.attempts, startedAt: r.startedAt, durationMs: r.durationMs, requestId: r.requestId,
      }),
    );
  }
}

function toResult(r: ToolCallResult, replayed: boolean): ToolCallResultType {
  return Object.assign(new ToolCallResultType(), { ...r, content: [...r.content], replayed });
}
