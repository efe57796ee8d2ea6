import { randomUUID } from 'node:crypto';
import type { IngestBounds } from '../catalog/ingest-bounds';
import { redactCredentials } from '../catalog/credentials';
import { redactText } from '../catalog/credential-redaction';
import type { Logger } from '../shared/logger';
import type { IngestPool } from './ingest-pool';
import { type ExaminedTool, keyOf, rawHashOf, rawTextOf } from './snapshot';
import { decisionFor, rowBytes, rowIsCurrent, servedEntity, toolRowOf } from './snapshot-plan';
import type { ChangeRow, DecisionStamp, SourceState, ToolRow, ToolStamp, UpstreamRow, UpstreamStamp } from './snapshot-sql';
import type { SnapshotStore } from './snapshot-store';
import { change } from './snapshot-change';

export interface SnapshotOutcome {
  readonly added: number;
  readonly changed: number;
  readonly removed: number;
  readonly quarantined: number;
  readonly served: number;
}

/** A published snapshot, and whether it changed what is served (then the catalog version was bumped). */
export interface Committed {
  readonly outcome: SnapshotOutcome;
  readonly servedChanged: boolean;
}

export interface SessionDeps {
  readonly store: SnapshotStore;
  readonly pool: IngestPool;
  readonly log: Logger;
  readonly bounds?: IngestBounds;
}

/** Listing text per pool task (a chunk); a heavy tool is ~22 KB, so ~12 of them. */
const CHUNK_BYTES = 256 * 1024;
/** Staged bytes per staging transaction. */
const STAGE_BYTES = 1024 * 1024;

/** What the plan keeps per listed name until the swap: small fields only, never the definition. */
interface KeyPlan {
  readonly key: string;
  readonly name: string;
  readonly toolId: string | null;
  readonly definitionHash: string;
  readonly rawHash: string;
  readonly oldHash: string | null;
  quarantineReason: string | null;
  kind: 'unchanged' | 'added' | 'changed' | 'quarantined';
  /** The upstream row was staged (it differs from the stored one). */
  stagedUpstream: boolean;
  tool: 'write' | 'keep' | 'none';
  /** Its history row, made when it is planned (redacting names costs; done a chunk at a time, not all at commit). */
  change: ChangeRow | null;
  copies: number;
  ambiguous: boolean;
}

/**
 * One staged snapshot of one source (issue 12 defect 1). Opened against the source's current state (projection_seq
 * first, then the stored stamps and decisions), fed the listing in any number of parts (each examined in the ingest
 * pool, planned against the stamps, staged in bounded batches), committed with one swap. Memory holds the plan's
 * small per-tool fields and a bounded window of listing text, never the whole listing twice.
 *
 * commit() answers `stale` when anything projected the source since open (a classification, an approval, a source
 * update, another replica's sync): nothing was published, and the caller applies the listing again from a fresh
 * state, so a decision made during the sync is never overwritten by one read before it (issue 12 defect 3).
 */
export class SnapshotSession {
  readonly syncId = randomUUID();
  private readonly plans = new Map<string, KeyPlan>();
  private readonly served = new Set<string>();
  private readonly backfill: Array<readonly [string, string]> = [];
  private upBuf: UpstreamRow[] = [];
  private toolBuf: ToolRow[] = [];
  private bufBytes = 0;
  private index = 0;
  private stagedAnything = false;
  private stagedUpstream = false;
  private stagedTools = false;
  private toolsWritten = 0;

  private constructor(
    private readonly deps: SessionDeps,
    readonly source: string,
    private readonly state: SourceState,
    private readonly existing: Map<string, UpstreamStamp>,
    private readonly rows: Map<string, ToolStamp>,
    private readonly decisions: Map<string, DecisionStamp>,
    private readonly now: string,
  ) {}

  static async open(deps: SessionDeps, source: string, now: string): Promise<SnapshotSession> {
    // The version first: whatever the reads below see is at least as new as it, so the swap's check is conservative.
    const state = await deps.store.sourceState(source);
    if (!state) throw new Error(`no source named ${source}`);
    const [up, rows, decisions] = [await deps.store.upstreamStamps(source), await deps.store.toolStamps(source), await deps.store.decisions(source)];
    return new SnapshotSession(deps, source, state, new Map(up.map((u) => [u.key, u])), new Map(rows.map((r) => [r.toolId, r])), decisions, now);
  }

  /** Adds listed tools (objects as received): their JSON texts are made a chunk at a time, when a pool slot is free. */
  async add(rawTools: readonly unknown[]): Promise<void> {
    await this.addTexts(rawTools.length, (i) => rawTextOf(rawTools[i]), (i) => (rawTools[i] as { name?: unknown } | null)?.name);
  }

