/**
 * The validation worker (issue 14, red-team finding: a hostile `pattern` or `uniqueItems` froze the event loop for
 * seconds): checks one value against one schema in a thread of the bounded pool of argument-validator.ts, which
 * terminates the thread when the check outlives its budget. The same pure functions as the inline check
 * (schema-check.ts), and its own bounded cache of compiled validators keyed by the schema's hash.
 */
import type { MessagePort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { type CheckedRole, type Compiled, type ValidationOutcome, compileSchema, outcomeOf } from './schema-check';

export interface CheckTask {
  /** SHA-256 of schemaText (base64url). */
  readonly key: string;
  readonly schemaText: string;
  /** The value, structured-cloned (finite numbers only: the main thread refuses the others first). */
  readonly value: unknown;
  readonly role: CheckedRole;
  /** Told when the check starts, so the budget counts the check, not a thread's start or the queue. */
  readonly started?: MessagePort;
}

const compiled = new LRUCache<string, Compiled>({ max: 200 });

export function checkValue(t: CheckTask): ValidationOutcome {
  t.started?.postMessage(0);
  t.started?.close();
  let fn = compiled.get(t.key);
  if (fn === undefined) {
    fn = compileSchema(t.schemaText);
    compiled.set(t.key, fn);
  }
  return outcomeOf(fn, t.value, t.role);
}
