import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { SecurityConfig } from '../config/security-config';
import { SERVICE_UNAVAILABLE, UNAVAILABLE_HEADERS } from '../shared/transport-answers';
import type { Logger } from '../shared/logger';
import type { GraphQLContext } from './context';
import { makeFormatError } from './format-error';
import { complexityLimitPlugin, parseOptionsFor, schemaVisibilityPlugin, validationRulesFor } from './limits';
import { knownOperationTypesRule } from './operation-types.rule';
import type { GraphQLSchema } from 'graphql';

/** A database outage surfaces as SERVICE_UNAVAILABLE; the GraphQL HTTP answer is then 503 with Retry-After. */
const unavailableStatusPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        const body = response.body;
        const errors = body.kind === 'single' ? body.singleResult.errors : undefined;
        if (errors?.some((e) => e.extensions?.code === SERVICE_UNAVAILABLE)) {
          response.http.status = 503;
          for (const [k, v] of Object.entries(UNAVAILABLE_HEADERS)) response.http.headers.set(k.toLowerCase(), v);
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
    // Introspection is decided per caller by schemaVisibilityPlugin (TOOLCAT_GRAPHQL_INTROSPECTION: off | admins |
    // all); Apollo's own switch is global, so it stays open and the plugin refuses (issue 11, defect 4).
    introspection: true,
    csrfPrevention: true,
    // Automatic persisted queries are not used: a client sending one gets PERSISTED_QUERY_NOT_SUPPORTED (400).
    persistedQueries: false,
    allowBatchedHttpRequests: sec.graphqlLimits.maxBatch > 1,
    // A `subscription` (the schema has none) is refused in validation, not failed in execution (issue 12 defect 5).
    validationRules: [knownOperationTypesRule, ...validationRulesFor(sec.graphqlLimits)],
    parseOptions: parseOptionsFor(sec.graphqlLimits),
    plugins: [
      // Apollo's cache-control plugin hooks every field (~25% on large lists) and is not used here.
      ApolloServerPluginCacheControlDisabled(),
      complexityLimitPlugin({ maximumComplexity: sec.graphqlLimits.maxComplexity }),
      unavailableStatusPlugin,
      // No "Did you mean" suggestions for callers who may not see the admin schema; introspection per caller.
      schemaVisibilityPlugin(sec.introspection),
      // GraphiQL (issue 20) is served by src/http/admin-console.ts, before Apollo; Sandbox is Apollo's own landing page.
      sec.graphqlIde === 'sandbox' ? ApolloServerPluginLandingPageLocalDefault({ embed: true }) : ApolloServerPluginLandingPageDisabled(),
    ],
  });
}
