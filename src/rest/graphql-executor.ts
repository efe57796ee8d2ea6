import { type DocumentNode, type GraphQLError, type GraphQLFormattedError, type GraphQLSchema, execute, parse, specifiedRules, validate } from 'graphql';
import type { GraphQLContext } from '../graphql/context';

export interface ExecutionOutcome {
  readonly data: Record<string, unknown> | null;
  readonly errorCodes: readonly string[];
  readonly errorMessages: readonly string[];
  /** `extensions.details` of each error (argument problems, Retry-After seconds), where it has one. */
  readonly errorDetails?: ReadonlyArray<Readonly<Record<string, unknown>> | undefined>;
}

/** Runs one of the REST facade's fixed GraphQL operations in-process, on the same schema as /graphql. */
export interface GraphQLExecutor {
  /** Makes a document ready (or throws why it cannot run); the router calls it for its documents at start-up. */
  prepare(query: string): unknown;
  execute(query: string, variables: Record<string, unknown>, context: GraphQLContext): Promise<ExecutionOutcome>;
}

export type FormatError = (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;

/**
 * The REST facade's executor (issue 6). Its documents are fixed strings in this codebase, so they are parsed and
 * validated against the schema once, when first prepared, instead of on every request as a client-supplied
 * query must be; `prepare` at start-up makes a document that does not fit the schema stop the service rather
 * than fail its first request. The depth, alias and cost limits of /graphql bound untrusted queries and do not
 * apply to these (an operator setting TOOLCAT_GRAPHQL_MAX_ALIASES=0 must not switch the REST API off); the
 * pin test checks that the documents stay far inside the default limits anyway.
 *
 * Each request then only executes: graphql-js `execute` on the schema /graphql serves, so the resolvers (and
 * their wrapping, graphql/resolver-wrap.ts: error mapping, audit) remain the one place that decides authorization and views.
 * Errors go through the same `formatError` as Apollo's, so a code means the same on both surfaces. Skipped,
 * because it is per-HTTP-request work that means nothing for a fixed in-process document: Apollo's request
 * pipeline (query hashing, document cache lookup, plugins). Measured by `npm run bench` (scenario g, CPU per
 * request); the profile before this change had Apollo's pipeline and the per-request cost analysis at ~18%.
 */
export class PreparedExecutor implements GraphQLExecutor {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly formatError: FormatError,
  ) {}

  /** Parses, validates and costs a fixed document; throws (naming every problem) if it is not servable. */
  prepare(query: string): DocumentNode {
    const known = this.documents.get(query);
    if (known) return known;
    const document = parse(query);
    const problems = validate(this.schema, document, specifiedRules).map((e) => e.message);
    if (problems.length) throw new Error(`REST facade document is not servable: ${problems.join('; ')}\n${query}`);
    this.documents.set(query, document);
    return document;
  }

  async execute(query: string, variables: Record<string, unknown>, context: GraphQLContext): Promise<ExecutionOutcome> {
    const result = await execute({ schema: this.schema, document: this.prepare(query), variableValues: variables, contextValue: context });
    const errors = result.errors ?? [];
    if (!errors.length) return { data: (result.data as Record<string, unknown> | null | undefined) ?? null, errorCodes: [], errorMessages: [] };
    // No `data` at all means the request failed before execution (variable coercion): the caller's input, as Apollo reports it.
    const requestError = !('data' in result);
    const formatted = errors.map((e) => this.formatError(withCode(e, requestError ? 'BAD_USER_INPUT' : undefined), e));
    return {
      data: (result.data as Record<string, unknown> | null | undefined) ?? null,
      errorCodes: formatted.map((e) => String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR')),
      errorMessages: formatted.map((e) => e.message),
      errorDetails: formatted.map((e) => e.extensions?.details as Readonly<Record<string, unknown>> | undefined),
    };
  }
}

function withCode(e: GraphQLError, fallback: string | undefined): GraphQLFormattedError {
  const json = e.toJSON();
  if (fallback === undefined || json.extensions?.code !== undefined) return json;
  return { ...json, extensions: { ...json.extensions, code: fallback } };
}
