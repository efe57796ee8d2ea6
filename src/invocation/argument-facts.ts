import { canonical } from '../catalog/compact/json';
import { redactJson } from '../catalog/credential-redaction';
import type { JsonValue } from '../catalog/descriptor';
import { jsonDepth } from '../catalog/ingest-bounds';
import { sha256Hex } from '../shared/sha256';
import { type ArgumentProblem, scanValue } from './schema-check';

/**
 * What the call path learns from a call's arguments before anything is sent: whether they are nested too deeply,
 * the request hash bound to an Idempotency-Key, their canonical size, the recorded copy (when the operator keeps
 * arguments), and the scan for non-finite numbers. Each is a pass over the whole value, so for a large value they run
 * in the checker's worker pool with the check itself (argument-validator.ts, prepare), never on the event loop: one
 * caller's 60,000-key arguments (~650 KB) took ~40-65 ms per pass there, stalling every tenant (red-team pass on
 * issue 14, finding 2; item 6, Containment). The same pure function runs inline for a small value, so both answer alike.
 */
export interface FactsRequest {
  readonly toolId: string;
  readonly maxDepth: number;
  /** Keep a redacted copy of the arguments (TOOLCAT_CALL_RECORD_ARGUMENTS). */
  readonly record: boolean;
}

export type ArgumentFacts =
  | { readonly tooDeep: true }
  | {
      readonly tooDeep: false;
      readonly requestHash: string;
      readonly argumentBytes: number;
      readonly recorded: string | null;
      readonly nonFinite: readonly ArgumentProblem[];
      /** About the value's JSON length (scanValue). */
      readonly size: number;
    };

export function argumentFacts(value: unknown, req: FactsRequest): ArgumentFacts {
  if (jsonDepth(value, req.maxDepth) > req.maxDepth) return { tooDeep: true };
  const text = canonical(value as JsonValue);
  const { nonFinite, size } = scanValue(value);
  return {
    tooDeep: false,
    // canonical([toolId, arguments]), spelled from the text already made; byte for byte the hash stored with every
    // Idempotency-Key (pinned in test/invocation/calls.test.ts): rows on every replica and database compare against it.
    requestHash: sha256Hex(`[${JSON.stringify(req.toolId)},${text}]`),
    argumentBytes: Buffer.byteLength(text),
    // Kept only when the operator asks, and then with credentials redacted like every admin field (issue 11).
    recorded: req.record ? JSON.stringify(redactJson(value as JsonValue)) : null,
    nonFinite,
    size,
  };
}

/**
 * Whether a value has at most `maxNodes` values and about `maxChars` characters of JSON: a walk that stops as soon as
 * either bound is passed, so deciding costs at most that much whatever the value's size (an object's keys are listed
 * by one native call and counted before any is visited).
 */
export function isSmall(value: unknown, maxNodes: number, maxChars: number): boolean {
  let nodes = 0;
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (++nodes > maxNodes || chars > maxChars) return false;
    if (typeof v === 'string') chars += v.length + 2;
    else if (Array.isArray(v)) {
      if (nodes + stack.length + v.length > maxNodes) return false;
      chars += 2 + v.length;
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      if (nodes + stack.length + keys.length > maxNodes) return false;
      chars += 2;
      for (const k of keys) {
        chars += k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else chars += 8;
  }
  return chars <= maxChars;
}
