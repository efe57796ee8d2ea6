import { type GraphQLFieldResolver, GraphQLError } from 'graphql';
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
 * A field's resolver whose domain errors leave the resolver layer as GraphQL errors with their code (every field of
 * the schema is wrapped by graphql/resolver-wrap.ts). The context says whether a credential was presented and
 * refused, for the 401 challenge of every operation. A resolver that answers synchronously stays synchronous: no
 * promise is made for a plain property read.
 */
export function translatingCatalogErrors<S, A>(resolve: GraphQLFieldResolver<S, GraphQLContext, A>): GraphQLFieldResolver<S, GraphQLContext, A> {
  const translate = (err: unknown, context: GraphQLContext | undefined): unknown =>
    err instanceof CatalogError ? toGraphQLError(err, { credentialRejected: context?.credentialRejected === true }) : err;
  return (root, args, context, info) => {
    let out: unknown;
    try {
      out = resolve(root, args, context, info);
    } catch (err) {
      throw translate(err, context);
    }
    return isPromiseLike(out)
      ? out.then(undefined, (err: unknown) => {
          throw translate(err, context);
        })
      : out;
  };
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}
