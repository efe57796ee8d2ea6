import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { IngestBounds } from '../catalog/ingest-bounds';
import { McpSourceEntity } from '../persistence/mcp-source.entity';
import { ToolChangeEntity } from '../persistence/tool-change.entity';
import { UpstreamToolEntity } from '../persistence/upstream-tool.entity';
import type { Logger } from '../shared/logger';
import { nowIso } from '../shared/clock';
import { redactText } from '../catalog/credential-redaction';
import { buildSnapshot } from './snapshot';
import { type GatedListing, projectSource } from './source-projection';

export interface SnapshotOutcome {
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  readonly quarantined: number;
  readonly served: number;
}

// Orders changes written in the same millisecond (history is read ordered by `at`, then `seq`).
let changeSeq = 0;

/**
 * Applies one complete tool listing of a source, atomically: upstream tools as received, quarantine,
 * change history, and the served projection. A failed sync never calls this, so the last good snapshot
 * keeps serving. Nothing here can touch another source's rows.
 */
export class SourceSnapshotService {
  constructor(
    private readonly ds: DataSource,
    private readonly log: Logger,
    private readonly bounds?: IngestBounds,
  ) {}

  async apply(sourceName: string, rawTools: readonly unknown[]): Promise<SnapshotOutcome> {
    return this.ds.transaction(async (m) => {
      const src = await m.getRepository(McpSourceEntity).findOne({ where: { name: sourceName } });
      if (!src) throw new Error(`no source named ${sourceName}`);
      const snapshot = buildSnapshot(sourceName, src.tenantId, rawTools, this.bounds);
      const repo = m.getRepository(UpstreamToolEntity);
      const existing = new Map((await repo.find({ where: { sourceName } })).map((u) => [u.key, u]));
      const now = nowIso();
      let added = 0;
      let changed = 0;
      const changes: ToolChangeEntity[] = [];
      const writes: UpstreamToolEntity[] = [];
      for (const t of snapshot) {
        const old = existing.get(t.key);
        existing.delete(t.key);
        if (old && old.definitionHash === t.definitionHash && old.quarantineReason === t.quarantineReason && old.raw === t.rawText) continue;
        const kind = t.quarantineReason ? 'quarantined' : old ? 'changed' : 'added';
        if (kind === 'added') added++;
        if (kind === 'changed') changed++;
        changes.push(change(sourceName, t.name, t.toolId, kind, old?.definitionHash ?? null, t.definitionHash, t.quarantineReason, now));
        for (const f of t.findings) {
          // TC-DESC-4: logged with place and kind, never the value.
          this.log.warn({ source: sourceName, toolId: t.toolId, at: f.path, kinds: f.kinds, action: f.action }, 'credential material removed from tool definition');
        }
        // A name can itself be a token (that is one reason to quarantine): logged redacted, then cut (issue 11).
        if (t.quarantineReason) this.log.warn({ source: sourceName, tool: redactText(t.name).slice(0, 200), reason: t.quarantineReason }, 'tool quarantined');
        writes.push(
          repo.create({
            key: t.key, sourceName, name: t.name, toolId: t.toolId, raw: t.rawText, definitionHash: t.definitionHash,
            quarantineReason: t.quarantineReason, firstSeenAt: old?.firstSeenAt ?? now, lastSeenAt: now,
          }),
        );
      }
      for (let i = 0; i < writes.length; i += 200) await repo.save(writes.slice(i, i + 200));
      const removed = [...existing.values()];
      for (const r of removed) {
        await repo.delete({ key: r.key });
        changes.push(change(sourceName, r.name, r.toolId, 'removed', r.definitionHash, null, null, now));
      }
      for (let i = 0; i < changes.length; i += 200) await m.getRepository(ToolChangeEntity).save(changes.slice(i, i + 200));
      const gatedNow = new Map<string, GatedListing>();
      for (const t of snapshot) if (t.gated && t.toolId) gatedNow.set(t.toolId, { rawText: t.rawText, gated: t.gated });
      const { served } = await projectSource(m, sourceName, gatedNow);
      const quarantined = snapshot.filter((t) => t.quarantineReason).length;
      await m.getRepository(McpSourceEntity).update({ name: sourceName }, { quarantinedCount: quarantined });
      return { added, changed, removed: removed.length, quarantined, served };
    });
  }
}

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
