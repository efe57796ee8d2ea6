import http from 'node:http';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type FramedResponse, ResponseFramer } from './response-framer';
import { type LatencySummary, summarize } from './stats';

/**
 * A closed-loop load generator: exactly `concurrency` keep-alive TCP connections and as many loops, each
 * sending its next request as soon as the previous answer has been read to the end. Bodies are counted, never
 * parsed (ResponseFramer; node's own http client saturated a core before the ceiling server did). A warm-up phase runs first and is discarded; only requests that start and finish
 * inside the measured window count. Bounded by time and by a request cap. Loopback only.
 */
export interface LoadTarget {
  readonly method?: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Request body; every `__SEQ__` is replaced by a per-run sequence number (unique JSON-RPC ids). */
  readonly body?: string;
}

export interface LoadSpec {
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  /** Used round-robin. */
  readonly targets: readonly LoadTarget[];
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Stop early after this many measured requests. */
  readonly maxRequests: number;
  readonly expectStatus: number;
  /** Stop early when aborted (in-process only; the hostile-neighbours section runs a load for as long as a sync). */
  readonly signal?: AbortSignal;
  /**
   * A steady load instead of a saturating one: each connection starts its next request this many ms after it
   * started the previous one (or at once when the answer took longer). Latency still counts from send to answer.
   */
  readonly pacingMs?: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly errors: number;
  readonly firstError: string | null;
  /** Measured requests per second. */
  readonly rps: number;
  readonly latency: LatencySummary;
  readonly bytesPerResponse: number;
  readonly measuredMs: number;
  /** Wall time of warm-up plus measurement (for CPU accounting). */
  readonly wallMs: number;
}

interface Outcome {
  status: number;
  bytes: number;
  error: string | null;
}

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const base = new URL(spec.baseUrl);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(base.hostname)) throw new Error(`refusing non-loopback target ${spec.baseUrl}`);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const port = Number(base.port);
  let seq = 0;
  let next = 0;
  // Request bytes are built once per target (again per request only for bodies with __SEQ__).
  const fixed = new Map<LoadTarget, Buffer>();
  const bytesOf = (t: LoadTarget): Buffer => {
    const known = fixed.get(t);
    if (known) return known;
    const n = t.body?.includes('__SEQ__') ? String(++seq) : '';
    const body = t.body === undefined ? undefined : t.body.replace(/__SEQ__/g, n);
    const lines = [`${t.method ?? 'GET'} ${t.path} HTTP/1.1`, `Host: ${base.host}`, 'Connection: keep-alive'];
    for (const [k, v] of Object.entries(t.headers ?? {})) lines.push(`${k}: ${v}`);
    if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
    const out = Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
    if (!t.body?.includes('__SEQ__')) fixed.set(t, out);
    return out;
  };
  const connections: Connection[] = [];
  const once = (conn: Connection, t: LoadTarget): Promise<Outcome> => conn.exchange(bytesOf(t));

  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let bytes = 0;
  const t0 = performance.now();
  const measureStart = t0 + spec.warmupMs;
  const end = measureStart + spec.durationMs;
  let stopAt = end;
  spec.signal?.addEventListener('abort', () => {
    stopAt = Math.min(stopAt, performance.now());
  });

  const loop = async () => {
    const conn = new Connection(host, port);
    connections.push(conn);
    for (;;) {
      const start = performance.now();
      if (start >= stopAt) return;
      const target = spec.targets[next++ % spec.targets.length];
      const out = await once(conn, target);
      const done = performance.now();
      const ok = out.status === spec.expectStatus && !out.error;
      if (!ok) {
        errors++;
        firstError ??= out.error ?? `status ${out.status} (expected ${spec.expectStatus}) for ${target.method ?? 'GET'} ${target.path}`;
        if (errors > 1000) stopAt = 0; // something is wrong: do not spin
      }
      // With a signal, a request in flight when the load is stopped still counts: it may be the one that waited out
      // a stall (issue 12), and dropping it would hide exactly what the hostile-neighbours section measures.
      if (start >= measureStart && (done <= stopAt || spec.signal !== undefined) && ok) {
        latencies.push(done - start);
        bytes += out.bytes;
        if (latencies.length >= spec.maxRequests) stopAt = done;
      }
      const wait = spec.pacingMs ? start + spec.pacingMs - performance.now() : 0;
      if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, Math.max(0, stopAt - performance.now()))));
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, loop));
  const finished = performance.now();
  for (const c of connections) c.close();
  const measuredMs = Math.max(1, Math.min(stopAt, finished) - measureStart);
  return {
    requests: latencies.length,
    errors,
    firstError,
    rps: (latencies.length / measuredMs) * 1000,
    latency: summarize(latencies),
    bytesPerResponse: latencies.length ? bytes / latencies.length : 0,
    measuredMs,
    wallMs: finished - t0,
  };
}

/**
 * One keep-alive connection of the closed loop: raw TCP, one request in flight, responses framed and counted by
 * ResponseFramer (bodies are never copied or decoded). Reconnects after an error or a server close.
 */
class Connection {
  private socket: net.Socket | null = null;
  private framer = new ResponseFramer();
  private waiting: ((o: Outcome) => void) | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  exchange(request: Buffer): Promise<Outcome> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.timer = setTimeout(() => this.fail('request timed out after 15 s'), 15_000);
      this.open().write(request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): net.Socket {
    if (this.socket) return this.socket;
    // One receive buffer reused for every read of this connection (`onread`): a fresh Buffer per 64 KiB read
    // made V8 collect garbage for the generator's whole heap at GB/s of body bytes, halving what it could read.
    const s = net.connect({
      host: this.host,
      port: this.port,
      noDelay: true,
      onread: {
        buffer: Buffer.allocUnsafe(256 * 1024),
        callback: (n: number, buf: Uint8Array) => {
          if (this.socket !== s) return false; // a late read of a connection already given up
          let done: FramedResponse[];
          try {
            done = this.framer.push(Buffer.from(buf.buffer, buf.byteOffset, n));
          } catch (err) {
            this.fail((err as Error).message);
            return false;
          }
          for (const r of done) {
            if (r.close) this.close(); // the server ends this connection: the next request opens a new one
            this.settle({ status: r.status, bytes: r.bodyBytes, error: null });
          }
          return true;
        },
      },
    });
    this.framer = new ResponseFramer();
    // Events of a socket that is no longer the current one (closed after an error, a timeout or `Connection:
    // close`) must not touch its successor.
    s.on('error', (e) => {
      if (this.socket === s) this.fail(e.message);
    });
    s.on('close', () => {
      if (this.socket === s) this.fail('connection closed by the server');
    });
    this.socket = s;
    return s;
  }

  private fail(message: string): void {
    this.close();
    this.settle({ status: 0, bytes: 0, error: message });
  }

  private settle(o: Outcome): void {
    const w = this.waiting;
    if (!w) return;
    this.waiting = null;
    if (this.timer) clearTimeout(this.timer);
    w(o);
  }
}

/** One request, fully read (for setup, validation and single-shot latency). */
export function request(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headers: Record<string, string | number> = { ...(opts.headers ?? {}) };
    if (opts.body !== undefined) headers['content-length'] = Buffer.byteLength(opts.body);
    const start = performance.now();
    const req = http.request(
      { host: u.hostname, port: u.port, method: opts.method ?? 'GET', path: u.pathname + u.search, headers, agent: opts.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - start }));
        res.on('error', reject);
      },
    );
    req.setTimeout(120_000, () => req.destroy(new Error(`${opts.method ?? 'GET'} ${url} timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
