import type { ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { sendJson } from './http-status';
import { errorBody } from '../shared/transport-answers';

/**
 * Per-key token buckets (issue 5: per-principal REST rate limits). Pure and deterministic given the injected
 * clock; memory is bounded by `maxKeys` with least-recently-used eviction. An evicted key comes back with a
 * full bucket, so eviction can only make the limiter more lenient for that key, never lock anyone out.
 */
export interface RateLimiterOptions {
  /** Burst size: the most requests a key can make at once. */
  readonly capacity: number;
  /** Sustained rate: tokens added per second, up to `capacity`. */
  readonly refillPerSecond: number;
  /** Most keys remembered at once. */
  readonly maxKeys: number;
  /** Milliseconds; defaults to Date.now. Tests pass a fake clock. */
  readonly now?: () => number;
}

interface TakeResult {
  readonly allowed: boolean;
  /** Whole seconds until one token is available again: 0 when allowed, at least 1 when not. */
  readonly retryAfterSeconds: number;
  /** Whole tokens left after this request. */
  readonly remaining: number;
}

export interface RateLimiter {
  readonly capacity: number;
  take(key: string): TakeResult;
  /**
   * `n` more tokens of `key` at once (an MCP batch's later messages), where the budget is not this process's own
   * (rate-limit-shared.ts: Redis). Absent: the caller takes them one by one with take().
   */
  takeMany?(key: string, n: number): Promise<TakeResult>;
  /** Keys currently remembered (for tests and metrics). */
  size(): number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { capacity, refillPerSecond, maxKeys } = opts;
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('rate limit capacity must be an integer >= 1');
  if (!(refillPerSecond > 0) || !Number.isFinite(refillPerSecond)) throw new RangeError('rate limit refillPerSecond must be a positive number');
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('rate limit maxKeys must be an integer >= 1');
  const now = opts.now ?? Date.now;
  // Least recently used keys go first when maxKeys is reached (lru-cache; issue 13: the library, not a twin).
  const buckets = new LRUCache<string, Bucket>({ max: maxKeys });

  return {
    capacity,
    size: () => buckets.size,
    take(key) {
      const t = now();
      let b = buckets.get(key);
      if (b) {
        // A clock that goes backwards (NTP step) must not mint tokens or go negative.
        const elapsed = Math.max(0, t - b.at) / 1000;
        b = { tokens: Math.min(capacity, b.tokens + elapsed * refillPerSecond), at: Math.max(b.at, t) };
      } else {
        b = { tokens: capacity, at: t };
      }
      buckets.set(key, b);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { allowed: true, retryAfterSeconds: 0, remaining: Math.floor(b.tokens) };
      }
      const wait = (1 - b.tokens) / refillPerSecond;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait)), remaining: 0 };
    },
  };
}

const RATE_LIMITED_BODY = errorBody('RATE_LIMITED', 'Too many requests. Retry after the number of seconds in Retry-After.');

/**
 * Takes one token for `key` and says whether the request may go on. When not, it has answered: 429 with
 * Retry-After (RFC 9110) and the service's error envelope. RateLimit-Limit / RateLimit-Remaining (IETF
 * RateLimit header fields draft) go on every limited response.
 */
export function admitOrRefuse(limiter: RateLimiter, key: string, res: ServerResponse): boolean {
  const r = limiter.take(key);
  res.setHeader('RateLimit-Limit', String(limiter.capacity));
  res.setHeader('RateLimit-Remaining', String(r.remaining));
  if (r.allowed) return true;
  sendJson(res, 429, RATE_LIMITED_BODY, { 'Retry-After': String(r.retryAfterSeconds) });
  return false;
}
