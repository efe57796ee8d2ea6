import type { IncomingMessage, ServerResponse } from 'node:http';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
// The SDK's request-id and _meta rules, checked by hand once for every MCP message toolcat reads.
import { isMeta, isObject, isRequestId } from '../shared/jsonrpc-message';

/**
 * The face's own answer to tools/list (issue 15, made cheaper for issue 21): a single, well-formed request is answered
 * as one application/json response (the Streamable HTTP transport lets a server answer a POST that way), without the
 * SDK transport's per-request stream plumbing. Everything in the answer that does not depend on the request is built
 * once per list page: the JSON-RPC envelope up to the id, as bytes (`head`), so a request costs one small write of
 * its id after a buffer that already exists, not a re-serialised, re-encoded page.
 *
 * The bytes are the SDK's: Protocol._onrequest sends `{ result, jsonrpc: "2.0", id }` and the transport writes
 * `JSON.stringify` of it, in that key order (test/mcp-face/list-answer.property.test.ts checks it against the SDK).
 */
export interface DirectListRequest {
  readonly id: string | number;
  readonly params?: { readonly cursor?: unknown };
}

/**
 * A single, well-formed tools/list request that may be answered with JSON. Hand-written instead of the SDK's zod
 * parse (the transport's JSONRPCRequestSchema, strict about the envelope's keys, then the handler's
 * ListToolsRequestSchema): it accepts exactly what both accept (test/mcp-face/list-answer.property.test.ts holds it to
 * them, the SDK as oracle), so a request it declines is one the SDK refuses, or one the SDK answers itself: a
 * malformed request gets the SDK's own error, never one of the face's making.
 */
export function isDirectList(req: IncomingMessage, body: unknown): body is DirectListRequest {
  if (!isObject(body)) return false;
  const m = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (m.jsonrpc !== '2.0' || m.method !== 'tools/list' || !isRequestId(m.id)) return false;
  for (const k in m) if (k !== 'jsonrpc' && k !== 'id' && k !== 'method' && k !== 'params') return false;
  if (m.params !== undefined && !isListParams(m.params)) return false;
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  const version = req.headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));
}

/** PaginatedRequestParamsSchema: an object (other keys allowed), `cursor` a string, `_meta` RequestMetaSchema. */
function isListParams(p: unknown): boolean {
  if (!isObject(p)) return false;
  if (p.cursor !== undefined && typeof p.cursor !== 'string') return false;
  return p._meta === undefined || isMeta(p._meta);
}

/** The answer's bytes before the id, for a result already serialised: built once per page (tool-list.ts pageOf). */
export function listAnswerHead(resultJson: string): Buffer {
  return Buffer.from(`{"result":${resultJson},"jsonrpc":"2.0","id":`, 'utf8');
}

/** The whole answer's bytes (tests; the face writes `head` and the tail separately, never joining them). */
export function listAnswerBytes(head: Buffer, id: string | number): Buffer {
  return Buffer.concat([head, tailOf(id)]);
}

/**
 * Sends the answer: the page's prebuilt head as it is (no copy) and the id's few bytes, with their Content-Length, so
 * node frames it as one body (no chunked encoding) and writes both in one writev (the socket is corked until the
 * next tick by the first write).
 */
export function sendListAnswer(res: ServerResponse, head: Buffer, id: string | number): void {
  const tail = tailOf(id);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': head.length + tail.length });
  res.write(head);
  res.end(tail);
}

function tailOf(id: string | number): Buffer {
  return Buffer.from(`${JSON.stringify(id)}}`, 'utf8');
}