  /**
   * Adds listed tools given as JSON texts (the stored listing, for a projection again). Resolves once every chunk of
   * them is submitted to the pool, not examined: the window of chunks in flight spans calls, so a listing fed page by
   * page keeps the gate threads busy across page boundaries (issue 12: draining at the end of every page left a
   * thread idle ~20% of a big sync). Examined chunks are planned in listing order; commit() plans the rest.
   */
  async addTexts(count: number, textAt: (i: number) => string, nameAt?: (i: number) => unknown): Promise<void> {
    const inflight = this.inflight;
    let i = 0;
    while (i < count) {
      if (inflight.length < this.deps.pool.window) {
        const start = i;
        const texts: string[] = [];
        let bytes = 0;
        let seen = 0;
        for (; i < count && bytes < CHUNK_BYTES && seen < CHUNK_BYTES; i++) {
          const t = textAt(i);
          seen += t.length;
          if (this.unchanged(t, nameAt ? nameAt(i) : nameOf(t))) continue;
          texts.push(t);
          bytes += t.length;
        }
        if (!texts.length) {
          await new Promise<void>((r) => setImmediate(r)); // a run of unchanged tools still lets requests in between
          continue;
        }
        const task = { source: this.source, tenantId: this.state.tenantId, firstIndex: this.index + start, texts, bounds: this.deps.bounds };
        // A small listing is examined inline: a thread round trip would cost more than the work. Only its first part:
        // a listing fed page by page may go on for thousands of small pages, each of which would stop the event loop.
        const running =
          this.index === 0 && start === 0 && i === count && bytes <= this.deps.pool.options.inlineBytes
            ? Promise.resolve({ texts, out: this.deps.pool.examineInline(task) })
            : (await this.deps.pool.submit(() => task)).done.then((out) => ({ texts, out }));
        running.catch(() => undefined); // awaited in order below; a failure must not surface as unhandled meanwhile
        inflight.push(running);
        continue;
      }
      await this.planNext();
    }
    this.index += count;
  }

  /** Chunks submitted to the pool and not planned yet, in listing order (at most the pool's window). */
  private readonly inflight: Array<Promise<{ texts: string[]; out: ExaminedTool[] }>> = [];

  private async planNext(): Promise<void> {
    const done = await this.inflight.shift()!;
    await this.plan(done.texts, done.out);
  }

  /** Plans every chunk still in flight (before a commit). */
  private async drain(): Promise<void> {
    while (this.inflight.length) await this.planNext();
  }

  /**
   * The fast path of an unchanged tool: listed with exactly the stored text, and its served row (or its absence, when
   * withheld) already what the current gate, decision and tenant make of it. The gate is a function of that text and
   * its version, so gating it again could only produce the stored row: it is planned as unchanged and kept without
   * being examined (a re-sync of an unchanged 5,000-tool listing costs a hash per tool, not the gate). Legacy rows
   * without a stored hash, quarantined ones and anything else go through the pool.
   */
  private unchanged(text: string, name: unknown): boolean {
    if (typeof name !== 'string') return false;
    const key = keyOf(this.source, name);
    const old = this.existing.get(key);
    if (!old || old.rawHash === null || old.quarantineReason !== null || !old.toolId) return false;
    const rawHash = rawHashOf(text);
    const seen = this.plans.get(key);
    if (seen) {
      seen.copies++;
      if (seen.rawHash !== rawHash) seen.ambiguous = true;
      return true;
    }
    if (old.rawHash !== rawHash) return false;
    const { served, decision } = decisionFor(this.decisions.get(old.toolId), old.definitionHash, this.state.driftPolicy);
    const row = this.rows.get(old.toolId);
    if (served && !(row && rowIsCurrent(row, old.definitionHash, this.state, decision, row.claims))) return false;
    this.plans.set(key, {
      key, name: old.name, toolId: old.toolId, definitionHash: old.definitionHash, rawHash, oldHash: old.definitionHash, quarantineReason: null, kind: 'unchanged',
      stagedUpstream: false, tool: served ? 'keep' : 'none', change: null, copies: 1, ambiguous: false,
    });
    if (served) this.served.add(old.toolId);
    return true;
  }

