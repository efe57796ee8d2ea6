import { randomUUID } from 'node:crypto';
import { redactText } from '../catalog/credential-redaction';
import { ToolChangeEntity } from '../persistence/tool-change.entity';

// Orders changes written in the same millisecond (history is read ordered by `at`, then `seq`).
let changeSeq = 0;

/**
 * One history row. The history is for people, so it holds names, ids and details redacted (issue 11): a tool
 * named like a token is recorded as `[redacted]` (its raw listing, for the explicit reveal, is in upstream_tool).
 */
export function change(
  sourceName: string, toolName: string, toolId: string | null, kind: string, oldHash: string | null, newHash: string | null, detail: string | null, at: string,
): ToolChangeEntity {
  return Object.assign(new ToolChangeEntity(), {
    id: randomUUID(), seq: ++changeSeq, sourceName, toolName: redactText(toolName).slice(0, 512), toolId: redactText(toolId)?.slice(0, 200) ?? null, kind, oldHash, newHash,
    detail: redactText(detail), at,
  });
}
