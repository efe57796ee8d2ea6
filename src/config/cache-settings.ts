/** Response-cache bounds (issue 6), declared in config/ with their defaults; src/cache applies them (issue 13). */
export interface CatalogCacheLimits {
  readonly maxDocumentBytes: number;
  readonly maxDescriptorBytes: number;
  readonly maxVisibleSetBytes: number;
}

/**
 * One budget for the whole cache, split by what each layer is for: documents (the hot path) 1/2, descriptors
 * (building new documents, GET /tools/{toolId}) 1/3, visible sets 1/6. The default, 192 MiB, keeps the process
 * under 512 MB resident at 100,000 tools with every one of 1,000 tenants listed (`npm run bench -- --full-warm`);
 * at 2 x 128 + 64 MiB it measured 527-567 MB, because a document and its descriptors hold the same bytes twice.
 */
export function cacheLimitsFor(totalBytes: number): CatalogCacheLimits {
  return { maxDocumentBytes: Math.floor(totalBytes / 2), maxDescriptorBytes: Math.floor(totalBytes / 3), maxVisibleSetBytes: Math.floor(totalBytes / 6) };
}

export const DEFAULT_CACHE_BYTES = 192 * 1024 ** 2;
export const DEFAULT_CACHE_LIMITS: CatalogCacheLimits = cacheLimitsFor(DEFAULT_CACHE_BYTES);

/**
 * The REST facade's memo of list and tool decisions (issue 21, src/rest/decision-memo.ts): outside the budget above
 * because its entries share their bodies with the document and descriptor layers; the bound is what it can keep
 * alive beyond them. Bodies over 4 MiB (a list of a few thousand tools) are not kept: their 200 is the write.
 */
export const DECISION_MEMO_LIMITS = { maxBytes: 32 * 1024 ** 2, maxBodyBytes: 4 * 1024 ** 2 } as const;

/**
 * Lists of at least this many tools are streamed by GET /tools (issue 21, TOOLCAT_STREAM_LIST_MIN_TOOLS): from the
 * cached descriptors' bytes, never one Buffer of the whole list. 10,000 tools are ~15 MB at the bench's ~1.5 KB each.
 */
export const DEFAULT_STREAM_LIST_MIN_TOOLS = 10_000;
