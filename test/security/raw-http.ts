/**
 * A raw HTTP/1.1 client over node:net for hostile-input tests: sends exact bytes (invalid request lines, non-ASCII
 * headers, broken chunked bodies) that fetch() and node:http refuse to produce, and reports what came back.
 */
import { connect } from 'node:net';

export interface RawOutcome {
  /** Status of the first response, or null when the server closed (or timed out) without one. */
  readonly status: number | null;
  /** Everything received (headers and body of every response), latin1-decoded, at most MAX_BYTES. */
  readonly text: string;
  /** Response headers of the first response (lower-case names; repeated ones joined with ", "). */
  readonly headers: Readonly<Record<string, string>>;
  /** Body of the first response (after the blank line; not de-chunked). */
  readonly body: string;
  readonly timedOut: boolean;
  readonly ms: number;
}

const MAX_BYTES = 8 * 1024 * 1024;

/**
 * Connects to 127.0.0.1:port, writes `data` (pieces in order) and collects the answer until the first complete
 * non-1xx response has arrived, the server closes, or `timeoutMs` passes. Never rejects.
 * `halfClose` (default false) sends FIN after writing: only for incomplete requests, which the server can judge
 * only at end of input. (A complete request must not half-close: a Node server ends its side on the client's FIN
 * and a slower answer is then lost, which would make the outcome timing-dependent.)
 */
export function rawExchange(port: number, data: Buffer | string | ReadonlyArray<Buffer | string>, opts: { timeoutMs?: number; halfClose?: boolean } = {}): Promise<RawOutcome> {
  const started = Date.now();
  const pieces = Array.isArray(data) ? data : [data as Buffer | string];
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(chunks).toString('latin1'), timedOut, Date.now() - started));
    };
    const timer = setTimeout(() => finish(true), opts.timeoutMs ?? 5000);
    socket.on('data', (c: Buffer) => {
      if (size < MAX_BYTES) chunks.push(c);
      size += c.length;
      if (firstResponseComplete(Buffer.concat(chunks).toString('latin1'))) finish(false);
    });
    socket.on('error', () => finish(false)); // ECONNRESET after the server gave up on us is an answer too
    socket.on('close', () => finish(false));
    socket.on('connect', () => {
      for (const p of pieces) socket.write(p);
      if (opts.halfClose === true) socket.end();
    });
  });
}

/** True once `text` holds a whole final (non-1xx) response: headers plus Content-Length bytes or the last chunk. */
function firstResponseComplete(text: string): boolean {
  let rest = text;
  for (let i = 0; i < 10; i++) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0 || !/^HTTP\/1\.[01] \d{3}/.test(rest)) return false;
    const head = rest.slice(0, end);
    const body = rest.slice(end + 4);
    if (/^HTTP\/1\.[01] 1\d\d/.test(head)) {
      rest = body; // 100 Continue: the final response follows
      continue;
    }
    if (/^HTTP\/1\.[01] (204|304)/.test(head)) return true;
    const cl = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (cl) return Buffer.byteLength(body, 'latin1') >= Number(cl[1]);
    if (/\r\ntransfer-encoding: *chunked/i.test(head)) return body.includes('\r\n0\r\n\r\n') || body.startsWith('0\r\n\r\n');
    return false; // delimited by close
  }
  return false;
}

function parse(all: string, timedOut: boolean, ms: number): RawOutcome {
  // Interim (1xx) responses are skipped: the outcome is the final response.
  let text = all;
  for (let i = 0; i < 10 && /^HTTP\/1\.[01] 1\d\d/.test(text) && text.includes('\r\n\r\n'); i++) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
  const headEnd = text.indexOf('\r\n\r\n');
  const headers: Record<string, string> = {};
  if (m && headEnd > 0) {
    for (const line of text.slice(0, headEnd).split('\r\n').slice(1)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const k = line.slice(0, i).trim().toLowerCase();
      const v = line.slice(i + 1).trim();
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
    }
  }
  return { status: m ? Number(m[1]) : null, text: all, headers, body: headEnd > 0 ? text.slice(headEnd + 4) : '', timedOut, ms };
}

/** A request in bytes. Adds Host and Connection: close unless given; adds Content-Length for a body unless asked not to. */
export function httpRequest(
  method: string,
  target: string | Buffer,
  headers: ReadonlyArray<readonly [string, string | Buffer]> = [],
  body?: string | Buffer,
  opts: { contentLength?: boolean; host?: boolean } = {},
): Buffer {
  const lines: Buffer[] = [Buffer.concat([Buffer.from(`${method} `), Buffer.from(target as string), Buffer.from(' HTTP/1.1\r\n')])];
  const names = new Set(headers.map(([k]) => k.toLowerCase()));
  if (opts.host !== false && !names.has('host')) lines.push(Buffer.from('Host: 127.0.0.1\r\n'));
  if (!names.has('connection')) lines.push(Buffer.from('Connection: close\r\n'));
  const b = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  if (b && opts.contentLength !== false && !names.has('content-length') && !names.has('transfer-encoding')) lines.push(Buffer.from(`Content-Length: ${b.length}\r\n`));
  for (const [k, v] of headers) lines.push(Buffer.concat([Buffer.from(`${k}: `), Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8'), Buffer.from('\r\n')]));
  lines.push(Buffer.from('\r\n'));
  if (b) lines.push(b);
  return Buffer.concat(lines);
}
