import { LRUCache } from 'lru-cache';
import { CachedBody, StreamedBody } from '../cache/cached-body';
import type { GraphQLContext } from '../graphql/context';
import type { ExecutionOutcome, GraphQLExecutor } from './graphql-executor';

/**
 * The GraphQL layer's answer to one of the facade's catalog reads, remembered for one catalog generation (issue 21).
 *
 * `GET /tools` and `GET /tools/{toolId}` execute a fixed document whose outcome is a function of: the document, its
 * variables (toolId, view, profile), the principal's decision key (tenant, kind, id, role, groups) and what is
 * stored (tools, classifications, grants, ceilings, principals, tenants, sources). Every write of the last kind bumps
 * the catalog generation (docs/architecture.md, "Invalidation is exact and immediate"), and other replicas learn of
 * it by NOTIFY and polling exactly as the authentication cache and the visible sets do. So within one generation,
 * executing the document again for the same key can only give the same outcome, and the memo hands back the one it
 * got: the answer is still the GraphQL layer's decision (resolvers, middlewares, the scoped query), made once per
 * generation instead of once per request. Execution was ~40% of a 304's CPU (graphql-js, type-graphql's middleware
 * chain, the cache's visible-set and document lookups, and the promises between them).
 *
 * What the memo does not change: identity is still decided per request before it is consulted (a revoked key bumps
 * the generation and is refused on its very next request, as before), and only outcomes without errors are kept
 * (refusals, outages and bad input are decided again every time). The key holds the generation read *before*
 * executing, so an outcome that raced a change is filed under the old generation and never served after it, and a
 * change clears the memo. Bounded in bytes: an entry is charged its body's bytes (it shares the body with the
 * cache's document layer, but may keep it alive after that layer evicted it), and bodies over `maxBodyBytes` are
 * not kept at all.
 */
export class DecisionMemo {
  private readonly entries: LRUCache<string, ExecutionOutcome>;
  private readonly maxBodyBytes: number;

  constructor(
    /** The principal's decision key (decisionKey: tenant, kind, id, role, groups), given by the composition root. */
    private readonly keyOf: (ctx: GraphQLContext) => string,
    private readonly generation: () => string,
    onChange: (listener: () => void) => () => void,
    limits: { readonly maxBytes: number; readonly maxBodyBytes: number },
    /** Each answer given from the memo (metrics). */
    private readonly onHit: () => void = () => undefined,
  ) {
    this.entries = new LRUCache({ maxSize: Math.max(1, limits.maxBytes) });
    this.maxBodyBytes = limits.maxBodyBytes;
    onChange(() => this.entries.clear());
  }

  /** exec.execute(query, variables, ctx), or the outcome it gave for the same key in this generation. */
  async execute(exec: GraphQLExecutor, name: string, query: string, variables: Readonly<Record<string, string | null>>, ctx: GraphQLContext): Promise<ExecutionOutcome> {
    if (!ctx.principal) return exec.execute(query, variables, ctx);
    const generation = this.generation();
    const key = `${generation}\u0000${name}\u0000${this.keyOf(ctx)}\u0000${JSON.stringify(variables)}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.onHit();
      return hit;
    }
    const out = await exec.execute(query, variables, ctx);
    if (out.errorCodes.length) return out;
    const bytes = bodyBytesOf(out);
    if (bytes <= this.maxBodyBytes) this.entries.set(key, out, { size: 256 + 2 * key.length + bytes });
    return out;
  }

  /** Entries held now (tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}

function bodyBytesOf(out: ExecutionOutcome): number {
  const body = (out.data?.document as { body?: unknown } | null | undefined)?.body;
  if (body instanceof CachedBody) return body.bytes.length;
  if (body instanceof StreamedBody) return body.heldBytes;
  if (typeof body === 'string') return 2 * body.length;
  return 0;
}
