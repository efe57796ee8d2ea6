import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../shared/sha256';

/**
 * API keys: `tc_` + 32 random bytes in base64url. Only SHA-256 of the key is stored: a key has 256 bits of
 * entropy, so a slow password hash adds nothing, and a fast hash keeps authentication a single indexed read.
 */
const API_KEY_PREFIX = 'tc_';
const KEY_SHAPE = /^tc_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  readonly key: string;
  readonly hash: string;
  readonly prefix: string;
}

export function generateApiKey(): NewApiKey {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 10) };
}

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** Cheap shape check before any database read, so junk headers never reach the database. */
export function looksLikeApiKey(s: string): boolean {
  return KEY_SHAPE.test(s);
}
