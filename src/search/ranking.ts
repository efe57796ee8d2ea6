import { FIELDS, FIELD_COUNT, type FieldName } from './fields';
import { DEFAULT_TOKENIZE, type TokenizeOptions } from './text';

/**
 * BM25F parameters (S. Robertson, H. Zaragoza, M. Taylor, "Simple BM25 extension to multiple weighted fields",
 * CIKM 2004; the per-field normalisation of Zaragoza et al., TREC 2004). Every value is a round number chosen from
 * IR practice and checked on one half of the development set only (bench/toolsearch.ts, split A); the other half
 * (split B) is reported untouched. Why each:
 *
 *   k1 1.2       the Robertson/Lucene default: saturation after a few occurrences.
 *   tfCap 3      a field contributes at most 3 occurrences of a term (see below).
 *   name 3       the tool's name is its most specific text (split identifier parts): a task word that is a name
 *                part is strong evidence. b 0.3: names are short and of similar length; long names are not padding.
 *   title 2      a human label, as specific as the name when present.
 *   description 1   the reference field. b 0.75 (the BM25 default): long prose is normalised as usual.
 *   params 1.5   parameter names say what a tool acts on (`city`, `ticker`, `file_path`), often the only English in a
 *                tool described in another language. b 0.5.
 *   paramText 0.5   parameter descriptions are prose about inputs, weaker evidence of purpose. b 0.75.
 *   source 1     the server / source name (`amap-maps`, `word-document-server`) tells a family of tools. b 0.3.
 *   metadata 0.5 optional host words.
 *   maxFieldTokens 256   tokens of a field that are indexed: the 99th percentile of real MCP descriptions
 *                (LiveMCPBench: p50 8, p90 63, p99 255 after stop words), so honest tools lose nothing (measured:
 *                no metric moves between 128 and 512), and a field cannot match arbitrarily many query terms.
 *
 * Keyword stuffing is bounded three ways: (1) a term's frequency in a field is capped at tfCap before weighting,
 * so repeating a word cannot raise its weight past what three honest mentions give; (2) only a field's first
 * maxFieldTokens tokens are indexed, so a field cannot match every query; (3) field-length normalisation counts
 * every token, capped, indexed or not, so a description that lists many keywords (or repeats one) is long and each
 * of its matches is divided by that length: 1,000 words make a field ~30x longer than the average and each match
 * worth ~1/20 of an honest one. The sum over fields is saturated once (BM25F): matching in many fields cannot add up
 * past (k1 + 1) per term either. Measured (test/search/stuffing.test.ts): a tool whose description is every word of
 * the 94 dev-set tasks is first for none of them and in the top 10 of 5.
 */
export interface RankingParams {
  readonly k1: number;
  readonly tfCap: number;
  /** Tokens of a field that are indexed (its length still counts every token). */
  readonly maxFieldTokens: number;
  readonly weights: Readonly<Record<FieldName, number>>;
  readonly b: Readonly<Record<FieldName, number>>;
  readonly tokenize: TokenizeOptions;
}

export const DEFAULT_RANKING: RankingParams = Object.freeze({
  k1: 1.2,
  tfCap: 3,
  maxFieldTokens: 256,
  weights: Object.freeze({ name: 3, title: 2, description: 1, params: 1.5, paramText: 0.5, source: 1, metadata: 0.5 }),
  b: Object.freeze({ name: 0.3, title: 0.3, description: 0.75, params: 0.5, paramText: 0.75, source: 0.3, metadata: 0.5 }),
  tokenize: DEFAULT_TOKENIZE,
});

/** 4 bits per field in one int32 (FIELD_COUNT <= 7 keeps it positive). */
export const TF_BITS = 4;
const MAX_TF_CAP = (1 << TF_BITS) - 1;

export function checkParams(p: RankingParams): void {
  if (FIELD_COUNT * TF_BITS > 31) throw new Error('too many fields to pack');
  if (!(p.tfCap >= 1 && p.tfCap <= MAX_TF_CAP && Number.isInteger(p.tfCap))) throw new Error(`tfCap must be an integer in 1..${MAX_TF_CAP}`);
  if (!(p.k1 > 0)) throw new Error('k1 must be positive');
  for (const f of FIELDS) {
    if (!(p.weights[f] >= 0)) throw new Error(`weight of ${f} must be >= 0`);
    if (!(p.b[f] >= 0 && p.b[f] <= 1)) throw new Error(`b of ${f} must be in [0, 1]`);
  }
}

/** Lucene's BM25 IDF: never negative, so a term in most visible tools still counts a little, never against. */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}
