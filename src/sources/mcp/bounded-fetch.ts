import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MessageTooLargeError } from './message-too-large';

/**
 * fetch for Streamable HTTP MCP servers: the response body is cut off past `maxBytes` (a server cannot
 * stream without end into memory). Redirects are not followed, so headers carrying secrets are never sent
 * to a host the admin did not name. `onOversize` hears of each cut-off body (the SDK reports an SSE stream's error only
 * as text, without the request it belonged to).
 */
export function boundedFetch(maxBytes: number, onOversize?: (err: MessageTooLargeError) => void): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, { ...init, redirect: 'manual' });
    if (!res.body) return res;
    let seen = 0;
    const limited = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            const err = new MessageTooLargeError(`the server sent a response larger than ${maxBytes} bytes`);
            onOversize?.(err);
            controller.error(err);
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
