/**
 * An ingest worker (issue 12 defect 1): examines a chunk of listed tools off the event loop, in a thread of the
 * bounded pool of ingest-pool.ts. This is the per-tool CPU of a sync (meta-validation, credential scan, compaction,
 * hashing, ~5-10 ms for a heavy tool), done by the same pure functions as before: snapshot.ts and the domain only.
 */
import type { IngestBounds } from '../catalog/ingest-bounds';
import { type ExaminedTool, examineText } from './snapshot';

export interface GateTask {
  readonly source: string;
  readonly tenantId: string | null;
  /** Position of texts[0] in the whole listing (names `#<index>` for entries that are not objects). */
  readonly firstIndex: number;
  readonly texts: readonly string[];
  readonly bounds?: IngestBounds;
}

export function gateChunk(t: GateTask): ExaminedTool[] {
  return t.texts.map((text, i) => examineText(t.source, t.tenantId, text, t.firstIndex + i, t.bounds));
}

