import { GraphQLJSON } from 'graphql-scalars';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { ToolDescriptorType } from './tool.types';

@ObjectType('Tenant')
export class TenantType {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) createdAt!: string;
}

@ObjectType('Principal', { description: 'An agent or admin identity inside a tenant. The API key itself is never readable.' })
export class PrincipalType {
  @Field(() => ID) id!: string;
  @Field(() => ID) tenantId!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'agent | tenant-admin | host-admin' }) role!: string;
  @Field(() => String, { description: 'First characters of the API key, to tell keys apart.' }) keyPrefix!: string;
  @Field(() => String) createdAt!: string;
  @Field(() => String, { nullable: true }) revokedAt!: string | null;
}

@ObjectType('CreatedPrincipal')
export class CreatedPrincipalType {
  @Field(() => PrincipalType) principal!: PrincipalType;
  @Field(() => String, { description: 'The API key: shown this once, only its hash is stored.' }) apiKey!: string;
}

@ObjectType('Grant', { description: 'Lets a tenant, or narrows one principal to, the tools matching all of its conditions.' })
export class GrantType {
  @Field(() => ID) id!: string;
  @Field(() => ID) tenantId!: string;
  @Field(() => ID, { nullable: true, description: 'null: the whole tenant (unless group is set); otherwise narrows this principal.' }) principalId!: string | null;
  @Field(() => String, { nullable: true, description: 'Narrows every JWT principal whose groups claim holds this name.' }) group!: string | null;
  @Field(() => String, { description: 'toolId pattern; * matches any run of characters.' }) toolPattern!: string;
  @Field(() => String, { nullable: true }) source!: string | null;
  @Field(() => String, { nullable: true, description: 'Highest safetyTier granted (pure < read < write < exec).' }) maxSafetyTier!: string | null;
  @Field(() => String) createdAt!: string;
  @Field(() => Boolean, { description: 'false: the tenant\'s ceiling was lowered below this grant; tools outside the ceiling stay invisible.' }) withinCeiling!: boolean;
}

@ObjectType('CeilingEntry', { description: 'One entry of a tenant ceiling: the most that grants of the tenant may allow (same shape as a grant).' })
export class CeilingEntryType {
  @Field(() => String, { description: 'toolId pattern; * matches any run of characters.' }) toolPattern!: string;
  @Field(() => String, { nullable: true, description: 'null: every source.' }) source!: string | null;
  @Field(() => String, { nullable: true, description: 'null: every tier.' }) maxSafetyTier!: string | null;
}

@InputType()
export class CeilingEntryInput {
  @Field(() => String) toolPattern!: string;
  @Field(() => String, { nullable: true }) source?: string | null;
  @Field(() => String, { nullable: true }) maxSafetyTier?: string | null;
}

@ObjectType('AdminTool', { description: 'A tool as admins see it: the host decision next to what the upstream claimed.' })
export class AdminToolType {
  @Field(() => String) toolId!: string;
  @Field(() => String) source!: string;
  @Field(() => String, { description: 'config | graphql for host extensions; the source name for MCP tools.' }) origin!: string;
  @Field(() => String, { description: 'config | api: who owns the tool (an MCP tool: its source\'s owner). Applying a config file never changes what the API owns (docs/operators.md).' }) owner!: string;
  @Field(() => String, { nullable: true, description: 'config | api: who made the classification in force; null: none (the fail-closed default applies). An API classification of a config tool is kept when the file is applied again.' }) classificationOwner!: string | null;
  @Field(() => ID, { nullable: true }) tenantId!: string | null;
  @Field(() => Boolean, { description: 'false: no host decision; the fail-closed default applies (TC-DESC-6).' }) classified!: boolean;
  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Upstream MCP annotations as claimed; untrusted, never served. Credentials are shown as [redacted]; revealUpstreamTool shows the raw value.',
  })
  claims!: unknown;
  @Field(() => Boolean, { description: 'true when something in claims was redacted.' }) claimsRedacted!: boolean;
  @Field(() => String) contentHash!: string;
  @Field(() => ToolDescriptorType, { description: 'Exactly what a granted agent receives in the standard view.' }) descriptor!: ToolDescriptorType;
  @Field(() => [CompactNoteType], { description: 'What the compact view relaxed, dropped or truncated in this tool\'s inputSchema.' }) compactNotes!: CompactNoteType[];
  @Field(() => [IngestNoteType], { description: 'What the ingest gate repaired in the definition it received (e.g. a root without "type").' }) ingestNotes!: IngestNoteType[];
}

