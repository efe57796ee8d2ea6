import { type ASTVisitor, type FragmentDefinitionNode, GraphQLError, Kind, type OperationDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * Shape limits on a GraphQL document (issue 5), as graphql-js validation rules so Apollo reports them like any
 * other validation error (GRAPHQL_VALIDATION_FAILED, HTTP 400). Both rules see through fragments: a spread
 * counts what the fragment selects, so moving fields into fragments never bypasses a limit. Each fragment is
 * measured once (memoised), so the cost is linear in the document even when a fragment is spread many times.
 */

/** `inIntrospection`: below `__schema` / `__type` (only the depth rule uses it). */
type ViaFragment = (name: string, inIntrospection: boolean) => number;
type Measure = (set: SelectionSetNode, viaFragment: ViaFragment, inIntrospection: boolean) => number;

/**
 * Runs `measure` per operation with fragment expansion and reports values above `limit`. A fragment cycle counts 0
 * (NoFragmentCyclesRule reports it). Fragment values are capped at `cap`: sums can grow exponentially with reuse.
 */
function perOperation(context: ValidationContext, limit: number, cap: number, measure: Measure, report: (op: OperationDefinitionNode, value: number) => void): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, number>();
  const active = new Set<string>();
  const viaFragment: ViaFragment = (name, inIntrospection) => {
    const key = `${inIntrospection ? 'i' : 'd'}:${name}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    const def = fragments.get(name);
    if (!def || active.has(name)) return 0;
    active.add(name);
    const v = Math.min(cap, measure(def.selectionSet, viaFragment, inIntrospection));
    active.delete(name);
    memo.set(key, v);
    return v;
  };
  return {
    OperationDefinition(op) {
      const v = measure(op.selectionSet, viaFragment, false);
      if (v > limit) report(op, v);
      return false; // nothing below an operation needs this visitor
    },
  };
}

const opName = (op: OperationDefinitionNode) => (op.name ? `operation ${op.name.value}` : 'anonymous operation');

/**
 * Fields nested more than `maxDepth` levels (`{ a { b } }` is 2 deep; fragments add no level of their own).
 * Inside introspection, `ofType` adds no level either: it unwraps List/NonNull along a chain the schema bounds,
 * and the standard introspection query nests it 7 deep. The expensive introspection shape, fields → type →
 * fields cycles, still counts every level.
 */
export function maxDepthRule(maxDepth: number): ValidationRule {
  // A depth is a maximum, not a sum: it cannot outgrow the document, so no cap is needed and the message is exact.
  const depth: Measure = (set, viaFragment, intro) => {
    let max = 0;
    for (const s of set.selections) {
      let d: number;
      if (s.kind === Kind.FIELD) {
        const name = s.name.value;
        const below = intro || name === '__schema' || name === '__type';
        d = (intro && name === 'ofType' ? 0 : 1) + (s.selectionSet ? depth(s.selectionSet, viaFragment, below) : 0);
      } else d = s.kind === Kind.INLINE_FRAGMENT ? depth(s.selectionSet, viaFragment, intro) : viaFragment(s.name.value, intro);
      if (d > max) max = d;
    }
    return max;
  };
  return (context) =>
    perOperation(context, maxDepth, Number.POSITIVE_INFINITY, depth, (op, v) =>
      context.reportError(new GraphQLError(`The ${opName(op)} is nested ${v} levels deep; the limit is ${maxDepth}.`, { nodes: [op] })),
    );
}

/** More than `maxAliases` aliased fields in one operation, counting each fragment spread in full (alias batching). */
export function maxAliasesRule(maxAliases: number): ValidationRule {
  const cap = maxAliases + 1;
  const aliases: Measure = (set, viaFragment) => {
    let n = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) n += (s.alias ? 1 : 0) + (s.selectionSet ? aliases(s.selectionSet, viaFragment, false) : 0);
      else if (s.kind === Kind.INLINE_FRAGMENT) n += aliases(s.selectionSet, viaFragment, false);
      else n += viaFragment(s.name.value, false);
      if (n >= cap) return cap;
    }
    return n;
  };
  return (context) =>
    perOperation(context, maxAliases, cap, aliases, (op) =>
      context.reportError(new GraphQLError(`The ${opName(op)} uses more than ${maxAliases} aliases; the limit is ${maxAliases}.`, { nodes: [op] })),
    );
}
