import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

@ObjectType('SyncProgress', { description: 'A sync running now (issue 12): what it has read so far.' })
export class SyncProgressType {
  @Field(() => String) startedAt!: string;
  @Field(() => Int, { description: 'tools/list pages read so far.' }) pages!: number;
  @Field(() => Int, { description: 'Tools read so far (not yet checked or stored).' }) toolsRead!: number;
  @Field(() => String, { description: 'When this progress was recorded (by the replica running the sync).' }) updatedAt!: string;
}

@ObjectType('McpSource', { description: 'A registered MCP server. Connection secrets are write-only and never appear here.' })
export class McpSourceType {
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'stdio | http' }) transport!: string;
  @Field(() => String, { nullable: true, description: 'Credential-shaped parts are shown as [redacted]; put secrets in env, not in the command line.' }) command!: string | null;
  @Field(() => [String], { description: 'Credential-shaped arguments are shown as [redacted] (and so in audit rows); put secrets in env.' }) args!: string[];
  @Field(() => String, { nullable: true, description: 'http: scheme, host and path only (query and userinfo are never shown).' }) url!: string | null;
  @Field(() => [String], { description: 'Names of the environment entries given to a stdio server (values are write-only).' }) envNames!: string[];
  @Field(() => [String], { description: 'Names of the headers sent to an http server (values are write-only).' }) headerNames!: string[];
  @Field(() => ID, { nullable: true }) tenantId!: string | null;
  @Field(() => String, { description: 'withhold | keep-serving: what happens to a classified tool whose definition changed.' }) driftPolicy!: string;
  @Field(() => Int) syncIntervalSeconds!: number;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => String, { description: 'config | graphql' }) origin!: string;
  @Field(() => String, { description: 'config | api: who owns the source. Applying a config file never changes or removes what the API owns (docs/operators.md).' }) owner!: string;
  @Field(() => String, { description: 'never-synced | ok | degraded | failing' }) status!: string;
  @Field(() => String, { nullable: true, description: 'Why the last sync failed; the source\'s secret values and anything credential-shaped are redacted.' }) lastError!: string | null;
  @Field(() => String, { nullable: true }) lastSyncAt!: string | null;
  @Field(() => String, { nullable: true }) lastSuccessAt!: string | null;
  @Field(() => Int, { description: 'Tools served from this source now.' }) toolCount!: number;
  @Field(() => Int) quarantinedCount!: number;
  @Field(() => SyncProgressType, { nullable: true, description: 'The sync running now, on any replica; null when none runs.' }) syncProgress!: SyncProgressType | null;
  @Field(() => String, {
    nullable: true,
    description: 'Set while the source is throttled for flooding notifications: until then its notifications are dropped and trigger no sync (scheduled and on-demand syncs go on).',
  })
  throttledUntil!: string | null;
  @Field(() => String, { nullable: true, description: 'Why it is throttled (with throttledUntil).' }) throttleReason!: string | null;
  @Field(() => Int, { description: 'Notifications this replica received from the source since it started.' }) notificationsReceived!: number;
  @Field(() => Int, { description: 'Of those, dropped unparsed: past the per-second cap (TOOLCAT_SYNC_MAX_NOTIFICATIONS_PER_SECOND) or while throttled.' }) notificationsDropped!: number;
}

