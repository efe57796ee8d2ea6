import { type GraphQLFieldConfigMap, GraphQLObjectType, GraphQLSchema } from 'graphql';

/**
 * The schemas served over HTTP (issue 11 defect 4; issue 14). The executable schema also holds fields for the
 * in-process faces only (`startToolCall`, whose live handle cannot travel over HTTP): neither HTTP schema has them.
 *
 * - publicSchemaOf: what admins are served (everything but the in-process fields).
 * - agentSchemaOf: what callers who may not see the admin schema are served: the catalog reads and their own past
 *   calls, nothing of the admin half, so validation messages, suggestions, introspection and the "FORBIDDEN for a real admin
 *   field, 400 for a made-up one" oracle can only ever name what they may use.
 * The fields are the very field configs of the executable schema (same wrapped resolvers, resolver-wrap.ts), so the faces
 * cannot behave differently.
 */
const AGENT_QUERY_FIELDS = ['capabilities', 'me', 'tools', 'tool', 'toolsDocument', 'toolDocument', 'toolCall', 'searchTools', 'searchToolsDocument'] as const;
/** Fields of the executable schema that only in-process faces use. */
const IN_PROCESS_FIELDS: readonly string[] = ['startToolCall'];

export function agentSchemaOf(full: GraphQLSchema): GraphQLSchema {
  return new GraphQLSchema({ query: pick(full.getQueryType(), AGENT_QUERY_FIELDS) });
}

export function publicSchemaOf(full: GraphQLSchema): GraphQLSchema {
  const drop = (t: GraphQLObjectType | null | undefined) => t && pick(t, Object.keys(t.getFields()).filter((f) => !IN_PROCESS_FIELDS.includes(f)));
  return new GraphQLSchema({ ...full.toConfig(), query: drop(full.getQueryType()), mutation: drop(full.getMutationType()), types: full.toConfig().types.filter((t) => t.name !== 'ToolCallStart' && t.name !== 'CallHandle' && t.name !== 'Query' && t.name !== 'Mutation') });
}

function pick(type: GraphQLObjectType | null | undefined, names: readonly string[]): GraphQLObjectType {
  if (!type) throw new Error('the catalog schema lost a root type');
  const config = type.toConfig();
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const name of names) {
    if (!config.fields[name]) throw new Error(`the catalog schema lost the field ${type.name}.${name}`);
    fields[name] = config.fields[name];
  }
  return new GraphQLObjectType({ ...config, fields });
}
