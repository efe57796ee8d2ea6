import { GraphQLError, type ValidationRule } from 'graphql';

/**
 * An operation whose root type the schema does not define (a `mutation` on the agent schema, any `subscription`)
 * is refused in validation, like any other document the schema cannot answer. graphql-js 16 validates no such
 * rule and only fails at execution, which Apollo reports as an internal error (and logs as one).
 */
export const knownOperationTypesRule: ValidationRule = (context) => ({
  OperationDefinition(node) {
    const schema = context.getSchema();
    const root = node.operation === 'query' ? schema.getQueryType() : node.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
    if (!root) context.reportError(new GraphQLError(`This server does not serve ${node.operation} operations to this caller.`, { nodes: [node] }));
  },
});
