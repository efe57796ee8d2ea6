import { hostnameOf } from '../shared/origin-guard';

/** What RFC 9728 metadata names: this resource, and the authorization server(s) whose tokens it accepts. */
export interface ProtectedResource {
  /** TOOLCAT_PUBLIC_URL, or null to derive the base from the request's (already allowed) Host. */
  readonly publicUrl: string | null;
  /** The configured OIDC issuer (TOOLCAT_JWT_ISSUER); null when only API keys are accepted. */
  readonly issuer: string | null;
}

function baseUrl(r: ProtectedResource, host: string | undefined): string {
  if (r.publicUrl) return r.publicUrl;
  return `http://${hostnameOf(host) === null ? 'localhost' : host!.trim()}`;
}

/**
 * RFC 9728 section 2 (MCP authorization spec 2025-11-25: "MCP servers MUST implement OAuth 2.0 Protected Resource
 * Metadata"). `resource` is the MCP endpoint's URL; tokens must be issued for it (the JWT verifier checks `aud`
 * against TOOLCAT_JWT_AUDIENCE, and a token is never passed on upstream).
 */
export function protectedResourceMetadata(r: ProtectedResource, host: string | undefined): Record<string, unknown> {
  return {
    resource: `${baseUrl(r, host)}/mcp`,
    ...(r.issuer ? { authorization_servers: [r.issuer] } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'toolcat',
  };
}

/** Where a 401's `resource_metadata` points (RFC 9728 section 5.1): the path-suffixed well-known URL of /mcp. */
export function resourceMetadataUrl(r: ProtectedResource, host: string | undefined): string {
  return `${baseUrl(r, host)}/.well-known/oauth-protected-resource/mcp`;
}
