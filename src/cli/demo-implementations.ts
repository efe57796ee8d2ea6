import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SIGNATURE_HEADERS, signatureProblem } from '../invocation/signature';

/**
 * The demo's host-extension implementations (issue 14: "the demo ships working implementations of its extensions so
 * a newcomer's first call works"). One HTTP endpoint on loopback, called by toolcat exactly as an operator's own
 * endpoint would be: a signed POST per call (docs/extensions.md), verified here before anything runs. Everything stays
 * confined: files live in a temporary workspace removed on exit, the shell tool is a stand-in that runs nothing,
 * e-mail goes to an outbox file, and web_fetch reaches nothing (the demo's allow-list is empty).
 */
export interface DemoImplementations {
  readonly url: string;
  readonly secret: string;
  readonly workspace: string;
  close(): Promise<void>;
}

type Result = { content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
type Handler = (args: Record<string, unknown>, workspace: string) => Result;

const text = (t: string, structured?: Record<string, unknown>, isError = false): Result => ({ content: [{ type: 'text', text: t }], ...(structured ? { structuredContent: structured } : {}), ...(isError ? { isError } : {}) });

/** A path inside the workspace, or null for anything that would leave it (`..`, absolute paths, symlinks out). */
function inWorkspace(workspace: string, path: unknown): string | null {
  if (typeof path !== 'string' || path === '' || path.includes('\u0000')) return null;
  const target = resolve(workspace, path);
  const rel = relative(workspace, target);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..')) return null;
  return target;
}

/** + - * / and parentheses over numbers, by recursive descent: nothing is evaluated as code. */
function calculate(expression: string): number {
  let i = 0;
  const s = expression.replace(/\s+/g, '');
  const peek = () => s[i];
  const number = (): number => {
    if (peek() === '(') {
      i++;
      const v = sum();
      if (s[i++] !== ')') throw new Error('missing )');
      return v;
    }
    if (peek() === '-') {
      i++;
      return -number();
    }
    const m = /^\d+(?:\.\d+)?/.exec(s.slice(i));
    if (!m) throw new Error(`unexpected ${peek() ?? 'end'} at ${i}`);
    i += m[0].length;
    return Number(m[0]);
  };
  const product = (): number => {
    let v = number();
    while (peek() === '*' || peek() === '/') v = s[i++] === '*' ? v * number() : v / number();
    return v;
  };
  const sum = (): number => {
    let v = product();
    while (peek() === '+' || peek() === '-') v = s[i++] === '+' ? v + product() : v - product();
    return v;
  };
  const v = sum();
  if (i !== s.length) throw new Error(`unexpected ${peek()} at ${i}`);
  return v;
}

const HANDLERS: Readonly<Record<string, Handler>> = {
  calculator: (a) => {
    try {
      const value = calculate(String(a.expression));
      return text(String(value), { value });
    } catch (err) {
      return text(`cannot evaluate: ${(err as Error).message}`, undefined, true);
    }
  },
  current_time: (a) => {
    const timeZone = typeof a.timeZone === 'string' ? a.timeZone : 'UTC';
    try {
      return text(new Date().toLocaleString('sv-SE', { timeZone }).replace(' ', 'T') + ` (${timeZone})`);
    } catch {
      return text(`unknown time zone: ${timeZone}`, undefined, true);
    }
  },
  read_file: (a, ws) => {
    const file = inWorkspace(ws, a.path);
    if (!file) return text('the path must stay inside the workspace', undefined, true);
    try {
      if (!realpathSync(file).startsWith(realpathSync(ws) + sep)) return text('the path must stay inside the workspace', undefined, true);
      const max = typeof a.maxBytes === 'number' ? a.maxBytes : 65536;
      if (statSync(file).size > max) return text(`the file is larger than ${max} bytes`, undefined, true);
      return text(readFileSync(file, 'utf8'));
    } catch {
      return text(`no such file: ${String(a.path)}`, undefined, true);
    }
  },
  write_file: (a, ws) => {
    const file = inWorkspace(ws, a.path);
    if (!file) return text('the path must stay inside the workspace', undefined, true);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, String(a.content));
    return text(`wrote ${Buffer.byteLength(String(a.content))} bytes to ${relative(ws, file)}`);
  },
  web_fetch: (a) => text(`${String(a.url)} is not on the demo's allow-list (it allows nothing): the demo makes no network calls.`, undefined, true),
  send_email: (a, ws) => {
    appendFileSync(join(ws, 'outbox.jsonl'), `${JSON.stringify({ to: a.to, subject: a.subject, body: a.body, at: new Date().toISOString() })}\n`);
    return text(`queued in the demo outbox (${join(ws, 'outbox.jsonl')}); nothing was sent`);
  },
  run_shell: (a) => text(`demo stand-in: would run ${JSON.stringify(String(a.command))} in the sandbox; nothing was run.`),
};

/** Starts the endpoint on 127.0.0.1 with a fresh secret and workspace. */
export async function startDemoImplementations(): Promise<DemoImplementations> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolcat-demo-workspace-')));
  writeFileSync(join(workspace, 'README.txt'), 'This is the toolcat demo workspace. read_file and write_file work inside it.\n');
  const secret = randomBytes(32).toString('base64url');
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const answer = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (req.method !== 'POST' || size > 1024 * 1024) return answer(400, { error: 'POST a call of at most 1 MiB' });
      // Nothing runs unless toolcat signed the request (a stale or forged one is refused).
      const problem = signatureProblem(secret, header(req.headers[SIGNATURE_HEADERS.timestamp.toLowerCase()]), body, header(req.headers[SIGNATURE_HEADERS.signature.toLowerCase()]));
      if (problem) return answer(401, { error: `signature ${problem}` });
      let call: { name?: unknown; arguments?: unknown };
      try {
        call = JSON.parse(body.toString('utf8')) as typeof call;
      } catch {
        return answer(400, { error: 'not JSON' });
      }
      const handler = typeof call.name === 'string' && Object.hasOwn(HANDLERS, call.name) ? HANDLERS[call.name] : null;
      if (!handler) return answer(404, { error: `no demo implementation for ${String(call.name)}` });
      answer(200, handler((call.arguments ?? {}) as Record<string, unknown>, workspace));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/calls`;
  return {
    url,
    secret,
    workspace,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => {
          rmSync(workspace, { recursive: true, force: true });
          r();
        });
        server.closeAllConnections();
      }),
  };
}

function header(v: string | string[] | undefined): string | null {
  return typeof v === 'string' ? v : null;
}
