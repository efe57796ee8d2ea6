import { inspect } from 'node:util';

/**
 * Tool search settings (issue 18), declared with their defaults and parsing; src/services applies them. The only
 * one today is the optional embedding stage: an operator-configured OpenAI-compatible `/v1/embeddings` endpoint
 * (TOOLCAT_EMBEDDINGS_URL / _MODEL / _KEY). Unset URL: no embedding stage, lexical search only.
 */

/**
 * The endpoint's API key. Held in a wrapper so that logging, JSON-encoding or inspecting the config (or an error
 * that carries it) prints `[redacted]`; only the embeddings client calls `reveal()`, to build its header.
 */
export class EmbeddingKey {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return '[redacted]';
  }

  toString(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}

export interface EmbeddingSettings {
  /** Base URL of the API (`http://127.0.0.1:8080/v1`); requests go to `${baseUrl}/embeddings`. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey: EmbeddingKey | null;
  /** One request of the background pass (tool vectors). */
  readonly timeoutMs: number;
  /** The query's vector, on the request path: past it the answer is the lexical one. */
  readonly queryTimeoutMs: number;
  /** Inputs per request. */
  readonly batchSize: number;
  /** Requests of the background pass in flight at once. */
  readonly concurrency: number;
  /** Characters of a tool's (or a query's) text sent. */
  readonly maxInputChars: number;
  /** After a failed call, how long the query path skips the endpoint (lexical answers) before trying again. */
  readonly retryAfterMs: number;
}

export const DEFAULT_EMBEDDING_SETTINGS = Object.freeze({
  timeoutMs: 10_000,
  queryTimeoutMs: 300,
  batchSize: 64,
  concurrency: 2,
  maxInputChars: 4000,
  retryAfterMs: 30_000,
});

export interface SearchSettings {
  readonly embeddings: EmbeddingSettings | null;
}

const d = DEFAULT_EMBEDDING_SETTINGS;
export const SEARCH_ENV_DOCS: Readonly<Record<string, string>> = {
  TOOLCAT_EMBEDDINGS_URL: 'OpenAI-compatible embeddings API base URL (http(s)://…/v1) for the optional embedding stage of tool search (default: none, lexical only)',
  TOOLCAT_EMBEDDINGS_MODEL: 'model name sent to the embeddings endpoint (required with TOOLCAT_EMBEDDINGS_URL)',
  TOOLCAT_EMBEDDINGS_KEY: 'API key for the embeddings endpoint, sent as a Bearer token (default: none; never logged)',
  TOOLCAT_EMBEDDINGS_TIMEOUT_MS: `bound on one embeddings request of the background pass (default ${d.timeoutMs})`,
  TOOLCAT_EMBEDDINGS_QUERY_TIMEOUT_MS: `bound on embedding a search query; past it the lexical ranking is served (default ${d.queryTimeoutMs})`,
  TOOLCAT_EMBEDDINGS_BATCH_SIZE: `tool texts per embeddings request (default ${d.batchSize})`,
  TOOLCAT_EMBEDDINGS_CONCURRENCY: `embeddings requests in flight at once in the background pass (default ${d.concurrency})`,
  TOOLCAT_EMBEDDINGS_MAX_INPUT_CHARS: `characters of a tool's text (or a query) sent to the endpoint (default ${d.maxInputChars})`,
  TOOLCAT_EMBEDDINGS_RETRY_AFTER_MS: `after an embeddings failure, how long search stays lexical before trying the endpoint again (default ${d.retryAfterMs})`,
};

type Int = (name: string, dflt: number, min: number, max: number) => number;

export function loadSearchSettings(env: Readonly<Record<string, string | undefined>>, int: Int, problems: string[]): SearchSettings {
  const url = env.TOOLCAT_EMBEDDINGS_URL;
  if (!url) return { embeddings: null };
  let baseUrl = url;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('TOOLCAT_EMBEDDINGS_URL must be an http(s) URL');
    // Credentials in the URL would end up wherever the URL is printed: the key has its own variable.
    if (u.username || u.password) problems.push('TOOLCAT_EMBEDDINGS_URL must not carry credentials (use TOOLCAT_EMBEDDINGS_KEY)');
    baseUrl = url.replace(/\/+$/, '');
  } catch {
    problems.push('TOOLCAT_EMBEDDINGS_URL is not a URL');
  }
  const model = env.TOOLCAT_EMBEDDINGS_MODEL ?? '';
  if (!model) problems.push('TOOLCAT_EMBEDDINGS_MODEL is required when TOOLCAT_EMBEDDINGS_URL is set');
  else if (model.length > 200) problems.push('TOOLCAT_EMBEDDINGS_MODEL must be at most 200 characters');
  return {
    embeddings: {
      baseUrl,
      model,
      apiKey: env.TOOLCAT_EMBEDDINGS_KEY ? new EmbeddingKey(env.TOOLCAT_EMBEDDINGS_KEY) : null,
      timeoutMs: int('TOOLCAT_EMBEDDINGS_TIMEOUT_MS', d.timeoutMs, 10, 600_000),
      queryTimeoutMs: int('TOOLCAT_EMBEDDINGS_QUERY_TIMEOUT_MS', d.queryTimeoutMs, 10, 60_000),
      batchSize: int('TOOLCAT_EMBEDDINGS_BATCH_SIZE', d.batchSize, 1, 2048),
      concurrency: int('TOOLCAT_EMBEDDINGS_CONCURRENCY', d.concurrency, 1, 64),
      maxInputChars: int('TOOLCAT_EMBEDDINGS_MAX_INPUT_CHARS', d.maxInputChars, 16, 100_000),
      retryAfterMs: int('TOOLCAT_EMBEDDINGS_RETRY_AFTER_MS', d.retryAfterMs, 0, 3_600_000),
    },
  };
}
