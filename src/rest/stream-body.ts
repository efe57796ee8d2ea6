import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamedBody } from '../cache/cached-body';
import { JSON_CONTENT_TYPE } from '../shared/transport-answers';

/** What writeChunks needs of its destination: a ServerResponse, or any Writable (tests). */
interface Sink {
  readonly destroyed: boolean;
  write(chunk: Buffer): boolean;
  end(): void;
  destroy(err?: Error): void;
  cork(): void;
  uncork(): void;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  off(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * A streamed list's 200 (issue 21): its exact Content-Length (never chunked, like every other body), then its chunks
 * as the socket takes them. HEAD sends the headers only.
 */
export function sendStreamed(req: IncomingMessage, res: ServerResponse, body: StreamedBody): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', body.length);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  void writeChunks(res, body.chunks());
}

/**
 * Writes groups of chunks with backpressure: the next group is read (from the descriptor cache, or the database for what it
 * no longer holds) only once the sink has taken the previous one, so a slow reader holds at most one chunk of its
 * list in this process, however long the list. A failure on the way (the catalog changed under the list, the
 * database went away) cuts the answer: its headers are out, and a Content-Length that is not met is how HTTP says so.
 */
export async function writeChunks(sink: Sink, chunks: AsyncIterable<readonly Buffer[]>): Promise<void> {
  try {
    for await (const group of chunks) {
      if (sink.destroyed) return;
      // One group, one writev: corked, its buffers go to the socket together, straight from the cache.
      sink.cork();
      let taken = true;
      for (const b of group) taken = sink.write(b) && taken;
      sink.uncork();
      if (!taken) {
        await drained(sink);
        if (sink.destroyed) return; // the reader went away while we waited: read nothing more
      }
      // Back to the event loop after every group, also after a 'drain': on loopback the kernel takes a group at once,
      // its writev completes synchronously and 'drain' comes in the same tick (process.nextTick), so awaiting it alone
      // never yielded and one reader's 150 MB went out in a single macrotask (issue 21, profiled at 100,000 tools
      // with 10 readers: event-loop delay max 1.8 s, every other reader's first byte behind it). One group per reader
      // per turn bounds a turn to ~256 KB a reader, and a new request's status line goes out on the next turn.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (sink.destroyed) return;
    }
    if (!sink.destroyed) sink.end();
  } catch (err) {
    sink.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}

function drained(sink: Sink): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      sink.off('drain', done);
      sink.off('close', done);
      resolve();
    };
    sink.once('drain', done);
    sink.once('close', done);
  });
}
