import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * Whether a parsed JSON value is one JSON-RPC message as the MCP SDK's `JSONRPCMessageSchema` defines it (a request,
 * a notification, a result or an error response; each strict at its top level), checked by hand: on the call path
 * (issue 14, bench scenario i) the SDK's zod parse of every message a Streamable HTTP server sent was part of the
 * transport's cost per call. The SDK's schema is the oracle of a seeded property test
 * (test/sources/jsonrpc-message.property.test.ts): the same verdict on every generated value.
 *
 * The message is passed on as it came (zod's copy would drop unknown keys inside `error` and a related-task entry;
 * nothing downstream reads those).
 */
export function isJsonRpcMessage(v: unknown): v is JSONRPCMessage {
  if (!isObject(v) || v.jsonrpc !== '2.0') return false;
  const has = (k: string) => Object.prototype.hasOwnProperty.call(v, k);
  if (has('method')) {
    // A request (with an id) or a notification: jsonrpc, [id,] method, [params]; nothing else.
    if (typeof v.method !== 'string') return false;
    if (has('id') && !isRequestId(v.id)) return false;
    if (!onlyKeys(v, has('id') ? REQUEST_KEYS : NOTIFICATION_KEYS)) return false;
    return !has('params') || isParams(v.params);
  }
  if (has('result')) return isRequestId(v.id) && onlyKeys(v, RESULT_KEYS) && isObject(v.result) && (!hasOwn(v.result, '_meta') || isMeta(v.result._meta));
  if (has('error')) {
    if (has('id') && !isRequestId(v.id)) return false;
    if (!onlyKeys(v, ERROR_KEYS) || !isObject(v.error)) return false;
    return isInteger(v.error.code) && typeof v.error.message === 'string';
  }
  return false;
}

const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function hasOwn(o: Record<string, unknown>, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

function onlyKeys(o: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const k in o) if (hasOwn(o, k) && !allowed.has(k)) return false;
  return true;
}

// zod's z.number().int() takes safe integers only.
const isInteger = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v);

/** RequestIdSchema (and ProgressTokenSchema): a string or a safe integer. */
export const isRequestId = (v: unknown): v is string | number => typeof v === 'string' || isInteger(v);

/** `params` of a request or notification: an object whose `_meta`, when present, is the MCP request meta. */
function isParams(v: unknown): boolean {
  return isObject(v) && (!hasOwn(v, '_meta') || isMeta(v._meta));
}

/** `_meta`: an object; its progressToken a string or integer, its related-task entry an object with a string taskId. */
export function isMeta(v: unknown): boolean {
  if (!isObject(v)) return false;
  if (hasOwn(v, 'progressToken') && !isRequestId(v.progressToken)) return false;
  if (hasOwn(v, RELATED_TASK)) {
    const task = v[RELATED_TASK];
    if (!isObject(task) || typeof task.taskId !== 'string') return false;
  }
  return true;
}
