import type { IncomingHttpHeaders } from 'node:http';

/**
 * The DNS-rebinding guard of the MCP Streamable HTTP transport ("Servers MUST validate the Origin header on all
 * incoming connections to prevent DNS rebinding attacks", spec 2025-11-25, Transports, Security Warning), applied to
 * /mcp and /catalog/events (issue 15 item 5). A page on evil.example whose name was re-pointed at 127.0.0.1 sends
 * `Host: evil.example`: refused by the Host allow-list. A page calling across origins sends its own Origin: refused
 * unless the operator allowed it. Clients that are not browsers send no Origin and pass that half.
 */
export interface OriginPolicy {
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
}

export type GuardRefusal = 'host' | 'origin' | null;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function checkOrigin(policy: OriginPolicy, headers: IncomingHttpHeaders): GuardRefusal {
  const host = hostnameOf(headers.host);
  if (!policy.allowedHosts.includes('*') && (host === null || !policy.allowedHosts.includes(host))) return 'host';
  const origin = headers.origin;
  if (origin === undefined) return null;
  if (policy.allowedOrigins.includes('*')) return null;
  const o = origin.toLowerCase();
  if (policy.allowedOrigins.includes(o)) return null;
  const originHost = originHostname(o);
  return originHost !== null && LOOPBACK.has(originHost) ? null : 'origin';
}

/** `Host: Name:8080` → `name`; `[::1]:80` → `[::1]`; anything malformed → null. */
export function hostnameOf(raw: string | undefined): string | null {
  if (!raw) return null;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(raw.trim());
  return m ? m[1].toLowerCase() : null;
}

function originHostname(origin: string): string | null {
  const m = /^https?:\/\/([^/]+)$/.exec(origin);
  return m ? hostnameOf(m[1]) : null;
}
