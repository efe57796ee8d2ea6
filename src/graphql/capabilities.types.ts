import { Field, ObjectType } from 'type-graphql';

@ObjectType('ToolCatalogCapabilities')
export class ToolCatalogCapabilitiesType {
  @Field(() => [String], { description: 'Sources the host projects (TC-CAT-5).' }) sources!: string[];
  @Field(() => Boolean) compactView!: boolean;
  @Field(() => Boolean) sessionLifecycle!: boolean;
  @Field(() => Boolean, { description: 'Tools are called with POST /tools/{toolId}/calls.' }) calls!: boolean;
  @Field(() => [String], { description: 'Provider profiles of the compact view: GET /tools?view=compact&profile=<name> (issue 16).' }) profiles!: string[];
}

@ObjectType('Capabilities')
export class CapabilitiesType {
  @Field(() => String) hostVersion!: string;
  @Field(() => ToolCatalogCapabilitiesType) toolCatalog!: ToolCatalogCapabilitiesType;
}

@ObjectType('Me')
export class MeType {
  @Field(() => String) principalId!: string;
  @Field(() => String, { description: 'api-key | jwt: how the caller authenticated.' }) kind!: string;
  @Field(() => String) name!: string;
  @Field(() => String) role!: string;
  @Field(() => String) tenantId!: string;
  @Field(() => String) tenantName!: string;
  @Field(() => [String], { description: 'Narrowing grant groups (from a JWT groups claim); empty for API keys.' }) groups!: string[];
}