  /** Plans one examined chunk against the stored stamps and stages what changed. */
  private async plan(texts: readonly string[], examined: readonly ExaminedTool[]): Promise<void> {
    const legacy = examined.filter((t) => {
      const old = this.existing.get(t.key);
      return old && old.rawHash === null && !this.plans.has(t.key) && old.definitionHash === t.definitionHash && old.quarantineReason === t.quarantineReason;
    });
    const legacyRaw = legacy.length ? await this.deps.store.rawOf(legacy.map((t) => t.key)) : new Map<string, string>();
    for (let k = 0; k < examined.length; k++) {
      const t = examined[k];
      const text = texts[k];
      const seen = this.plans.get(t.key);
      if (seen) {
        // A name listed twice: identical copies collapse into one, different ones make every copy ambiguous (TC-DESC-2).
        seen.copies++;
        if (t.rawHash !== seen.rawHash) seen.ambiguous = true;
        continue;
      }
      const old = this.existing.get(t.key);
      const sameDefinition = old !== undefined && old.definitionHash === t.definitionHash && old.quarantineReason === t.quarantineReason;
      const sameRaw = old !== undefined && (old.rawHash !== null ? old.rawHash === t.rawHash : legacyRaw.get(t.key) === text);
      const unchanged = sameDefinition && sameRaw;
      if (unchanged && old!.rawHash === null) this.backfill.push([t.key, t.rawHash]);
      const p: KeyPlan = {
        key: t.key, name: t.name, toolId: t.toolId, definitionHash: t.definitionHash, rawHash: t.rawHash, oldHash: old?.definitionHash ?? null,
        quarantineReason: t.quarantineReason, kind: unchanged ? 'unchanged' : t.quarantineReason ? 'quarantined' : old ? 'changed' : 'added',
        stagedUpstream: !unchanged, tool: 'none', change: null, copies: 1, ambiguous: false,
      };
      p.change = this.changeOf(p);
      this.plans.set(t.key, p);
      if (!unchanged) {
        this.logExamined(t);
        this.push({
          key: t.key, source_name: this.source, name: t.name, tool_id: t.toolId, raw: text, definition_hash: t.definitionHash, quarantine_reason: t.quarantineReason,
          first_seen_at: old?.firstSeenAt ?? this.now, last_seen_at: this.now, raw_hash: t.rawHash,
        }, null);
      }
      if (!t.gated || !t.toolId || t.quarantineReason) continue;
      const { served, decision } = decisionFor(this.decisions.get(t.toolId), t.definitionHash, this.state.driftPolicy);
      if (!served) continue;
      this.served.add(t.toolId);
      const row = this.rows.get(t.toolId);
      if (row && rowIsCurrent(row, t.definitionHash, this.state, decision, t.gated.unclassified.claimsText)) {
        p.tool = 'keep';
        continue;
      }
      const { entity, differs } = servedEntity(t.gated, decision, t.definitionHash, this.now, row);
      p.tool = differs ? 'write' : 'keep';
      if (differs) this.push(null, toolRowOf(entity));
    }
    await this.flush(false);
  }

  private push(up: UpstreamRow | null, tool: ToolRow | null): void {
    if (up) {
      this.upBuf.push(up);
      this.bufBytes += rowBytes(up);
    }
    if (tool) {
      this.toolBuf.push(tool);
      this.bufBytes += rowBytes(tool);
    }
  }

  private async flush(force: boolean): Promise<void> {
    if (!force && this.bufBytes < STAGE_BYTES) return;
    if (!this.upBuf.length && !this.toolBuf.length) return;
    const [up, tools] = [this.upBuf, this.toolBuf];
    this.upBuf = [];
    this.toolBuf = [];
    this.bufBytes = 0;
    this.stagedAnything = true;
    if (up.length) this.stagedUpstream = true;
    if (tools.length) this.stagedTools = true;
    this.toolsWritten += tools.length;
    await this.deps.store.stage(this.syncId, this.now, up, tools);
  }

  /**
   * Publishes the plan with one swap, or answers `stale` (nothing published) when the source was projected since open.
   * `published` runs as soon as a swap that changed served rows has committed, before the staging rows are discarded
   * (a round trip to the writer thread or the database): the cache generation must move before anything else is
   * served from the old catalog.
   */
  async commit(published?: (version: number | undefined) => void): Promise<Committed | 'stale'> {
    await this.drain();
    await this.resolveAmbiguous();
    await this.flush(true);
    const changes: ChangeRow[] = [];
    let added = 0;
    let changed = 0;
    let quarantined = 0;
    for (const p of this.plans.values()) {
      if (p.quarantineReason) quarantined++;
      if (p.kind === 'added') added++;
      if (p.kind === 'changed') changed++;
      if (p.change) changes.push(p.change);
    }
    const removedKeys: string[] = [];
    for (const old of this.existing.values()) {
      if (this.plans.has(old.key)) continue;
      removedKeys.push(old.key);
      changes.push(rowOf(change(this.source, old.name, old.toolId, 'removed', old.definitionHash, null, null, this.now)));
      if (removedKeys.length % 200 === 0) await new Promise<void>((r) => setImmediate(r)); // a source emptied of 5,000 tools
    }
    const unserved = [...this.rows.keys()].filter((id) => !this.served.has(id));
    const servedChanged = this.toolsWritten > 0 || unserved.length > 0;
    const outcome = (served: number): SnapshotOutcome => ({ added, changed, removed: removedKeys.length, quarantined, served });
    // Nothing to publish (an unchanged re-sync, say one of a list_changed storm): no swap, no write lock, no new
    // catalog version. The state it would have confirmed is the one planned against, which nothing can make wrong.
    if (!servedChanged && !this.stagedAnything && !removedKeys.length && !changes.length && !this.backfill.length && quarantined === this.state.quarantinedCount && this.served.size === this.state.toolCount) {
      return { outcome: outcome(this.served.size), servedChanged: false };
    }
    try {
      const r = await this.deps.store.swap({
        syncId: this.syncId, source: this.source, seq: this.state.seq, removedKeys, unservedToolIds: unserved, rawHashBackfill: this.backfill, changes, quarantined,
        servedChanged, stagedUpstream: this.stagedUpstream, stagedTools: this.stagedTools,
      });
      if (r.outcome === 'stale') return 'stale';
      if (servedChanged) {
        try {
          published?.(r.version);
        } catch (err) {
          this.deps.log.error({ err, source: this.source }, 'a published snapshot could not advance the cache generation');
        }
      }
      return { outcome: outcome(r.served), servedChanged };
    } finally {
      await this.discard();
    }
  }

