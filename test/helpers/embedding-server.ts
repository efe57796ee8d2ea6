import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A deterministic OpenAI-compatible `/v1/embeddings` server for tests and the offline bench (issue 18): the
 * hashing trick (Weinberger et al. 2009) over lower-cased words and their character trigrams, signed FNV-1a buckets,
 * L2-normalised. Same text, same vector, on every machine; similar spellings land near each other. Not a language
 * model: it checks the plumbing (batching, hashing, fusion, failure paths), not semantic quality.
 */
export interface EmbeddingServerOptions {
  readonly dimensions?: number;
  /** Delay before answering (to exercise the client's timeout). */
  readonly delayMs?: number;
  /** Answer this HTTP status instead of vectors. */
  readonly failStatus?: number;
}

export interface EmbeddingServer {
  readonly baseUrl: string;
  /** Requests served and inputs embedded so far. */
  readonly counts: { requests: number; inputs: number; inFlight: number; maxInFlight: number };
  /** The Authorization header of the last request (null: none): proves the key is sent, and only here. */
  readonly lastAuthorization: string | null;
  options: EmbeddingServerOptions;
  close(): Promise<void>;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function hashingVector(text: string, dimensions = 256): number[] {
  const v = new Float64Array(dimensions);
  const words = text.normalize('NFKC').split(/(?<=\p{Ll})(?=\p{Lu})/u).join(' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const features = [`w:${w}`];
    const padded = `^${w}$`;
    for (let i = 0; i + 3 <= padded.length; i++) features.push(`t:${padded.slice(i, i + 3)}`);
    for (const f of features) {
      const h = fnv1a(f);
      v[h % dimensions] += (h & 0x80000000) !== 0 ? -1 : 1;
    }
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return Array.from(v, (x) => Math.round((x / n) * 1e6) / 1e6);
}

export async function startEmbeddingServer(options: EmbeddingServerOptions = {}): Promise<EmbeddingServer> {
  const counts = { requests: 0, inputs: 0, inFlight: 0, maxInFlight: 0 };
  const state: { options: EmbeddingServerOptions; authorization: string | null } = { options, authorization: null };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    state.authorization = req.headers.authorization ?? null;
    counts.maxInFlight = Math.max(counts.maxInFlight, ++counts.inFlight);
    res.on('close', () => counts.inFlight--);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const o = state.options;
      const answer = (): void => {
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          res.writeHead(404).end();
          return;
        }
        if (o.failStatus) {
          res.writeHead(o.failStatus, { 'content-type': 'application/json' }).end('{"error":{"message":"failing on purpose"}}');
          return;
        }
        let input: unknown;
        try {
          input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input?: unknown }).input;
        } catch {
          res.writeHead(400).end();
          return;
        }
        const texts = typeof input === 'string' ? [input] : Array.isArray(input) ? input.map(String) : [];
        counts.requests++;
        counts.inputs += texts.length;
        const data = texts.map((t, index) => ({ object: 'embedding', index, embedding: hashingVector(t, o.dimensions ?? 256) }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: 'hashing-trick' }));
      };
      if (o.delayMs) setTimeout(answer, o.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    counts,
    get lastAuthorization() {
      return state.authorization;
    },
    get options() {
      return state.options;
    },
    set options(v: EmbeddingServerOptions) {
      state.options = v;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
