import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../catalog/principal';

/**
 * Who is changing what, carried through the async call chain of one admin operation, so services can write
 * the audit row inside their own transaction without every signature growing an actor parameter.
 */
export interface AuditScope {
  readonly action: string;
  readonly requestId: string | null;
  readonly actor: { readonly id: string; readonly name: string; readonly role: string; readonly tenantId: string | null };
  /** Set by writeAudit; the GraphQL middleware checks it after a mutation succeeded. */
  audited: boolean;
}

const storage = new AsyncLocalStorage<AuditScope>();

export function runAudited<T>(scope: Omit<AuditScope, 'audited'>, fn: () => Promise<T>): Promise<T> {
  return storage.run({ ...scope, audited: false }, fn);
}

export function currentAuditScope(): AuditScope | undefined {
  return storage.getStore();
}

export function actorOf(p: Principal | null): AuditScope['actor'] {
  return p ? { id: p.id, name: p.name, role: p.role, tenantId: p.tenantId } : { id: 'anonymous', name: 'anonymous', role: 'none', tenantId: null };
}

/** Operator actions outside GraphQL (CLI, config file, demo bootstrap). */
export const SYSTEM_ACTOR: AuditScope['actor'] = { id: 'system', name: 'operator (CLI or config)', role: 'operator', tenantId: null };