@ObjectType('UpstreamTool', {
  description: 'A tool as the server listed it: what it claims, next to whether it is served. Credential material is shown as [redacted]; revealUpstreamTool shows the raw value.',
})
export class UpstreamToolType {
  @Field(() => ID, { description: 'Stable key of the tool within its source (names it to revealUpstreamTool even when its name is redacted).' }) key!: string;
  @Field(() => String, { description: 'The name; [redacted] where it looks like a credential (such a tool is quarantined).' }) name!: string;
  @Field(() => String, { nullable: true, description: 'null when the name cannot form a toolId (then quarantined); redacted like the name.' }) toolId!: string | null;
  @Field(() => String, { nullable: true, description: 'Why the tool is not served; null when it is valid.' }) quarantineReason!: string | null;
  @Field(() => String, { description: 'none | pending: the definition changed after the host classified it.' }) reviewState!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'The annotations the server claims (untrusted; never served), credentials redacted.' }) claims!: unknown;
  @Field(() => GraphQLJSON, { description: 'The tool as received, credentials redacted (values of secret-like properties too).' }) raw!: unknown;
  @Field(() => Boolean, { description: 'true when anything in name, toolId, raw or claims was redacted; revealUpstreamTool shows the raw value.' }) redacted!: boolean;
  @Field(() => String) definitionHash!: string;
  @Field(() => String) firstSeenAt!: string;
  @Field(() => String) lastSeenAt!: string;
}

@ObjectType('RevealedUpstreamTool', {
  description: 'An upstream tool exactly as received, credentials included. Only revealUpstreamTool returns it, and each call is audited.',
})
export class RevealedUpstreamToolType {
  @Field(() => String) source!: string;
  @Field(() => ID) key!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) toolId!: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'The annotations as the server sent them.' }) claims!: unknown;
  @Field(() => GraphQLJSON, { description: 'The tool exactly as received.' }) raw!: unknown;
}

@ObjectType('ToolChange', {
  description: 'One entry of the upstream change history. Names, ids and details are recorded redacted where they look like credentials (toolChanges(toolId) matches the recorded id).',
})
export class ToolChangeType {
  @Field(() => ID) id!: string;
  @Field(() => String) sourceName!: string;
  @Field(() => String) toolName!: string;
  @Field(() => String, { nullable: true }) toolId!: string | null;
  @Field(() => String, { description: 'added | changed | removed | quarantined | approved' }) kind!: string;
  @Field(() => String, { nullable: true }) oldHash!: string | null;
  @Field(() => String, { nullable: true }) newHash!: string | null;
  @Field(() => String, { nullable: true }) detail!: string | null;
  @Field(() => String) at!: string;
}

@ObjectType('SyncResult')
export class SyncResultType {
  @Field(() => String) source!: string;
  @Field(() => String) status!: string;
  @Field(() => Int) toolCount!: number;
  @Field(() => Int) quarantinedCount!: number;
  @Field(() => Int) added!: number;
  @Field(() => Int) changed!: number;
  @Field(() => Int) removed!: number;
  @Field(() => Int) durationMs!: number;
  @Field(() => String, { nullable: true }) error!: string | null;
}

@InputType('SecretInput', { description: 'A write-only value: a literal, or the name of an environment variable of the toolcat process.' })
export class SecretInput {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) value?: string | null;
  @Field(() => String, { nullable: true }) fromEnv?: string | null;
}

@InputType('UrlInput', { description: 'The http endpoint: a literal URL (it may carry a token) or an environment variable holding it.' })
export class UrlInput {
  @Field(() => String, { nullable: true }) value?: string | null;
  @Field(() => String, { nullable: true }) fromEnv?: string | null;
}

@InputType('SourceInput')
export class SourceInputType {
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'stdio | http' }) transport!: string;
  @Field(() => String, { nullable: true }) command?: string | null;
  @Field(() => [String], { nullable: true }) args?: string[] | null;
  @Field(() => ID, { nullable: true }) tenantId?: string | null;
  @Field(() => String, { nullable: true, defaultValue: 'withhold' }) driftPolicy?: string;
  @Field(() => Int, { nullable: true, defaultValue: 300 }) syncIntervalSeconds?: number;
  @Field(() => Boolean, { nullable: true, defaultValue: true }) enabled?: boolean;
  @Field(() => UrlInput, { nullable: true }) url?: UrlInput | null;
  @Field(() => [SecretInput], { nullable: true, description: 'stdio environment (write-only). Omitted on update: kept as stored.' }) env?: SecretInput[] | null;
  @Field(() => [SecretInput], { nullable: true, description: 'http headers (write-only). Omitted on update: kept as stored.' }) headers?: SecretInput[] | null;
}
