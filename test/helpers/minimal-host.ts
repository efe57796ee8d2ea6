import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal, independent tool catalog v2 host for the consumer conformance tests (issue 17): written from the spec
 * alone, sharing no code with toolcat, and omitting everything optional. Its state is mutable between requests so
 * a property test can try many hosts on one port:
 *   GET /capabilities      { toolCatalog: { sources } } and nothing else (no hostVersion, compactView, sessionLifecycle)
 *   GET /tools             the descriptors as configured (no ETag, no Cache-Control), the standard view for any ?view=
 *   GET /tools/{toolId}    one, or 404 with an empty body (no error envelope)
 *   POST /tools/{id}/calls a result echoing the arguments; with Accept: text/event-stream as SSE, bracketed by
 *                          tool.session.opened/closed only when `sessionEvents` is on (TC-SESS-1 makes them optional),
 *                          or JSON anyway when `jsonOnly` is on
 */
export interface MinimalHostState {
  sources: string[];
  tools: Array<Record<string, unknown> & { toolId: string }>;
  sessionEvents: boolean;
  jsonOnly: boolean;
}

export interface MinimalHost {
  readonly url: string;
  readonly state: MinimalHostState;
  /** Every request it received (method and path), so tests can count attempts. */
  readonly requests: Array<{ method: string; path: string; headers: Record<string, string | string[] | undefined> }>;
  close(): Promise<void>;
}

export async function startMinimalHost(initial: Partial<MinimalHostState> = {}): Promise<MinimalHost> {
  const state: MinimalHostState = { sources: [], tools: [], sessionEvents: false, jsonOnly: false, ...initial };
  const requests: MinimalHost['requests'] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push({ method: req.method ?? '', path, headers: { ...req.headers } });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = (status: number, v: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (req.method === 'GET' && path === '/capabilities') return json(200, { toolCatalog: { sources: state.sources } });
      if (req.method === 'GET' && path === '/tools') return json(200, state.tools);
      const one = /^\/tools\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && one) {
        const t = state.tools.find((d) => d.toolId === decodeURIComponent(one[1]));
        return t ? json(200, t) : res.writeHead(404).end();
      }
      const call = /^\/tools\/([^/]+)\/calls$/.exec(path);
      if (req.method === 'POST' && call) {
        const toolId = decodeURIComponent(call[1]);
        if (!state.tools.some((d) => d.toolId === toolId)) return res.writeHead(404).end();
        const args = (JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { arguments?: unknown }).arguments ?? {};
        const callId = `call-${requests.length}`;
        const result = { callId, toolId, isError: false, content: [{ type: 'text', text: JSON.stringify(args) }] };
        if (state.jsonOnly || !/text\/event-stream/.test(String(req.headers.accept))) return json(200, result);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const at = '2026-01-01T00:00:00.000Z';
        if (state.sessionEvents) res.write(`event: tool.session.opened\ndata: ${JSON.stringify({ callId, at })}\n\n`);
        res.write(`event: tool.call.result\ndata: ${JSON.stringify(result)}\n\n`);
        if (state.sessionEvents) res.write(`event: tool.session.closed\ndata: ${JSON.stringify({ callId, at })}\n\n`);
        return res.end();
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
