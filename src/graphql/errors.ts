import { GraphQLError } from 'graphql';
import type { MiddlewareFn } from 'type-graphql';
import { CatalogError, CatalogErrorCode } from '../catalog/catalog.errors';
import { assertNever } from '../shared/assert-never';
import { bearerChallenge } from '../shared/transport-answers';
import type { GraphQLContext } from './context';

/** CatalogError -> GraphQLError with extensions.code (the public contract, docs/errors.md). */
export function toGraphQLError(err: CatalogError, ctx: { credentialRejected?: boolean } = {}): GraphQLError {
  const code = err.code;
  switch (code) {
    case CatalogErrorCode.Unauthenticated:
      return new GraphQLError(err.message, {
        // RFC 6750 3.1: a presented but refused credential is invalid_token, whatever the reason (same as REST).
        extensions: { code, http: { status: 401, headers: new Map([['www-authenticate', bearerChallenge(ctx.credentialRejected === true)]]) } },
      });
    case CatalogErrorCode.Forbidden:
    case CatalogErrorCode.NotFound:
    case CatalogErrorCode.Conflict:
    case CatalogErrorCode.InvariantViolation:
    case CatalogErrorCode.CeilingExceeded:
      return new GraphQLError(err.message, { extensions: { code } });
    case CatalogErrorCode.InvalidArgument: // details.reason of a refused search query (issue 18)
    case CatalogErrorCode.InvalidArguments:
    case CatalogErrorCode.IdempotencyKeyReused:
    case CatalogErrorCode.UpstreamTimeout:
    case CatalogErrorCode.UpstreamUnavailable:
    case CatalogErrorCode.ResultTooLarge:
    case CatalogErrorCode.SourceOverloaded:
    case CatalogErrorCode.SourceUnavailable:
    case CatalogErrorCode.NotImplemented:
      // Calls (issue 14): the details (argument problems, Retry-After seconds) travel with the code.
      return new GraphQLError(err.message, { extensions: { code, ...(err.opts.details ? { details: err.opts.details } : {}) } });
    case CatalogErrorCode.Internal:
      return new GraphQLError('Internal server error.', { extensions: { code } });
    default:
      return assertNever(code);
  }
}

/**
 * Global resolver middleware: domain errors leave the resolver layer as GraphQL errors with their code. The
 * context says whether a credential was presented and refused, for the 401 challenge of every operation.
 */
export const catalogErrorMiddleware: MiddlewareFn<GraphQLContext> = async ({ context }, next) => {
  try {
    return await next();
  } catch (err) {
    if (err instanceof CatalogError) throw toGraphQLError(err, { credentialRejected: context?.credentialRejected === true });
    throw err;
  }
};
