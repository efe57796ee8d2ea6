/**
 * The validation worker (issue 14, red-team finding: a hostile `pattern` or `uniqueItems` froze the event loop for
 * seconds): checks one value against one schema in a thread of the bounded pool of argument-validator.ts, which
 * terminates the thread when the check outlives its budget. The same pure functions as the inline check
 * (schema-check.ts), and its own bounded cache of compiled validators keyed by the schema's hash.
 */
import type { MessagePort } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { type ArgumentFacts, type FactsRequest, argumentFacts } from './argument-facts';
import { type CheckedRole, type Compiled, type ValidationOutcome, compileSchema, outcomeOf, scanValue } from './schema-check';

export interface CheckTask {
  /** SHA-256 of schemaText (base64url). */
  readonly key: string;
  readonly schemaText: string;
  /** The value, structured-cloned (finite numbers only: the main thread refuses the others first). */
  readonly value: unknown;
  readonly role: CheckedRole;
  /**
   * Told when the check starts, so the budget counts the check, not a thread's start, the queue or the passes below:
   * with `facts`, the message is the ArgumentFacts (they reach the caller even if the check is then abandoned).
   */
  readonly started?: MessagePort;
  /** A large call's arguments: the facts the main thread left to the worker (argument-facts.ts). */
  readonly facts?: FactsRequest;
  /** A large value: the scan for non-finite numbers, left to the worker too. */
  readonly scan?: boolean;
}

/** The outcome, and the facts when asked (also told on `started`, which may arrive after this answer). */
export interface CheckAnswer {
  readonly outcome: ValidationOutcome;
  readonly facts?: ArgumentFacts;
}

const compiled = new LRUCache<string, Compiled>({ max: 200 });

export function checkValue(t: CheckTask): CheckAnswer {
  const facts = t.facts ? argumentFacts(t.value, t.facts) : undefined;
  return { outcome: check(t, facts), ...(facts ? { facts } : {}) };
}

function check(t: CheckTask, facts: ArgumentFacts | undefined): ValidationOutcome {
  const nonFinite = facts ? (facts.tooDeep ? [] : facts.nonFinite) : t.scan ? scanValue(t.value).nonFinite : [];
  t.started?.postMessage(facts ?? 0);
  t.started?.close();
  // Too deep: the caller refuses on the facts and never reads this answer.
  if (facts?.tooDeep) return { ok: false, problems: [{ pointer: '', message: 'nested too deeply' }] };
  if (nonFinite.length > 0) return { ok: false, problems: nonFinite };
  let fn = compiled.get(t.key);
  if (fn === undefined) {
    fn = compileSchema(t.schemaText);
    compiled.set(t.key, fn);
  }
  return outcomeOf(fn, t.value, t.role);
}
