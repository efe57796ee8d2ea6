import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ObjectType, createUnionType } from 'type-graphql';
import type { CachedBody, StreamedBody } from '../cache/cached-body';
import type { JsonObject } from '../catalog/descriptor';
import { JSONDocumentScalar } from './json-document.scalar';

/**
 * GraphQL shapes of the two views. Wire enums are Strings (GraphQL enum names cannot hold "host-extension"),
 * so the values are exactly those of schemas/v2.
 */
@ObjectType('ToolAnnotations', { description: 'MCP ToolAnnotations derived from the host classification (RFC 0204); all four always present.' })
export class AnnotationsType {
  @Field(() => Boolean) readOnlyHint!: boolean;
  @Field(() => Boolean) destructiveHint!: boolean;
  @Field(() => Boolean) idempotentHint!: boolean;
  @Field(() => Boolean) openWorldHint!: boolean;
}

@ObjectType('ToolDescriptor', { description: 'Standard view (schemas/v2/tool-descriptor.schema.json).' })
export class ToolDescriptorType {
  @Field(() => String) toolId!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) title?: string;
  @Field(() => String) description!: string;
  @Field(() => String, { description: 'mcp | host-extension' }) source!: string;
  @Field(() => String, { description: 'pure | read | write | exec' }) safetyTier!: string;
  @Field(() => String, { description: 'deterministic | idempotent | non-idempotent' }) replayPolicy!: string;
  @Field(() => String, { description: 'none | restricted | open' }) egress!: string;
  @Field(() => GraphQLJSONObject) inputSchema!: JsonObject;
  @Field(() => GraphQLJSONObject, { nullable: true }) outputSchema?: JsonObject;
  @Field(() => AnnotationsType) annotations!: AnnotationsType;
}

@ObjectType('CompactToolDescriptor', { description: 'Compact view (schemas/v2/compact-tool-descriptor.schema.json).' })
export class CompactToolDescriptorType {
  @Field(() => String) toolId!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true, description: 'With a provider profile (issue 16): the function name valid for that provider.' })
  functionName?: string;
  @Field(() => Boolean, { nullable: true, description: 'Profile openai: whether inputSchema is meant for strict: true.' })
  strict?: boolean;
  @Field(() => String) description!: string;
  @Field(() => String) source!: string;
  @Field(() => String) safetyTier!: string;
  @Field(() => String) replayPolicy!: string;
  @Field(() => String) egress!: string;
  @Field(() => GraphQLJSONObject, { description: 'Free of $ref, oneOf, allOf, anyOf, not, patternProperties, dependentSchemas (TC-VIEW-3).' })
  inputSchema!: JsonObject;
  @Field(() => AnnotationsType) annotations!: AnnotationsType;
}

export const ToolViewUnion = createUnionType({
  name: 'ToolView',
  description: 'A descriptor in the view that was applied.',
  types: () => [ToolDescriptorType, CompactToolDescriptorType] as const,
  resolveType: (v) => (v instanceof CompactToolDescriptorType ? CompactToolDescriptorType : ToolDescriptorType),
});

@ObjectType('ToolList')
export class ToolListType {
  @Field(() => String, { description: 'standard | compact: the view actually applied (TC-VIEW-4).' })
  appliedView!: string;

  @Field(() => String, { nullable: true, description: 'gemini | openai | anthropic: the provider profile applied to the compact view; null for the neutral view.' })
  appliedProfile!: string | null;

  @Field(() => [ToolViewUnion], { description: 'Sorted by toolId in code-unit order (TC-CAT-7).' })
  tools!: Array<ToolDescriptorType | CompactToolDescriptorType>;
}

@ObjectType('CatalogDocument', { description: 'The exact REST response body for a catalog read, with its ETag.' })
export class CatalogDocumentType {
  @Field(() => String) appliedView!: string;
  @Field(() => String, { nullable: true, description: 'The provider profile applied to the compact view (issue 16); null for none.' })
  appliedProfile!: string | null;
  @Field(() => JSONDocumentScalar, { description: 'The exact response body: a ToolDescriptor[], { "tools": [...] } (compact), or one descriptor.' })
  body!: CachedBody | StreamedBody;
  @Field(() => String) etag!: string;
}
