import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AuditEntity } from '../persistence/audit.entity';
import { nowIso } from '../shared/clock';
import { containsCredential } from '../catalog/credentials';
import { REDACTED, redactJson, redactText } from '../catalog/credential-redaction';
import { SYSTEM_ACTOR, currentAuditScope } from './audit-context';

export interface AuditChange {
  readonly targetType: string;
  readonly targetId: string;
  /** The tenant concerned; tenant admins can read the rows of their tenant. */
  readonly tenantId: string | null;
  /** Plain data only, secrets already left out by the caller (what still looks like a credential is redacted here). */
  readonly before?: unknown;
  readonly after?: unknown;
}

let seq = 0;

/**
 * Writes one audit row with the caller's transaction manager: the row commits or rolls back with the change
 * itself. The actor and request come from the audit scope of the operation (GraphQL mutation or CLI).
 *
 * Every row passes one redaction (issue 11, defect 3): callers leave secret values out, and whatever still
 * looks like a credential (a token an admin typed into a source's args, a sync error quoting one, a request id
 * or a name chosen like a token) is replaced by `[redacted]` before it is written.
 */
export async function writeAudit(m: EntityManager, change: AuditChange, fallbackAction = 'system'): Promise<void> {
  const scope = currentAuditScope();
  const actor = scope?.actor ?? SYSTEM_ACTOR;
  if (scope) scope.audited = true;
  await m.getRepository(AuditEntity).insert({
    id: randomUUID(),
    at: nowIso(),
    seq: ++seq,
    requestId: scope?.requestId && containsCredential(scope.requestId) ? REDACTED : (scope?.requestId ?? null),
    actorId: actor.id,
    actorName: redactText(actor.name).slice(0, 256),
    actorRole: actor.role,
    actorTenantId: actor.tenantId,
    action: scope?.action ?? fallbackAction,
    targetType: change.targetType,
    targetId: redactText(change.targetId),
    tenantId: change.tenantId,
    before: change.before === undefined ? null : JSON.stringify(redactJson(change.before).value),
    after: change.after === undefined ? null : JSON.stringify(redactJson(change.after).value),
  });
}
