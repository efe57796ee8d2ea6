import { type GraphQLFieldConfigMap, GraphQLObjectType, GraphQLSchema } from 'graphql';

/**
 * The schema an agent may see (issue 11, defect 4 and its red-team follow-up): the catalog reads and nothing of the
 * admin half. Callers who may not see the admin schema are served this schema by their own Apollo instance, so
 * validation messages, suggestions, introspection and the "FORBIDDEN for a real admin field, 400 for a made-up one"
 * oracle can only ever name what they may use. The fields are the very field configs of the full schema (same
 * resolvers and middlewares), so the two cannot behave differently.
 */
const AGENT_QUERY_FIELDS = ['capabilities', 'me', 'tools', 'tool', 'toolsDocument', 'toolDocument'] as const;

export function agentSchemaOf(full: GraphQLSchema): GraphQLSchema {
  const query = full.getQueryType();
  if (!query) throw new Error('the catalog schema has no Query type');
  const config = query.toConfig();
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const name of AGENT_QUERY_FIELDS) {
    if (!config.fields[name]) throw new Error(`the catalog schema lost the agent field ${name}`);
    fields[name] = config.fields[name];
  }
  return new GraphQLSchema({ query: new GraphQLObjectType({ ...config, fields }) });
}
