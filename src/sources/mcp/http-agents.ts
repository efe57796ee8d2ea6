import http from 'node:http';
import https from 'node:https';

/**
 * The keep-alive agents every outgoing HTTP request of toolcat's upstream side uses (Streamable HTTP MCP sessions,
 * src/sources/mcp/http-client.transport.ts; host-extension endpoints through boundedFetch).
 *
 * Node's own defaults (its global agents'): kept-alive connections, the most recently used first; an idle one closes
 * after 5 s, or a second before the server's announced `Keep-Alive: timeout=`, so a request is rarely written to a
 * connection the server is closing (such a request fails; it is never sent again, as the server may have read it).
 * The timeout ends idle connections only: a response still streaming (a long SSE stream) is not cut. No Nagle delay:
 * a request goes out as written.
 */
const AGENT_OPTIONS = { keepAlive: true, scheduling: 'lifo', timeout: 5000, noDelay: true } as const;
const agents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };

/** The agent and request function for `url`'s scheme, or null for a scheme other than http and https. */
export function clientFor(url: URL): { readonly agent: http.Agent; readonly request: typeof http.request } | null {
  if (url.protocol === 'http:') return { agent: agents['http:'], request: http.request };
  if (url.protocol === 'https:') return { agent: agents['https:'], request: https.request };
  return null;
}
