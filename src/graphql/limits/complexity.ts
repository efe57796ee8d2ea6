import type { ApolloServerPlugin, BaseContext } from '@apollo/server';
import { type GraphQLError as GraphQLErrorType, GraphQLError, type ValidationRule, getNullableType, isIntrospectionType, isListType } from 'graphql';
import { type ComplexityEstimator, createComplexityRule as libraryComplexityRule, getComplexity, simpleEstimator } from 'graphql-query-complexity';

/**
 * Cost limit (issue 5) with graphql-query-complexity. Every field costs 1 plus its children; a list field
 * multiplies its children by its page-size argument (`first`, `limit`, …) or, lacking one, by a default list
 * size, since a list can return many items. Introspection is costed without multipliers: it is served from the
 * in-memory schema, its size is bounded by the schema, and Apollo Sandbox must be able to load it.
 */
export interface CostModel {
  /** Assumed length of a list without a page-size argument. Default 10. */
  readonly defaultListSize?: number;
  /** Arguments that bound a list's length. Default first, last, limit, take, pageSize. */
  readonly sizeArguments?: readonly string[];
}

const MAX_LIST_SIZE = 10_000;

/** The default estimators: list-aware, then 1 per field (simpleEstimator) for everything else. */
export function defaultEstimators(model: CostModel = {}): ComplexityEstimator[] {
  const defaultListSize = model.defaultListSize ?? 10;
  const sizeArguments = model.sizeArguments ?? ['first', 'last', 'limit', 'take', 'pageSize'];
  const listEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
    if (field.name.startsWith('__') || isIntrospectionType(type)) return undefined;
    if (!isListType(getNullableType(field.type))) return undefined;
    const given = sizeArguments.map((a) => args[a]).find((v): v is number => typeof v === 'number' && Number.isFinite(v));
    const size = given === undefined ? defaultListSize : Math.min(MAX_LIST_SIZE, Math.max(0, Math.floor(given)));
    return 1 + size * childComplexity;
  };
  return [listEstimator, simpleEstimator({ defaultComplexity: 1 })];
}

export interface ComplexityRuleOptions {
  readonly maximumComplexity: number;
  /** The request's variables. Required variables that are missing make the rule report them (see the plugin). */
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
  readonly estimators?: ComplexityEstimator[];
  readonly onComplete?: (complexity: number) => void;
}

function tooComplex(max: number, actual: number): GraphQLErrorType {
  return new GraphQLError(`The query costs ${actual}; the limit is ${max}. Select fewer fields, or request smaller lists.`, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
  });
}

/**
 * A validation rule for when the variables are known at validation time (graphql-js `validate`, tests, scripts).
 * Apollo runs validation rules before it has the variables and caches validated documents across requests, so
 * with Apollo use `complexityLimitPlugin` instead.
 */
export function createComplexityRule(opts: ComplexityRuleOptions): ValidationRule {
  return libraryComplexityRule({
    maximumComplexity: opts.maximumComplexity,
    variables: opts.variables ?? {},
    operationName: opts.operationName,
    estimators: opts.estimators ?? defaultEstimators(),
    onComplete: opts.onComplete,
    createError: tooComplex,
  }) as unknown as ValidationRule;
}

/**
 * The Apollo form of the cost limit: measured once the operation is resolved, with the request's variables, for
 * /graphql and the in-process REST documents alike. A query that cannot be costed (its variables do not fit, or
 * it has more nodes than the library evaluates) is refused too: never execute what was not measured.
 */
export function complexityLimitPlugin<TContext extends BaseContext>(opts: { maximumComplexity: number; estimators?: ComplexityEstimator[]; onComplete?: (complexity: number) => void }): ApolloServerPlugin<TContext> {
  const estimators = opts.estimators ?? defaultEstimators();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, schema, operationName }) {
          let cost: number;
          try {
            cost = getComplexity({ schema, query: document, variables: request.variables ?? {}, operationName: operationName ?? undefined, estimators });
          } catch (err) {
            const why = err instanceof GraphQLError ? err.message : 'it could not be analysed';
            throw new GraphQLError(`The query cost could not be computed: ${why}`, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
          }
          opts.onComplete?.(cost);
          if (cost > opts.maximumComplexity) throw tooComplex(opts.maximumComplexity, cost);
        },
      };
    },
  };
}
