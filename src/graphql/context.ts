import { randomUUID } from 'node:crypto';
import { parseBearerHeader } from '../auth/bearer';
import type { Principal } from '../catalog/principal';

/** Per-request context, shared by the GraphQL endpoint and the REST facade (one place decides identity). */
export interface GraphQLContext {
  readonly principal: Principal | null;
  readonly requestId: string;
  /** Set when an Authorization header was present but not accepted (for the 401 challenge and logs only). */
  readonly credentialRejected: boolean;
  /**
   * Set by the REST facade only (issue 21): it can send a large list as a StreamedBody. Every other reader (/graphql,
   * the MCP face, previews) gets one buffered body.
   */
  readonly streamBodies?: boolean;
  /** Set by the call route: the request body's size in bytes, so at least the size of the call's arguments as JSON. */
  readonly bodyBytes?: number;
}

export type Authenticate = (credential: string) => Promise<Principal | null>;

/**
 * API keys and (when configured) OIDC JWTs go through one authenticator; every refusal is the same
 * `principal: null`, so the caller cannot learn which check failed.
 */
export async function buildContext(
  authenticate: Authenticate,
  headers: { authorization?: string | string[] | undefined },
  requestId: string = randomUUID(),
): Promise<GraphQLContext> {
  const raw = headers.authorization;
  if (raw === undefined) return { principal: null, requestId, credentialRejected: false };
  const credential = parseBearerHeader(raw);
  const principal = credential ? await authenticate(credential) : null;
  return { principal, requestId, credentialRejected: principal === null };
}
