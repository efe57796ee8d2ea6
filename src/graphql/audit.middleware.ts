import type { GraphQLFieldResolver } from 'graphql';
import { actorOf, currentAuditScope, runAudited } from '../audit/audit-context';
import type { Logger } from '../shared/logger';
import type { GraphQLContext } from './context';

/**
 * Every mutation runs inside an audit scope (actor, request id, mutation name); the services write the row
 * in their own transaction. A mutation that succeeds without writing one is a bug, logged as an error, and
 * test/integration/audit.test.ts fails for it. Applied to the Mutation type's fields by graphql/resolver-wrap.ts.
 */
const CALL_MUTATIONS = new Set(['callTool', 'startToolCall']);

export function auditedMutation<S, A>(resolve: GraphQLFieldResolver<S, GraphQLContext, A>, log: Logger): GraphQLFieldResolver<S, GraphQLContext, A> {
  return (root, args, context, info) => {
    // Tool calls are recorded in the call log (issue 14), not the audit log of admin changes.
    if (CALL_MUTATIONS.has(info.fieldName)) return resolve(root, args, context, info);
    return runAudited({ action: info.fieldName, requestId: context.requestId, actor: actorOf(context.principal) }, async () => {
      const result: unknown = await resolve(root, args, context, info);
      if (!currentAuditScope()?.audited) log.error({ mutation: info.fieldName, requestId: context.requestId }, 'mutation completed without an audit row');
      return result;
    });
  };
}
