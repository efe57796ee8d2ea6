import { type TokenizeOptions, tokenize } from './text';

/**
 * Query processing for task texts. A query is a whole agent task, sometimes with data pasted in (LiveMCPBench has
 * an 18.7 KB base64 PNG in one): the tokenizer drops data runs (text.ts, MAX_RUN_CHARS), and the bounds below keep
 * one request's cost proportional to what a person can write, not to what a client can send.
 */

/** Longest query accepted, in UTF-16 code units (64 Ki): ~10,000 English words, 3x the longest dev-set task with its image. */
export const MAX_QUERY_CHARS = 64 * 1024;
/** Distinct terms scored per query (the first ones in text order): a long task's later terms are mostly repeats and data. */
const MAX_QUERY_TERMS = 256;

export type SearchQueryErrorCode = 'query_empty' | 'query_too_long' | 'query_not_text';

/** A request-level error: the REST/GraphQL/MCP layers map it to 400 with `code` and the message. */
export class SearchQueryError extends Error {
  constructor(
    readonly code: SearchQueryErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SearchQueryError';
  }
}

export interface ParsedQuery {
  /** Distinct terms in first-occurrence order (the order scores are summed in, so results are bit-for-bit stable). */
  readonly terms: readonly string[];
  /** Weight of terms[i]: 1 + ln(occurrences), a term a task repeats matters a little more, never linearly more. */
  readonly weights: readonly number[];
  /** Characters in the query and whether terms were cut at MAX_QUERY_TERMS. */
  readonly chars: number;
  readonly truncated: boolean;
}

/**
 * Throws SearchQueryError for a query that is not a string, empty or blank, or over MAX_QUERY_CHARS. A query of only
 * stop words, numbers or data is valid and has no terms (nothing matches; not an error: the caller's text was fine).
 */
export function parseQuery(text: unknown, opts: TokenizeOptions): ParsedQuery {
  if (typeof text !== 'string') throw new SearchQueryError('query_not_text', 'the search query must be a string');
  if (text.length > MAX_QUERY_CHARS) {
    throw new SearchQueryError('query_too_long', `the search query has ${text.length} characters; at most ${MAX_QUERY_CHARS} are accepted`);
  }
  if (text.trim().length === 0) throw new SearchQueryError('query_empty', 'the search query is empty');
  const counts = new Map<string, number>();
  let truncated = false;
  for (const t of tokenize(text, opts)) {
    const c = counts.get(t);
    if (c !== undefined) counts.set(t, c + 1);
    else if (counts.size < MAX_QUERY_TERMS) counts.set(t, 1);
    else truncated = true;
  }
  const terms = [...counts.keys()];
  return { terms, weights: terms.map((t) => 1 + Math.log(counts.get(t)!)), chars: text.length, truncated };
}
