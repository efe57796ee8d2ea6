/** One server-sent event (the WHATWG event stream format): its name, data lines joined, and id when it had one. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  readonly id?: string;
  readonly retry?: number;
}

/**
 * Parses a text/event-stream body as it arrives (chunks split anywhere, CRLF or LF line ends, comments skipped).
 * A block with only `retry:` is yielded with empty data so the caller can honour it.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  let any = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + (buffer[nl] === '\r' && buffer[nl + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (any) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}), ...(retry !== undefined ? { retry } : {}) };
          event = '';
          data = [];
          retry = undefined;
          any = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const v = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        any = true;
        if (field === 'event') event = v;
        else if (field === 'data') data.push(v);
        else if (field === 'id') id = v;
        else if (field === 'retry' && /^\d+$/.test(v)) retry = Number(v);
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
