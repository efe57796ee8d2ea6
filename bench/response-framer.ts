/**
 * Frames HTTP/1.1 responses on a keep-alive socket without parsing or copying bodies: it reads the status
 * line and headers, then counts Content-Length or chunked body bytes until the response ends. It is the
 * load generator's receive side (bench/loadgen.ts): node's http client (and undici) spend a whole core on
 * 1.5 MB bodies at ~1,300 responses/s on this machine, so with them the generator, not the server, was the
 * limit of the ceiling scenario. Bodies are counted, never kept.
 *
 * Scope: responses to GET/POST without `Expect`, no upgrades, no pipelining beyond one request in flight.
 * `Connection: close` bodies (no length, not chunked) are refused: every server measured here sends a length
 * or chunks, and a close-delimited body could not be told apart from a truncated one.
 */
export interface FramedResponse {
  readonly status: number;
  /** Body bytes (chunked: payload bytes only, without chunk framing). */
  readonly bodyBytes: number;
  /** The server said `Connection: close`: the next request needs a new connection. */
  readonly close: boolean;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const MAX_HEAD = 64 * 1024;

type State =
  | { kind: 'head' }
  | { kind: 'length'; remaining: number }
  | { kind: 'chunk-size' }
  | { kind: 'chunk-data'; remaining: number }
  | { kind: 'chunk-crlf'; remaining: number }
  | { kind: 'trailers' };

export class ResponseFramer {
  private state: State = { kind: 'head' };
  /** Bytes of a head, a chunk-size line or trailers that arrived split across reads. */
  private pending: Buffer | null = null;
  private status = 0;
  private bodyBytes = 0;
  private close = false;

  /** Feeds one read; returns the responses it completed (usually zero or one). Throws on a malformed stream. */
  push(chunk: Buffer): FramedResponse[] {
    const done: FramedResponse[] = [];
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    let off = 0;
    while (off < buf.length) {
      const s = this.state;
      if (s.kind === 'chunk-crlf') {
        // The CRLF that ends a chunk's data: checked, so a miscounted chunk shows up as an error here.
        if (buf[off] !== (s.remaining === 2 ? 0x0d : 0x0a)) throw new Error('chunk data not followed by CRLF');
        off++;
        if (--s.remaining === 0) this.state = { kind: 'chunk-size' };
        continue;
      }
      if (s.kind === 'length' || s.kind === 'chunk-data') {
        const take = Math.min(s.remaining, buf.length - off);
        s.remaining -= take;
        off += take;
        this.bodyBytes += take;
        if (s.remaining > 0) break;
        if (s.kind === 'length') done.push(this.finish());
        else this.state = { kind: 'chunk-crlf', remaining: 2 };
        continue;
      }
      const sep = s.kind === 'head' || s.kind === 'trailers' ? CRLFCRLF : CRLF;
      // Trailers may be empty: then the terminating CRLF follows the last chunk's size line directly.
      if (s.kind === 'trailers' && buf[off] === 0x0d && buf[off + 1] === 0x0a) {
        off += 2;
        done.push(this.finish());
        continue;
      }
      const at = buf.indexOf(sep, off);
      if (at < 0) {
        if (buf.length - off > MAX_HEAD) throw new Error('response head or chunk line over 64 KiB');
        this.pending = Buffer.from(buf.subarray(off));
        break;
      }
      const text = buf.toString('latin1', off, at);
      off = at + sep.length;
      if (s.kind === 'head') {
        if (this.head(text)) done.push(this.finish()); // a response without a body
      } else if (s.kind === 'trailers') done.push(this.finish());
      else {
        const size = Number.parseInt(text.split(';')[0].trim(), 16);
        if (!Number.isFinite(size) || size < 0) throw new Error(`bad chunk size line: ${JSON.stringify(text.slice(0, 40))}`);
        this.state = size === 0 ? { kind: 'trailers' } : { kind: 'chunk-data', remaining: size };
      }
    }
    return done;
  }

  /** True between responses (nothing of the next one has arrived). */
  get idle(): boolean {
    return this.state.kind === 'head' && this.pending === null;
  }

  /** Reads a head; true when the response is complete with it (no body, or an interim 1xx to skip: false). */
  private head(text: string): boolean {
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
    if (!m) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(text.slice(0, 40))}`);
    this.status = Number(m[1]);
    this.bodyBytes = 0;
    if (this.status < 200) {
      this.state = { kind: 'head' }; // 1xx: an interim head, the real one follows
      this.status = 0;
      return false;
    }
    const lower = text.toLowerCase();
    this.close = /\r\nconnection:[ \t]*close/.test(lower);
    if (this.status === 204 || this.status === 304) return true;
    if (/\r\ntransfer-encoding:[^\r]*chunked/.test(lower)) {
      this.state = { kind: 'chunk-size' };
      return false;
    }
    const len = /\r\ncontent-length:[ \t]*(\d+)/.exec(lower);
    if (!len) throw new Error(`response ${this.status} has neither Content-Length nor chunked encoding`);
    const n = Number(len[1]);
    if (n === 0) return true;
    this.state = { kind: 'length', remaining: n };
    return false;
  }

  private finish(): FramedResponse {
    const r = { status: this.status, bodyBytes: this.bodyBytes, close: this.close };
    this.state = { kind: 'head' };
    this.status = 0;
    this.bodyBytes = 0;
    this.close = false;
    return r;
  }
}
