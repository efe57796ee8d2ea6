import type { ApolloServer } from '@apollo/server';
import type { GraphQLContext } from '../graphql/context';

export interface ExecutionOutcome {
  readonly data: Record<string, unknown> | null;
  readonly errorCodes: readonly string[];
  readonly errorMessages: readonly string[];
}

/** Runs a GraphQL operation in-process, through the same Apollo server (plugins, error formatting) as /graphql. */
export interface GraphQLExecutor {
  execute(query: string, variables: Record<string, unknown>, context: GraphQLContext): Promise<ExecutionOutcome>;
}

export function apolloExecutor(apollo: ApolloServer<GraphQLContext>): GraphQLExecutor {
  return {
    async execute(query, variables, context) {
      const res = await apollo.executeOperation({ query, variables }, { contextValue: context });
      if (res.body.kind !== 'single') throw new Error('incremental delivery is not used by the REST facade');
      const r = res.body.singleResult;
      const errors = r.errors ?? [];
      return {
        data: (r.data as Record<string, unknown> | null | undefined) ?? null,
        errorCodes: errors.map((e) => String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR')),
        errorMessages: errors.map((e) => e.message),
      };
    },
  };
}
