import { randomUUID } from 'node:crypto';
import type { Principal } from '../catalog/principal';
import type { TenancyService } from '../services/tenancy.service';

/** Per-request context, shared by the GraphQL endpoint and the REST facade (one place decides identity). */
export interface GraphQLContext {
  readonly principal: Principal | null;
  readonly requestId: string;
  /** Set when an Authorization header was present but not accepted (distinguishes "bad key" in logs only). */
  readonly credentialRejected: boolean;
}

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/;

export async function buildContext(
  tenancy: TenancyService,
  headers: { authorization?: string | string[] | undefined },
  requestId: string = randomUUID(),
): Promise<GraphQLContext> {
  const raw = headers.authorization;
  if (raw === undefined) return { principal: null, requestId, credentialRejected: false };
  const m = typeof raw === 'string' ? BEARER.exec(raw) : null;
  const principal = m ? await tenancy.authenticate(m[1]) : null;
  return { principal, requestId, credentialRejected: principal === null };
}
