import { GraphQLError } from 'graphql';
import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { SearchUnavailableError } from '../services/tool-search.service';
import { SERVICE_UNAVAILABLE, UNAVAILABLE_HEADERS } from '../shared/transport-answers';
import type { GraphQLContext } from './context';
import { requirePrincipal } from './require-principal';
import { ToolSearchHitType, ToolSearchResultType } from './search.types';
import type { AppServices } from './services';
import { toToolView } from './tool.mapper';
import { CatalogDocumentType } from './tool.types';

/**
 * Tool search (issue 18) for agents: the caller's visible tools ranked for a task text. Visibility is the catalog's
 * own read path (ToolSearchService); bad input is BAD_USER_INPUT with `details.reason`.
 */
@Resolver()
export class SearchResolver {
  constructor(private readonly s: AppServices) {}

  @Query(() => ToolSearchResultType, { description: 'The caller\'s visible tools most relevant to a task text, best first (also GET /tools?q=).' })
  async searchTools(
    @Ctx() ctx: GraphQLContext,
    @Arg('query', () => String) query: string,
    @Arg('limit', () => Int, { nullable: true, description: '1 to 100; 10 when absent.' }) limit?: number | null,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('profile', () => String, { nullable: true, description: 'With view compact: a provider profile (issue 16).' }) profile?: string | null,
  ): Promise<ToolSearchResultType> {
    const r = await unavailableAs503(() => this.s.search.searchVisible(requirePrincipal(ctx), query, limit, view, profile));
    return Object.assign(new ToolSearchResultType(), {
      appliedView: r.appliedView,
      matched: r.matched,
      truncated: r.truncated,
      hits: r.hits.map((h) => Object.assign(new ToolSearchHitType(), { score: h.score, tool: toToolView(h.descriptor, r.appliedView) })),
    });
  }

  @Query(() => CatalogDocumentType, { description: 'GET /tools?q= and POST /tools/search as one exact JSON body with its ETag (used by the REST facade).' })
  async searchToolsDocument(
    @Ctx() ctx: GraphQLContext,
    @Arg('query', () => String) query: string,
    @Arg('limit', () => Int, { nullable: true }) limit?: number | null,
    @Arg('view', () => String, { nullable: true }) view?: string | null,
    @Arg('profile', () => String, { nullable: true }) profile?: string | null,
  ): Promise<CatalogDocumentType> {
    const doc = await unavailableAs503(() => this.s.search.searchDocument(requirePrincipal(ctx), query, limit, view, profile));
    return Object.assign(new CatalogDocumentType(), { appliedView: doc.appliedView, appliedProfile: doc.appliedProfile, body: doc.body, etag: doc.etag });
  }
}

/** A search before the index's first load: the same 503 (Retry-After) as a database outage, on every face. */
async function unavailableAs503<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SearchUnavailableError) {
      throw new GraphQLError(err.message, { extensions: { code: SERVICE_UNAVAILABLE, http: { status: 503, headers: new Map(Object.entries(UNAVAILABLE_HEADERS)) } } });
    }
    throw err;
  }
}
