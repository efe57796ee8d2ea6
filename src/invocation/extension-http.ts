import type { ResolvedImplementation } from '../persistence/extension-implementation.store';
import { boundedFetch } from '../sources/mcp/bounded-fetch';
import { MessageTooLargeError } from '../sources/mcp/message-too-large';
import { ResultRedactor } from './result-redaction';
import { signedHeaders } from './signature';
import { type UpstreamCall, UpstreamError, type UpstreamResult } from './upstream';

/**
 * Calls a host extension's HTTP implementation (issue 14 item 4): one signed POST with JSON in and JSON out.
 *
 *   request body   { "callId": "...", "toolId": "ext.x", "name": "x", "arguments": { ... },
 *                    "caller": { "tenantId": "...", "principalKind": "api-key", "principalId": "..." } }
 *   answer 200     an MCP CallToolResult: { "content": [...], "isError"?: boolean, "structuredContent"?: {...} }
 *
 * `caller` says who is calling (ids only, never a credential), so an endpoint can keep tenants apart: without it the
 * demo's endpoint shared one workspace among all tenants (red-team pass on issue 14). It is inside the signed body.
 * The implementation's URL and secret may be secrets themselves (`{ fromEnv }`): no message built here quotes
 * either, nor the answer's body. Redirects are not followed (a redirect could carry the signed call elsewhere).
 * The answer is read through the same bounded fetch as MCP's Streamable HTTP (no redirects, cut off past
 * maxResultBytes), so an endpoint cannot make toolcat buffer more than the call's result bound.
 */
export async function callExtensionHttp(
  impl: ResolvedImplementation,
  target: { readonly toolId: string; readonly name: string },
  call: UpstreamCall,
  nowSeconds: () => number,
): Promise<UpstreamResult> {
  const { tenantId, principalKind, principalId } = call.caller;
  const body = JSON.stringify({ callId: call.callId, toolId: target.toolId, name: target.name, arguments: call.arguments, caller: { tenantId, principalKind, principalId } });
  const timeoutMs = Math.min(call.timeoutMs, impl.timeoutMs ?? call.timeoutMs);
  const timeout = AbortSignal.timeout(Math.max(1, timeoutMs));
  const signal = AbortSignal.any([call.signal, timeout]);
  let res: Response;
  try {
    res = await boundedFetch(call.maxResultBytes)(impl.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...signedHeaders(impl.secret, body, nowSeconds()) },
      body,
      signal,
    });
  } catch (err) {
    throw failure(err, call.signal, timeout, timeoutMs, true);
  }
  try {
    if (res.status !== 200) {
      // Whether the endpoint ran the tool is unknown after any answer: never retryable.
      throw new UpstreamError(res.status >= 500 ? 'unavailable' : 'protocol', `the extension's implementation answered HTTP ${res.status}`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (err instanceof MessageTooLargeError) throw new UpstreamError('too-large', `the extension's result is larger than ${call.maxResultBytes} bytes (TOOLCAT_CALL_MAX_RESULT_BYTES)`);
      throw err;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new UpstreamError('protocol', "the extension's implementation answered something that is not JSON");
    }
    // The implementation's signing secret is a credential of the host's: an endpoint that quotes it (a debug echo)
    // hands it to no caller (result-redaction.ts, as for an MCP source's secrets).
    const result = resultOf(value);
    let json: string;
    try {
      json = JSON.stringify(result);
    } catch {
      // Nested past the stack: not a result anything can process (as the call path says of one it cannot measure).
      throw new UpstreamError('protocol', "the extension's result could not be processed (nested too deeply?)");
    }
    return new ResultRedactor([impl.secret]).value(result, json);
  } catch (err) {
    if (err instanceof UpstreamError) throw err;
    throw failure(err, call.signal, timeout, timeoutMs, false);
  } finally {
    // An abandoned body keeps its socket busy; cancel it so the connection is freed.
    await res.body?.cancel().catch(() => undefined);
  }
}

/** The answer as an MCP CallToolResult, checked for shape (content blocks are passed on as they are). */
function resultOf(v: unknown): UpstreamResult {
  const r = v as { content?: unknown; isError?: unknown; structuredContent?: unknown } | null;
  if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new UpstreamError('protocol', "the extension's answer is not a CallToolResult object");
  if (!Array.isArray(r.content) || !r.content.every((c) => c !== null && typeof c === 'object' && typeof (c as { type?: unknown }).type === 'string')) {
    throw new UpstreamError('protocol', "the extension's answer has no content array of typed blocks");
  }
  if (r.isError !== undefined && typeof r.isError !== 'boolean') throw new UpstreamError('protocol', "the extension's answer has an isError that is not a boolean");
  const sc = r.structuredContent;
  if (sc !== undefined && (sc === null || typeof sc !== 'object' || Array.isArray(sc))) throw new UpstreamError('protocol', "the extension's structuredContent is not an object");
  return { isError: r.isError === true, content: r.content, ...(sc !== undefined ? { structuredContent: sc as Record<string, unknown> } : {}) };
}

/**
 * A transport failure, without the URL or the cause's text (which could quote the URL). `beforeAnswer`: no answer
 * arrived; only a refused connection is certain not to have delivered the request, so only that is retryable.
 */
function failure(err: unknown, caller: AbortSignal, timeout: AbortSignal, timeoutMs: number, beforeAnswer: boolean): UpstreamError {
  if (caller.aborted) return caller.reason instanceof UpstreamError ? caller.reason : new UpstreamError('cancelled', 'the caller went away');
  if (timeout.aborted) return new UpstreamError('timeout', `the extension's implementation did not answer within ${timeoutMs} ms`);
  const code = causeCode(err);
  const refused = beforeAnswer && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN');
  return new UpstreamError('unavailable', `the extension's implementation could not be reached${code ? ` (${code})` : ''}`, { retryable: refused });
}

function causeCode(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]{3,32}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}