  async discard(): Promise<void> {
    // Chunks still being examined are awaited (their pool slots come back) and dropped, never planned or staged.
    await Promise.allSettled(this.inflight.splice(0));
    if (this.stagedAnything) await this.deps.store.discard(this.syncId);
  }

  /** Every copy of a name listed with different definitions is quarantined, whatever the order (TC-DESC-2). */
  private async resolveAmbiguous(): Promise<void> {
    const ambiguous = [...this.plans.values()].filter((p) => p.ambiguous);
    if (!ambiguous.length) return;
    await this.flush(true);
    // The first copy is what is kept (as before): staged already when it differed from the stored row, else stored.
    const stored = await this.deps.store.rawOf(ambiguous.filter((p) => !p.stagedUpstream).map((p) => p.key));
    const marks: Array<readonly [string, string]> = [];
    const drop: string[] = [];
    for (const p of ambiguous) {
      const quoted = JSON.stringify(redactCredentials(p.name).slice(0, 100));
      const reason = `the server listed ${p.copies} different tools named ${quoted}`;
      p.quarantineReason = reason;
      if (p.toolId && this.served.delete(p.toolId) && p.tool === 'write') {
        drop.push(p.toolId);
        this.toolsWritten--;
      }
      p.tool = 'none';
      const old = this.existing.get(p.key);
      p.kind = old && old.quarantineReason === reason && old.definitionHash === p.definitionHash ? 'unchanged' : 'quarantined';
      p.change = this.changeOf(p);
      if (p.kind === 'unchanged') continue;
      if (p.stagedUpstream) {
        marks.push([p.key, reason]);
        continue;
      }
      this.push({
        key: p.key, source_name: this.source, name: p.name, tool_id: p.toolId, raw: stored.get(p.key) ?? 'null', definition_hash: p.definitionHash, quarantine_reason: reason,
        first_seen_at: old?.firstSeenAt ?? this.now, last_seen_at: this.now, raw_hash: p.rawHash,
      }, null);
      p.stagedUpstream = true;
    }
    this.stagedAnything = true;
    await this.deps.store.quarantineStaged(this.syncId, marks, drop);
  }

  private changeOf(p: KeyPlan): ChangeRow | null {
    return p.kind === 'unchanged' ? null : rowOf(change(this.source, p.name, p.toolId, p.kind, p.oldHash, p.definitionHash, p.quarantineReason, this.now));
  }

  private logExamined(t: ExaminedTool): void {
    for (const f of t.findings) {
      // TC-DESC-4: logged with place and kind, never the value.
      this.deps.log.warn({ source: this.source, toolId: t.toolId, at: f.path, kinds: f.kinds, action: f.action }, 'credential material removed from tool definition');
    }
    // A name can itself be a token (that is one reason to quarantine): logged redacted, then cut (issue 11).
    if (t.quarantineReason) this.deps.log.warn({ source: this.source, tool: redactText(t.name).slice(0, 200), reason: t.quarantineReason }, 'tool quarantined');
  }
}

function rowOf(c: ReturnType<typeof change>): ChangeRow {
  return { id: c.id, seq: c.seq, source_name: c.sourceName, tool_name: c.toolName, tool_id: c.toolId, kind: c.kind, old_hash: c.oldHash, new_hash: c.newHash, detail: c.detail, at: c.at };
}

/** The name of a listed tool given as text (the stored listing), or undefined. */
function nameOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { name?: unknown } | null)?.name;
  } catch {
    return undefined;
  }
}
