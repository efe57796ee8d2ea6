import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { AuditEntity } from '../persistence/audit.entity';
import { nowIso } from '../shared/clock';
import { sha256Hex } from '../shared/sha256';
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

/** Characters of a target id kept as given; a longer one is cut and suffixed with a hash of the whole. */
const TARGET_ID_KEPT = 512;

/**
 * The target id as stored and as filtered on (one rule for both): an id is indexed with the time (auditLog's
 * `targetId` filter reads that index newest first), and a PostgreSQL index row holds at most ~2.7 KB, so an id typed
 * at any length (a mutation audits before it validates its argument) must not make the audited write fail. Ids
 * toolcat makes are far shorter and kept as they are.
 */
export function auditTargetId(id: string): string {
  const redacted = redactText(id);
  if (redacted.length <= TARGET_ID_KEPT) return redacted;
  return `${redacted.slice(0, TARGET_ID_KEPT - 64).replace(/[\uD800-\uDBFF]$/, '')}…sha256:${sha256Hex(redacted).slice(0, 32)}`;
}

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
    targetId: auditTargetId(change.targetId),
    tenantId: change.tenantId,
    before: change.before === undefined ? null : JSON.stringify(redactJson(change.before).value),
    after: change.after === undefined ? null : JSON.stringify(redactJson(change.after).value),
  });
}
