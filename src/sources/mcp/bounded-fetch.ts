import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { followSignal } from '../../shared/follow-signal';
import { MessageTooLargeError } from './message-too-large';

/**
 * fetch for Streamable HTTP MCP servers: the response body is cut off past `maxBytes` (a server cannot
 * stream without end into memory). Redirects are not followed, so headers carrying secrets are never sent
 * to a host the admin did not name. `onOversize` hears of each cut-off body (the SDK reports an SSE stream's error only
 * as text, without the request it belonged to).
 */
export function boundedFetch(maxBytes: number, onOversize?: (err: MessageTooLargeError) => void): FetchLike {
  return async (url, init) => {
    // The SDK gives every request of a session the same AbortSignal, and fetch leaves an abort listener on the
    // signal it is given: a long-lived session (the call pool's) grew by one per request, and every fetch paid for
    // all the earlier ones. Each request gets a signal of its own, linked to the session's only while it runs.
    const own = followSignal(init?.signal);
    const unlink = own.release;
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: own.signal, redirect: 'manual' });
    } catch (err) {
      unlink();
      throw err;
    }
    if (!res.body) {
      unlink();
      return res;
    }
    let seen = 0;
    const limited = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            const err = new MessageTooLargeError(`the server sent a response larger than ${maxBytes} bytes`);
            onOversize?.(err);
            unlink();
            controller.error(err);
          } else controller.enqueue(chunk);
        },
        flush() {
          unlink();
        },
      }),
    );
    // A body the reader abandons (cancel) or that errors also ends the link.
    const reader = limited.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            unlink();
            controller.close();
          } else controller.enqueue(value);
        } catch (err) {
          unlink();
          controller.error(err);
        }
      },
      async cancel(reason) {
        unlink();
        await reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
