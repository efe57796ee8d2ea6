import { mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { SIGNATURE_HEADERS, signatureProblem } from '../invocation/signature';

/**
 * The demo's host-extension implementations (issue 14: "the demo ships working implementations of its extensions so
 * a newcomer's first call works"). One HTTP endpoint on loopback, called by toolcat exactly as an operator's own
 * endpoint would be: a signed POST per call (docs/extensions.md), verified here before anything runs. Everything stays
 * confined: files live in a temporary workspace per tenant (the caller the signed request names), removed on exit,
 * the shell tool is a stand-in that runs nothing, e-mail goes to the tenant's outbox file, and web_fetch reaches
 * nothing (the demo's allow-list is empty). No answer names a host path.
 */
export interface DemoImplementations {
  readonly url: string;
  readonly secret: string;
  /** The folder holding every tenant's workspace (one subfolder each). */
  readonly workspace: string;
  close(): Promise<void>;
}

type Result = { content: Array<{ type: 'text'; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };
type Handler = (args: Record<string, unknown>, workspace: string) => Result;

const OUTBOX = 'outbox.jsonl';
const README = 'This is the toolcat demo workspace. read_file and write_file work inside it.\n';

const text = (t: string, structured?: Record<string, unknown>, isError = false): Result => ({ content: [{ type: 'text', text: t }], ...(structured ? { structuredContent: structured } : {}), ...(isError ? { isError } : {}) });

/** A path inside the workspace, or null for anything that would leave it (`..`, absolute paths, symlinks out). */
function inWorkspace(workspace: string, path: unknown): string | null {
  if (typeof path !== 'string' || path === '' || path.includes('\u0000')) return null;
  const target = resolve(workspace, path);
  const rel = relative(workspace, target);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).includes('..')) return null;
  return target;
}

/** A file-system error as its code only: its message names the absolute host path (red-team pass on issue 14). */
function fsCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z]{2,20}$/.test(code) ? code : 'failed';
}

/**
 * The tenant's own workspace under `root`, made on its first call (red-team pass on issue 14: one shared workspace let
 * any tenant read another's files and outbox). Named by a hash of the tenant id, never the id itself, so no id can
 * name a path (`..`, `/`, a NUL).
 */
function tenantWorkspace(root: string, tenantId: string): string {
  const dir = join(root, createHash('sha256').update(tenantId).digest('hex').slice(0, 32));
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'README.txt'), README);
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'EEXIST') throw err;
  }
  return dir;
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
    const content = String(a.content);
    // A write the file system refuses (a name too long, a directory, a path under a file) is the tool's error. Thrown,
    // it ended toolcat's own process, which runs this endpoint (red-team pass on issue 14, item 4).
    try {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    } catch (err) {
      return text(`cannot write ${relative(ws, file)}: ${fsCode(err)}`, undefined, true);
    }
    return text(`wrote ${Buffer.byteLength(content)} bytes to ${relative(ws, file)}`);
  },
  web_fetch: (a) => text(`${String(a.url)} is not on the demo's allow-list (it allows nothing): the demo makes no network calls.`, undefined, true),
  send_email: (a, ws) => {
    try {
      appendFileSync(join(ws, OUTBOX), `${JSON.stringify({ to: a.to, subject: a.subject, body: a.body, at: new Date().toISOString() })}\n`);
    } catch (err) {
      return text(`cannot queue in the demo outbox: ${fsCode(err)}`, undefined, true);
    }
    // The workspace-relative name only: the caller is not told where the host keeps it.
    return text(`queued in the demo outbox (${OUTBOX} in your workspace, readable with read_file); nothing was sent`);
  },
  run_shell: (a) => text(`demo stand-in: would run ${JSON.stringify(String(a.command))} in the sandbox; nothing was run.`),
};

/** Starts the endpoint on 127.0.0.1 with a fresh secret and workspace root. */
export async function startDemoImplementations(): Promise<DemoImplementations> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'toolcat-demo-workspace-')));
  const secret = randomBytes(32).toString('base64url');
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    const respond = (body: Buffer, answer: (status: number, value: unknown) => void) => {
      if (req.method !== 'POST' || size > 1024 * 1024) return answer(400, { error: 'POST a call of at most 1 MiB' });
      // Nothing runs unless toolcat signed the request (a stale or forged one is refused).
      const problem = signatureProblem(secret, header(req.headers[SIGNATURE_HEADERS.timestamp.toLowerCase()]), body, header(req.headers[SIGNATURE_HEADERS.signature.toLowerCase()]));
      if (problem) return answer(401, { error: `signature ${problem}` });
      let call: { name?: unknown; arguments?: unknown; caller?: { tenantId?: unknown } | null };
      try {
        call = JSON.parse(body.toString('utf8')) as typeof call;
      } catch {
        return answer(400, { error: 'not JSON' });
      }
      const handler = typeof call.name === 'string' && Object.hasOwn(HANDLERS, call.name) ? HANDLERS[call.name] : null;
      if (!handler) return answer(404, { error: 'no demo implementation of that tool' });
      // Whose workspace: the tenant toolcat names in the signed request (docs/extensions.md). Without one, nothing runs.
      const tenantId = call.caller?.tenantId;
      if (typeof tenantId !== 'string' || tenantId === '') return answer(400, { error: 'the call names no caller tenant' });
      answer(200, handler((call.arguments ?? {}) as Record<string, unknown>, tenantWorkspace(workspace, tenantId)));
    };
    req.on('end', () => {
      const answer = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      // This runs in toolcat's own process (serve --demo): a throw here would be uncaught and end the service, so
      // nothing a call sends may throw out of it (red-team pass on issue 14). What no handler expected is a 500.
      try {
        respond(Buffer.concat(chunks), answer);
      } catch {
        if (res.headersSent) res.destroy();
        else answer(500, { error: 'the demo implementation failed' });
      }
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
