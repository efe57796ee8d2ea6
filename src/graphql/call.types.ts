import { GraphQLScalarType } from 'graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import type { CallHandle } from '../invocation/invocation.service';

/** MCP CallToolResult plus ids (issue 14): what a call answered. */
@ObjectType('ToolCallResult')
export class ToolCallResultType {
  @Field(() => String) callId!: string;
  @Field(() => String) toolId!: string;
  @Field(() => Boolean) isError!: boolean;
  @Field(() => [GraphQLJSON], { description: 'MCP content blocks, as the tool sent them.' }) content!: unknown[];
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Present when the tool sent it; checked against its outputSchema.' }) structuredContent?: Record<string, unknown>;
  @Field(() => Boolean, { description: 'An Idempotency-Key replay: the recorded answer, nothing was called.' }) replayed!: boolean;
}

@ObjectType('CallError')
export class CallErrorType {
  @Field(() => String) code!: string;
  @Field(() => String) message!: string;
  @Field(() => GraphQLJSONObject, { nullable: true }) details?: Record<string, unknown>;
}

/** A past call, as its caller reads it (GET /tools/{toolId}/calls/{callId}). */
@ObjectType('ToolCallRecord')
export class ToolCallRecordType {
  @Field(() => String) callId!: string;
  @Field(() => String) toolId!: string;
  @Field(() => String, { description: 'running | completed' }) status!: string;
  @Field(() => String, { nullable: true, description: 'ok | tool-error | output-invalid | invalid-arguments | timeout | unavailable | overloaded | circuit-open | too-large | protocol | not-implemented | cancelled | failed' }) outcome!: string | null;
  @Field(() => String) startedAt!: string;
  @Field(() => String, { nullable: true }) finishedAt!: string | null;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => ToolCallResultType, { nullable: true }) result!: ToolCallResultType | null;
  @Field(() => CallErrorType, { nullable: true }) error!: CallErrorType | null;
}

/** A call as the call log keeps it, for admins (issue 14 item 7). Arguments only when TOOLCAT_CALL_RECORD_ARGUMENTS. */
@ObjectType('AdminToolCall')
export class AdminToolCallType {
  @Field(() => String) callId!: string;
  @Field(() => String) tenantId!: string;
  @Field(() => String) principalId!: string;
  @Field(() => String, { description: 'api-key | jwt' }) principalKind!: string;
  @Field(() => String) toolId!: string;
  @Field(() => String, { description: 'The host classification when the call was made.' }) safetyTier!: string;
  @Field(() => String) replayPolicy!: string;
  @Field(() => String) egress!: string;
  @Field(() => String) status!: string;
  @Field(() => String, { nullable: true }) outcome!: string | null;
  @Field(() => Int) argumentBytes!: number;
  @Field(() => Int, { nullable: true }) resultBytes!: number | null;
  @Field(() => String, { description: 'SHA-256 of the canonical JSON of toolId and arguments; empty for a call refused before its arguments were read (its tenant held its whole share of the argument checker).' }) requestHash!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Recorded only when TOOLCAT_CALL_RECORD_ARGUMENTS=true.' }) arguments!: unknown;
  @Field(() => Boolean, { description: 'The call holds an Idempotency-Key (a refusal where nothing was sent releases its key).' }) idempotencyKeyUsed!: boolean;
  @Field(() => Int) attempts!: number;
  @Field(() => String) startedAt!: string;
  @Field(() => Int, { nullable: true }) durationMs!: number | null;
  @Field(() => String, { nullable: true }) requestId!: string | null;
}

/**
 * The live handle of a started call, for the in-process faces (REST SSE, the MCP face): it passes through graphql-js
 * unchanged like JSONDocument's cached bytes. It is not part of the schema served over HTTP (graphql/public-schema.ts).
 */
const CallHandleScalar = new GraphQLScalarType({
  name: 'CallHandle',
  description: 'In-process only: a started call.',
  serialize(value: unknown): unknown {
    if (value && typeof value === 'object' && 'done' in value) return value as CallHandle;
    throw new TypeError('CallHandle is in-process only');
  },
  parseValue() {
    throw new TypeError('CallHandle is output-only');
  },
  parseLiteral() {
    throw new TypeError('CallHandle is output-only');
  },
});

@ObjectType('ToolCallStart')
export class ToolCallStartType {
  @Field(() => String) callId!: string;
  @Field(() => Boolean) replayed!: boolean;
  @Field(() => CallHandleScalar) handle!: CallHandle;
}
