import type { IncomingMessage } from 'node:http';
import { ParseTurns } from './parse-turns';

/**
 * Reading a JSON request body without letting one caller hold the event loop or a connection (issue 15 red-team
 * findings 4 and 5, and their siblings on the REST call endpoint):
 *   - bounded in bytes (the declared Content-Length first, then as it arrives);
 *   - bounded in time: a body trickled in byte by byte is cut at `deadlineMs`;
 *   - bounded in nesting before JSON.parse: 500,000 nested brackets parse in ~0.5 s of main-thread time, so the bytes
 *     are scanned once (outside strings) and anything deeper than `maxDepth` is refused without parsing.
 */
export type BodyRefusal = 'too-large' | 'too-slow' | 'too-deep' | 'not-json';

export interface BodyBounds {
  readonly maxBytes: number;
  readonly deadlineMs: number;
  readonly maxDepth: number;
  /** Who sent it (the caller's tenant): a large body is parsed in its party's turn (parse-turns.ts). */
  readonly party?: string;
}

/**
 * The process's one line of large bodies (parse-turns.ts): above 64 KB (the size up to which arguments are also
 * checked inline) a body waits for its turn to be parsed. Process-wide on purpose: the event loop it protects is.
 */
const LARGE_BODY_TURNS = new ParseTurns(64 * 1024);

async function readBoundedBody(req: IncomingMessage, bounds: Pick<BodyBounds, 'maxBytes' | 'deadlineMs'>): Promise<Buffer | 'too-large' | 'too-slow'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > bounds.maxBytes) return 'too-large';
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => finish('too-slow'), bounds.deadlineMs);
    const finish = (v: Buffer | 'too-large' | 'too-slow'): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.pause();
      resolve(v);
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > bounds.maxBytes) return finish('too-large');
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    req.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Deepest nesting of objects and arrays in JSON text, stopping as soon as it passes `limit` (strings skipped). */
export function jsonDepthExceeds(bytes: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
      continue;
    }
    if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > limit) return true;
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return false;
}

/** Past this nesting a body is refused unparsed; far above what any bound on arguments allows (64), far below harm. */
export const MAX_BODY_NESTING = 256;
/** The parsed body, or why it was refused. */
export async function readJsonBody(req: IncomingMessage, bounds: BodyBounds): Promise<{ ok: true; value: unknown; empty: boolean; bytes: number } | { ok: false; why: BodyRefusal }> {
  const body = await readBoundedBody(req, bounds);
  if (body === 'too-large' || body === 'too-slow') return { ok: false, why: body };
  if (body.length === 0) return { ok: true, value: undefined, empty: true, bytes: 0 };
  return LARGE_BODY_TURNS.run(bounds.party ?? '', body.length, () => {
    if (jsonDepthExceeds(body, bounds.maxDepth)) return { ok: false, why: 'too-deep' } as const;
    try {
      return { ok: true, value: JSON.parse(body.toString('utf8')) as unknown, empty: false, bytes: body.length } as const;
    } catch {
      return { ok: false, why: 'not-json' } as const;
    }
  });
}