@ObjectType('IngestNote', { description: 'One repair the ingest gate made to a definition before serving it.' })
export class IngestNoteType {
  @Field(() => String, { description: 'JSON Pointer into the definition as received.' }) path!: string;
  @Field(() => String) rule!: string;
  @Field(() => String) text!: string;
}

@ObjectType('CompactNote', { description: 'One relaxation made by the compactor (machine-readable; the same words are in the compact schema\'s descriptions).' })
export class CompactNoteType {
  @Field(() => String, { description: 'JSON Pointer into the compact inputSchema.' }) path!: string;
  @Field(() => String, { description: 'JSON Pointer into the original inputSchema.' }) origin!: string;
  @Field(() => String) rule!: string;
  @Field(() => String, { description: 'inlined | merged | relaxed | dropped | truncated | fallback' }) action!: string;
  @Field(() => String) text!: string;
}

@InputType()
export class CreatePrincipalInput {
  @Field(() => ID) tenantId!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { defaultValue: 'agent', description: 'agent | tenant-admin | host-admin' }) role!: string;
}

@InputType()
export class CreateGrantInput {
  @Field(() => ID) tenantId!: string;
  @Field(() => ID, { nullable: true }) principalId?: string | null;
  @Field(() => String, { nullable: true, description: 'Narrow the JWT principals of this group instead of one principal.' }) group?: string | null;
  @Field(() => String) toolPattern!: string;
  @Field(() => String, { nullable: true }) source?: string | null;
  @Field(() => String, { nullable: true }) maxSafetyTier?: string | null;
}

@InputType({ description: 'A grant not saved: previewTools(draftGrants:) shows what the principal would see with it added (issue 20).' })
export class DraftGrantInput {
  @Field(() => ID, { nullable: true, description: 'Narrow this principal of the previewed tenant; null: the whole tenant.' }) principalId?: string | null;
  @Field(() => String, { nullable: true }) group?: string | null;
  @Field(() => String) toolPattern!: string;
  @Field(() => String, { nullable: true }) source?: string | null;
  @Field(() => String, { nullable: true }) maxSafetyTier?: string | null;
}

@InputType()
export class ClassifyToolInput {
  @Field(() => String) toolId!: string;
  @Field(() => String) safetyTier!: string;
  @Field(() => String) replayPolicy!: string;
  @Field(() => String) egress!: string;
}

@InputType('WriteOnlyValue', { description: 'A literal, or the name of an environment variable of the toolcat process read when the value is used. Never read back.' })
export class WriteOnlyValueInput {
  @Field(() => String, { nullable: true }) value?: string | null;
  @Field(() => String, { nullable: true }) fromEnv?: string | null;
}

@InputType('HttpImplementationInput')
export class HttpImplementationInput {
  @Field(() => WriteOnlyValueInput, { description: 'The endpoint toolcat POSTs each call to (docs/extensions.md).' }) url!: WriteOnlyValueInput;
  @Field(() => WriteOnlyValueInput, { description: 'The HMAC secret the request is signed with (at least 16 characters).' }) secret!: WriteOnlyValueInput;
  @Field(() => Int, { nullable: true }) timeoutMs?: number | null;
}

@InputType('ExtensionImplementationInput')
export class ExtensionImplementationInput {
  @Field(() => HttpImplementationInput) http!: HttpImplementationInput;
}

@InputType('HostExtensionInput')
export class HostExtensionInputType {
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) title?: string | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => GraphQLJSON) inputSchema!: unknown;
  @Field(() => GraphQLJSON, { nullable: true }) outputSchema?: unknown;
  @Field(() => String) safetyTier!: string;
  @Field(() => String) replayPolicy!: string;
  @Field(() => String) egress!: string;
  @Field(() => ID, { nullable: true }) tenantId?: string | null;
  @Field(() => ExtensionImplementationInput, { nullable: true, description: 'How its calls are made (issue 14); absent: calls answer NOT_IMPLEMENTED.' })
  implementation?: ExtensionImplementationInput | null;
}
