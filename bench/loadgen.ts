import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { type LatencySummary, summarize } from './stats';

/**
 * A closed-loop load generator on node:http: a keep-alive Agent with exactly `concurrency` sockets and as many
 * loops, each sending its next request as soon as the previous answer has been read to the end. Bodies are
 * counted, never parsed. A warm-up phase runs first and is discarded; only requests that start and finish
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
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.concurrency, maxFreeSockets: spec.concurrency, scheduling: 'fifo' });
  let seq = 0;
  let next = 0;
  const once = (t: LoadTarget): Promise<Outcome> =>
    new Promise((resolve) => {
      const body = t.body === undefined ? undefined : t.body.includes('__SEQ__') ? t.body.replace(/__SEQ__/g, String(++seq)) : t.body;
      const headers: Record<string, string | number> = { ...(t.headers ?? {}) };
      if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
      const req = http.request({ host: base.hostname.replace(/^\[|\]$/g, ''), port: base.port, method: t.method ?? 'GET', path: t.path, headers, agent }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, error: null }));
        res.on('error', (e) => resolve({ status: 0, bytes, error: e.message }));
      });
      req.setTimeout(15_000, () => req.destroy(new Error('request timed out after 15 s')));
      req.on('error', (e) => resolve({ status: 0, bytes: 0, error: e.message }));
      req.end(body);
    });

  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  let bytes = 0;
  const t0 = performance.now();
  const measureStart = t0 + spec.warmupMs;
  const end = measureStart + spec.durationMs;
  let stopAt = end;

  const loop = async () => {
    for (;;) {
      const start = performance.now();
      if (start >= stopAt) return;
      const target = spec.targets[next++ % spec.targets.length];
      const out = await once(target);
      const done = performance.now();
      const ok = out.status === spec.expectStatus && !out.error;
      if (!ok) {
        errors++;
        firstError ??= out.error ?? `status ${out.status} (expected ${spec.expectStatus}) for ${target.method ?? 'GET'} ${target.path}`;
        if (errors > 1000) stopAt = 0; // something is wrong: do not spin
      }
      if (start >= measureStart && done <= stopAt && ok) {
        latencies.push(done - start);
        bytes += out.bytes;
        if (latencies.length >= spec.maxRequests) stopAt = done;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, loop));
  const finished = performance.now();
  agent.destroy();
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
