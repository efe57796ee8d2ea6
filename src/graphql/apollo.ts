import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { SecurityConfig } from '../config/security-config';
import type { Logger } from '../shared/logger';
import type { GraphQLContext } from './context';
import { makeFormatError } from './format-error';
import { complexityLimitPlugin, parseOptionsFor, validationRulesFor } from './limits';
import type { GraphQLSchema } from 'graphql';

/** A database outage surfaces as SERVICE_UNAVAILABLE; the GraphQL HTTP answer is then 503 with Retry-After. */
const unavailableStatusPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        const body = response.body;
        const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
        if (errors?.some((e) => e.extensions?.code === 'SERVICE_UNAVAILABLE')) {
          response.http.status = 503;
          response.http.headers.set('retry-after', '2');
        }
      },
    };
  },
};

/** /graphql. `schema` is the one executable schema, shared with the REST facade's executor. */
export function buildApollo(schema: GraphQLSchema, sec: SecurityConfig, log: Logger): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    schema,
    formatError: makeFormatError(log),
    introspection: sec.introspection,
    csrfPrevention: true,
    // Automatic persisted queries are not used: a client sending one gets PERSISTED_QUERY_NOT_SUPPORTED (400).
    persistedQueries: false,
    allowBatchedHttpRequests: sec.graphqlLimits.maxBatch > 1,
    validationRules: validationRulesFor(sec.graphqlLimits),
    parseOptions: parseOptionsFor(sec.graphqlLimits),
    plugins: [
      // Apollo's cache-control plugin hooks every field (~25% on large lists) and is not used here.
      ApolloServerPluginCacheControlDisabled(),
      complexityLimitPlugin({ maximumComplexity: sec.graphqlLimits.maxComplexity }),
      unavailableStatusPlugin,
      sec.landingPage ? ApolloServerPluginLandingPageLocalDefault({ embed: true }) : ApolloServerPluginLandingPageDisabled(),
    ],
  });
}
