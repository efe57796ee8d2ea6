import { readFileSync, readdirSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, relative, sep } from 'node:path';
import type { GraphQLIde } from '../config/graphql-settings';
import type { AdminOidcSettings } from '../config/security-config';
import { sendJson } from '../rest/http-status';
import { splitTarget } from '../shared/request-target';
import { errorBody } from '../shared/transport-answers';

/** Where `npm run build:admin` (vite, admin/vite.config.ts) writes the console: this file runs as dist/src/http/. */
export const ADMIN_BUILD_DIR = join(__dirname, '..', '..', 'admin');

/**
 * The page's rules (issue 20): scripts and styles from this origin only (no inline script, no eval), GraphQL to this
 * origin only, never framed. `style-src` stays 'self': the bundles set styles through the DOM (CSSOM), which CSP allows.
 */
export function adminCsp(oidc: AdminOidcSettings | null = null): string {
  // OIDC (authorization code + PKCE): the console POSTs the code to the IdP's token endpoint, and nowhere else.
  const connect = oidc ? `connect-src 'self' ${new URL(oidc.tokenEndpoint).origin}` : "connect-src 'self'";
  return CSP_PARTS.map((p) => (p === "connect-src 'self'" ? connect : p)).join('; ');
}

const CSP_PARTS = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
];

const SAFETY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.json': 'application/json',
  '.map': 'application/json',
};

interface StaticFile {
  readonly bytes: Buffer;
  readonly type: string;
  /** Fingerprinted assets never change under their name; pages are revalidated; the config is never stored. */
  readonly cacheControl: string;
}

/**
 * The admin console (`/admin`, a static single-page app over the public GraphQL API) and, when TOOLCAT_GRAPHQL_IDE
 * is graphiql, the bundled GraphiQL page a browser gets at `GET /graphql`. Every file is read once at start into a
 * map keyed by URL path, so nothing outside the build folder can be named by a request (no path is ever joined from
 * a URL). Answers false for every other request, which goes on to the rest of the listener.
 */
export function createAdminConsole(opts: { ide: GraphQLIde; oidc: AdminOidcSettings | null; dir?: string }): (req: IncomingMessage, res: ServerResponse) => boolean {
  const files = loadBuild(opts.dir ?? ADMIN_BUILD_DIR);
  // What the console needs to know before sign-in: whether and where OIDC sign-in goes (public client: no secret).
  const oidc = opts.oidc && { clientId: opts.oidc.clientId, authorizationEndpoint: opts.oidc.authorizationEndpoint, tokenEndpoint: opts.oidc.tokenEndpoint, scope: opts.oidc.scope };
  files.set('/admin/config.json', { bytes: Buffer.from(JSON.stringify({ oidc })), type: TYPES['.json']!, cacheControl: 'no-store' });
  const headers = { ...SAFETY_HEADERS, 'Content-Security-Policy': adminCsp(opts.oidc) };
  const send = (req: IncomingMessage, res: ServerResponse, file: StaticFile): true => sendFile(req, res, file, headers);
  const graphiql = opts.ide === 'graphiql' ? files.get('/admin/graphiql.html') : undefined;
  return (req, res) => {
    const { path, query } = splitTarget(req.url);
    if (graphiql && path === '/graphql' && isBrowserLanding(req, query)) return send(req, res, graphiql);
    if (path !== '/admin' && !path.startsWith('/admin/')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, errorBody('METHOD_NOT_ALLOWED', 'Only GET is allowed.'), { Allow: 'GET, HEAD' });
      return true;
    }
    if (path === '/admin') {
      // The console's relative asset URLs need the trailing slash.
      res.writeHead(308, { Location: '/admin/', ...headers }).end();
      return true;
    }
    if (!files.has('/admin/index.html')) {
      sendJson(res, 404, errorBody('NOT_FOUND', 'The admin console is not built: run `npm run build:admin`.'));
      return true;
    }
    const file = files.get(path === '/admin/' ? '/admin/index.html' : path);
    if (!file) {
      sendJson(res, 404, errorBody('NOT_FOUND', 'No such file.'));
      return true;
    }
    return send(req, res, file);
  };
}

/** A browser opening /graphql: a GET that prefers HTML and carries no operation (the same test Apollo's landing page uses). */
function isBrowserLanding(req: IncomingMessage, query: string | null): boolean {
  return req.method === 'GET' && !/(^|&)query=/.test(query ?? '') && /text\/html/.test(req.headers.accept ?? '');
}

function sendFile(req: IncomingMessage, res: ServerResponse, file: StaticFile, headers: Readonly<Record<string, string>>): true {
  res.writeHead(200, {
    ...headers,
    'Content-Type': file.type,
    'Content-Length': String(file.bytes.length),
    'Cache-Control': file.cacheControl,
  });
  res.end(req.method === 'HEAD' ? undefined : file.bytes);
  return true;
}

function loadBuild(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return files; // not built: /admin says so
  }
  for (const name of names) {
    const full = join(dir, name);
    const type = TYPES[extname(name)];
    if (!type || !statSync(full).isFile()) continue;
    const urlPath = `/admin/${relative(dir, full).split(sep).join('/')}`;
    files.set(urlPath, { bytes: readFileSync(full), type, cacheControl: urlPath.startsWith('/admin/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache' });
  }
  return files;
}
