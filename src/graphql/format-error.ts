import type { GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { CatalogError } from '../catalog/catalog.errors';
import { redactCredentials } from '../catalog/credentials';
import type { Logger } from '../shared/logger';
import { PUBLIC_GRAPHQL_CODES, SERVICE_UNAVAILABLE, UNAVAILABLE_MESSAGE } from '../shared/transport-answers';
import { toGraphQLError } from './errors';
import { isDatabaseUnavailable } from '../ops/db-errors';
import { constraintViolationOf } from '../persistence/constraint-errors';
import { errorForViolation } from '../persistence/write-transaction';


/**
 * Known codes pass; anything else is logged with its cause and masked as INTERNAL_SERVER_ERROR (no stack traces
 * out). No error text leaves with credential material in it (issue 11, defect 3): graphql-js quotes a refused
 * variable value whole (a registerSource input with its secrets), and a message may quote what it refused.
 */
export function makeFormatError(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const out = formatOne(formatted, error);
    return { ...out, message: redactCredentials(out.message) };
  };

  function formatOne(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
    const original = unwrapResolverError(error);
    if (original instanceof CatalogError) {
      const g = toGraphQLError(original);
      return { message: g.message, path: formatted.path, locations: formatted.locations, extensions: { code: original.code, ...(original.opts.details ? { details: original.opts.details } : {}) } };
    }
    if (isDatabaseUnavailable(original)) {
      return { message: UNAVAILABLE_MESSAGE, path: formatted.path, extensions: { code: SERVICE_UNAVAILABLE } };
    }
    const violation = constraintViolationOf(original);
    if (violation) {
      // A write outside writeTransaction met a constraint: the same mapping answers (issue 12 defect 5), and the
      // warning (kind and table, never values) points at the write that should use writeTransaction.
      const e = errorForViolation(violation);
      log.warn({ kind: violation.kind, table: violation.table, path: formatted.path }, 'constraint violation outside writeTransaction');
      return { message: e.message, path: formatted.path, locations: formatted.locations, extensions: { code: e.code } };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && PUBLIC_GRAPHQL_CODES.has(code)) {
      // Details are the domain's own structured data (argument problems, Retry-After seconds; issue 14), kept.
      const details = formatted.extensions?.details;
      return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code, ...(details !== undefined ? { details } : {}) } };
    }
    if (!formatted.path && code === undefined) {
      // Not raised while resolving a field: a request-level problem (Apollo's own checks), i.e. the client's.
      log.info({ message: formatted.message.slice(0, 200) }, 'GraphQL request refused');
      return { message: formatted.message.slice(0, 500), locations: formatted.locations, extensions: { code: 'BAD_REQUEST' } };
    }
    log.error({ err: original, path: formatted.path }, 'unexpected error in GraphQL execution');
    return { message: 'Internal server error.', path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
}
