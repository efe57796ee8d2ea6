import { type ASTVisitor, GraphQLError, type ValidationContext } from 'graphql';

/**
 * Refuses an operation whose root type the schema does not have (issue 12 defect 5). graphql-js 16 has no such
 * rule (17 adds KnownOperationTypesRule): a `subscription { … }` passed validation, since fields under a missing
 * root type are not checked, and execution then threw "Schema is not configured to execute subscription
 * operation", which reached formatError as INTERNAL_SERVER_ERROR with an error-level stack trace, for anyone,
 * anonymous included. As a validation error it is GRAPHQL_VALIDATION_FAILED (HTTP 400) and nothing is logged as
 * an error. The message names only the operation type the caller wrote, so it reveals nothing of the schema.
 */
export function knownOperationTypesRule(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    OperationDefinition(node) {
      if (!schema.getRootType(node.operation)) {
        context.reportError(new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }));
      }
      return false;
    },
  };
}
