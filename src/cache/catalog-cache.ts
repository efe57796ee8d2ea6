import { createHash } from 'node:crypto';
import { type Principal, decisionKey } from '../catalog/principal';
import { type ServedView, isCompactView, serializeView } from '../catalog/projection';
import { compareCodeUnits } from '../catalog/stable-compare';
import type { ToolRepository, VisibleStamp } from '../persistence/tool.repository';
import { LRUCache } from 'lru-cache';
import { CachedBody, StreamedBody } from './cached-body';
import { SegmentWriter } from './segment-writer';
import type { CatalogGeneration } from './catalog-generation';
import { type CatalogCacheLimits, DEFAULT_CACHE_LIMITS, DEFAULT_STREAM_LIST_MIN_TOOLS } from '../config/cache-settings';
import { sha256Bytes } from '../shared/sha256';

/**
 * The one read path of the catalog (issue 6; issue 11 defect 5): REST, GraphQL `tools`/`tool` and the admin
 * preview all read through here. Three bounded layers, all derived from the scoped query:
 *   visible sets   decision key -> the (toolId, rowHash) list for the current generation (one scoped query per
 *                  principal per catalog change; the SQL decides visibility, never this cache). The key is
 *                  decisionKey(principal): tenant, kind, id, role, groups (issue 11 defect 1).
 *   descriptors    (view, rowHash, toolId) -> exact bytes (the view as served: a provider profile, issue 16, is its
 *                  own view `compact:<profile>`, so every layer's key and every ETag differ per profile) and their SHA-256, made by the running code; a changed
 *                  row has a new stamp, unchanged rows are never re-serialised
 *   documents      (view, visible-set hash) -> list body and ETag, shared by every principal who sees the
 *                  same set (the common case: all agents of a tenant)
 * Sizes are bounded in bytes. The ETag is a hash of the exact bytes (a list's: of its descriptors' hashes in
 * order), so replicas with the same data and code answer the same ETag, and a serializer change simply makes
 * new bytes with a new ETag: nothing stored is derived from the serializer.
 */
export interface CachedDocument {
  readonly body: CachedBody;
  readonly etag: string;
}

/** A list document that may be streamed (issue 21): see CatalogCache.list. */
export interface ListDocument {
  readonly body: CachedBody | StreamedBody;
  readonly etag: string;
}

/** A streamed list's ETag and length, computed once per (view, visible set): the same as its buffered document's. */
interface StreamedList {
  readonly etag: string;
  readonly length: number;
}

/**
 * A streamed list's bytes, kept in the document layer (charged the list's length, as a buffered document is) when
 * they fit: a warm read then writes its segments as they are, instead of looking up every descriptor again (~1.5 µs
 * each: at 100,000 tools, 150 ms of CPU per read). The bytes are held once: while the entry is kept, the descriptor
 * layer's entries of its tools point into its segments (and its digests), not at copies of their own (issue 21: at
 * 100,000 tools, 100,000 small Buffers and digests cost ~90 MB more resident than the same bytes in segments). When
 * the entry leaves the layer, the descriptors still pointing into it get their own copies again (releaseSegments), so
 * nothing the descriptor layer holds keeps a segment alive uncharged.
 */
interface StreamedSegments {
  /** `[`, the descriptors joined by commas, `]` (or the compact view's envelope), ~STREAM_CHUNK_BYTES each. */
  readonly segments: readonly Buffer[];
  /** The list's descriptors, in order: the ones whose bytes may point into `segments`. */
  readonly members: readonly Descriptor[];
  /** members[i].digest's home while it points here: 32 bytes at i * 32. */
  readonly digests: Buffer;
}

/**
 * A principal's visible set, kept compact because a whole-catalog grant makes it as long as the catalog:
 * sorted ids plus the raw 32-byte row stamps (hex strings and per-tool objects cost ~3x the heap).
 */
export interface VisibleSet {
  readonly generation: string;
  readonly key: string;
  /** toolIds in code-unit order (TC-CAT-7). */
  readonly ids: readonly string[];
  /** rowHash of ids[i] (SHA-256) as raw bytes at i * 32. */
  readonly hashes: Buffer;
}

type Stamp = VisibleStamp;

/**
 * One descriptor's exact bytes and their SHA-256 (the ETag of GET /tools/{toolId}, a leaf of the list's), as offsets
 * into the buffers that hold them: its own (`Buffer.from` of the serialized view, the digest) or, while a kept
 * streamed list holds them, that list's segments and digests (StreamedSegments). Offsets instead of a Buffer view of
 * each: at 100,000 tools two views a descriptor were ~18 MB of heap (issue 21; measured on Node 20, 100,000 entries:
 * 422 bytes of heap an entry with views and the old view|rowHash|toolId key, 245 with offsets, 66 with offsets and a
 * flat 33-character key; descriptorKey's keys are ~75 characters).
 * Mutable only in where the same bytes live (repoint, ownCopy).
 */
class Descriptor {
  constructor(
    private home: Buffer,
    private start: number,
    readonly length: number,
    private digestHome: Buffer,
    private digestAt: number,
  ) {}

  static own(bytes: Buffer, digest: Buffer): Descriptor {
    return new Descriptor(bytes, 0, bytes.length, digest, 0);
  }

  get bytes(): Buffer {
    return this.start === 0 && this.length === this.home.length ? this.home : this.home.subarray(this.start, this.start + this.length);
  }

  get digest(): Buffer {
    return this.digestAt === 0 && this.digestHome.length === HASH_BYTES ? this.digestHome : this.digestHome.subarray(this.digestAt, this.digestAt + HASH_BYTES);
  }

  /** The ArrayBuffers its bytes and digest live in (releaseSegments: does it point into a list's?). */
  get homes(): { readonly bytes: ArrayBufferLike; readonly digest: ArrayBufferLike } {
    return { bytes: this.home.buffer, digest: this.digestHome.buffer };
  }

  /** Points the bytes at `segment[start, start + length)` and the digest at `digests[at, at + 32)` (same content). */
  repoint(segment: Buffer, start: number, digests: Buffer, at: number): void {
    this.home = segment;
    this.start = start;
    this.digestHome = digests;
    this.digestAt = at;
  }

  /** Gives the bytes (or the digest) a copy of their own, so they no longer keep a list's segment alive. */
  ownCopy(which: 'bytes' | 'digest'): void {
    if (which === 'bytes') {
      this.home = Buffer.from(this.bytes);
      this.start = 0;
    } else {
      this.digestHome = Buffer.from(this.digest);
      this.digestAt = 0;
    }
  }
}

/**
 * The descriptor layer's key: the view and the row stamp. No toolId: the stamp is a SHA-256 over the stored row,
 * toolId included (rowHashOf, src/persistence/tool-record.mapper.ts), so it names one tool's row. Written through a
 * scratch Buffer so the key is one flat string: a template literal is a cons string that, once hashed, also keeps a
 * flattened copy and the 64-character stamp alive (~160 bytes a key, against ~96).
 */
const KEY_SCRATCH = Buffer.allocUnsafe(512);
function descriptorKey(view: ServedView, rowHash: string): string {
  // The view as UTF-8 read back as latin1: one character a byte, so distinct views stay distinct keys whatever their
  // characters; the stamp is hex.
  if (Buffer.byteLength(view) + rowHash.length + 1 > KEY_SCRATCH.length) return `${view}|${rowHash}`;
  const n = KEY_SCRATCH.write(view, 0, 'utf8');
  KEY_SCRATCH[n] = 0x7c; // '|'
  const m = KEY_SCRATCH.write(rowHash, n + 1, 'latin1');
  return KEY_SCRATCH.toString('latin1', 0, n + 1 + m);
}

/**
 * Bytes per tool of a visible set (id string, array slot, 32 hash bytes), rounded up: 86 measured on Node 20
 * (heapUsed + arrayBuffers after gc, 1,000 sets of 100 tools with flat ~35-character ids).
 */
const VISIBLE_BYTES_PER_TOOL = 128;
const HASH_BYTES = 32;
/**
 * What a descriptor-layer entry is charged beyond its bytes. It is less than what one with its own buffers holds
 * (measured on Node 20, 100,000 entries of 1,500 bytes: 552 bytes of heap and 170 of array-buffer slack each) and
 * more than one pointing into a kept list's segments holds (~160 bytes of heap: the bytes are the segments', charged
 * by the document layer). Kept as it was: raising it would shrink what a configured budget holds.
 */
const DESCRIPTOR_CHARGE_BYTES = 240;
/** Descriptors read per step of a streamed list: bounds what one reader holds (and loads from the database) at once. */
const STREAM_BATCH_TOOLS = 500;
/** A streamed list is written in chunks of about this many bytes (fewer, larger socket writes). */
const STREAM_CHUNK_BYTES = 256 * 1024;

export class CatalogCache {
  private readonly visible: LRUCache<string, VisibleSet>;
  private readonly descriptors: LRUCache<string, Descriptor>;
  private readonly documents: LRUCache<string, CachedDocument | StreamedSegments>;
  private readonly maxDocumentBytes: number;
  /** (view, visible-set key) -> ETag and length of a streamed list; tiny, content-addressed like the documents. */
  private readonly streamed = new LRUCache<string, StreamedList>({ max: 10_000 });
  private readonly streamFromTools: number;
  hits = 0;
  misses = 0;

  constructor(
    private readonly tools: ToolRepository,
    private readonly generation: CatalogGeneration,
    limits: CatalogCacheLimits = DEFAULT_CACHE_LIMITS,
    /** Lists of at least this many tools are streamed when the caller can take a StreamedBody (issue 21). */
    streamFromTools = DEFAULT_STREAM_LIST_MIN_TOOLS,
  ) {
    this.streamFromTools = Math.max(1, streamFromTools);
    // lru-cache bounds each layer by the bytes its entries are given (issue 13: the library, not a hand-rolled twin).
    // A bound of 0 (TOOLCAT_CACHE_MAX_BYTES=0) is one byte: nothing fits, the layer keeps nothing.
    const layer = <V extends {}>(maxBytes: number) => new LRUCache<string, V>({ maxSize: Math.max(1, maxBytes) });
    this.visible = layer(limits.maxVisibleSetBytes);
    this.descriptors = layer(limits.maxDescriptorBytes);
    this.maxDocumentBytes = Math.max(1, limits.maxDocumentBytes);
    this.documents = new LRUCache<string, CachedDocument | StreamedSegments>({
      maxSize: this.maxDocumentBytes,
      dispose: (v) => {
        if ('segments' in v) releaseSegments(v);
      },
    });
    generation.onChange(() => this.visible.clear()); // descriptors and documents are content-addressed: kept
  }

  /**
   * The caller's list in `view`. With `stream` (the REST facade) a list of at least `streamFromTools` tools is a
   * StreamedBody: never one Buffer of the whole list (at 100,000 tools ~160 MB, more than the document layer holds,
   * so it was rebuilt on every request), but the cached descriptors' bytes written in order while they are sent.
   * Its ETag and length are computed once per (view, visible set), by the same hash over the same digests as the
   * buffered document's, so both answers are the same bytes with the same ETag.
   */
  async list(p: Principal, view: ServedView, opts: { readonly stream?: boolean } = {}): Promise<ListDocument> {
    if (!opts.stream) return this.bufferedList(p, view);
    const set = await this.visibleSet(p);
    if (set.ids.length < this.streamFromTools) return this.bufferedList(p, view);
    return this.streamedList(p, set, view);
  }

  private async streamedList(p: Principal, set: VisibleSet, view: ServedView, attempt = 0): Promise<ListDocument> {
    const key = `${view}|${set.key}`;
    const partsKey = `s|${key}`;
    let known = this.streamed.get(key);
    if (!known) {
      this.misses++;
      const etag = listEtag(view);
      let length = listOpen(view).length + listClose(view).length + Math.max(0, set.ids.length - 1);
      // The segments are built only while the list can still fit the document layer: a list it would refuse is read
      // from the descriptor layer on every send (listChunks), and its descriptors keep their own bytes.
      let writer: SegmentWriter | null = new SegmentWriter(STREAM_CHUNK_BYTES);
      writer.append(listOpen(view));
      const members: Descriptor[] = [];
      const digests = Buffer.allocUnsafeSlow(set.ids.length * HASH_BYTES);
      // What the build re-pointed, handed back if the list is not kept after all (too large, or the catalog moved).
      const abandon = (): void => {
        if (writer) releaseSegments({ segments: writer.finish(), members, digests });
        writer = null;
        members.length = 0;
      };
      for (let from = 0; from < set.ids.length; from += STREAM_BATCH_TOOLS) {
        const batch = await this.descriptorBytes(stampsOf(set, from, from + STREAM_BATCH_TOOLS), view);
        if (!batch) {
          abandon();
          if (attempt >= 3) throw new Error('the catalog kept changing while a list was being built');
          this.generation.advance();
          return this.streamedList(p, await this.visibleSet(p), view, attempt + 1);
        }
        for (const d of batch) {
          etag.update(d.digest);
          length += d.length;
          if (!writer) continue;
          if (members.length) writer.append(COMMA);
          // Re-pointed batch by batch: the bytes just loaded from the database die young (a scavenge frees them), where
          // re-pointing at the end left 150 MB of them for a major GC (measured at 100,000 tools: array buffers 365 MB
          // at the end of the 10 readers, for a 150 MB list).
          const i = members.length;
          d.digest.copy(digests, i * HASH_BYTES);
          const start = writer.append(d.bytes);
          d.repoint(writer.segment, start, digests, i * HASH_BYTES);
          members.push(d);
        }
        if (writer && length + members.length * (8 + HASH_BYTES) > this.maxDocumentBytes) abandon();
      }
      known = { etag: listEtagText(view, etag), length };
      this.streamed.set(key, known);
      if (writer) {
        writer.append(listClose(view));
        this.documents.set(partsKey, { segments: writer.finish(), members, digests }, { size: length + members.length * (8 + HASH_BYTES) });
      }
    } else {
      this.hits++;
    }
    // The parts are looked up when the body is sent, never captured: a holder of the body (the decision memo) is
    // charged visibleSetBytes(set), which is all it keeps alive; parts the document layer refused or evicted are
    // read again from the descriptor layer, 500 at a time (review: captured parts lived on under-charged ~12x).
    const chunks = () => {
      const kept = (this.documents.get(partsKey) as StreamedSegments | undefined)?.segments;
      return kept ? segmentChunks(kept) : this.listChunks(set, view);
    };
    return { body: new StreamedBody(known.length, chunks, visibleSetBytes(set)), etag: known.etag };
  }

  /** A streamed list's bytes: `[`, descriptors joined by commas, `]` (or the compact view's envelope), in chunks. */
  private async *listChunks(set: VisibleSet, view: ServedView): AsyncGenerator<readonly Buffer[]> {
    let pending: Buffer[] = [listOpen(view)];
    let pendingBytes = pending[0].length;
    for (let from = 0; from < set.ids.length; from += STREAM_BATCH_TOOLS) {
      const parts = await this.descriptorBytes(stampsOf(set, from, from + STREAM_BATCH_TOOLS), view);
      // Headers (ETag, Content-Length) are out: a list that changed under us can only be cut, and the client's
      // Content-Length check sees it. Its next request reads the new generation.
      if (!parts) throw new Error('the catalog changed while a list was being streamed');
      parts.forEach((d, i) => {
        if (from + i > 0) pending.push(COMMA);
        pending.push(d.bytes);
        pendingBytes += d.bytes.length + (from + i > 0 ? 1 : 0);
      });
      if (pendingBytes >= STREAM_CHUNK_BYTES) {
        yield pending;
        pending = [];
        pendingBytes = 0;
      }
    }
    pending.push(listClose(view));
    yield pending;
  }

  private async bufferedList(p: Principal, view: ServedView, attempt = 0): Promise<CachedDocument> {
    const set = await this.visibleSet(p);
    const key = `${view}|${set.key}`;
    const hit = this.documents.get(key) as CachedDocument | undefined; // buffered documents' keys have no `s|`
    if (hit) {
      this.hits++;
      return hit;
    }
    this.misses++;
    const parts = await this.descriptorBytes(stampsOf(set), view);
    if (!parts) {
      // The catalog changed between the visible-set read and the byte load: start over on fresh data.
      if (attempt >= 3) throw new Error('the catalog kept changing while a list was being built');
      this.generation.advance();
      return this.bufferedList(p, view, attempt + 1);
    }
    const chunks: Buffer[] = [listOpen(view)];
    const etag = listEtag(view);
    parts.forEach((d, i) => {
      if (i) chunks.push(COMMA);
      chunks.push(d.bytes);
      etag.update(d.digest);
    });
    chunks.push(listClose(view));
    const doc = { body: new CachedBody(Buffer.concat(chunks)), etag: listEtagText(view, etag) };
    this.documents.set(key, doc, { size: doc.body.bytes.length });
    return doc;
  }

  /** null when the tool is not in the caller's visible set (unknown and not-yours alike). */
  async get(p: Principal, toolId: string, view: ServedView, attempt = 0): Promise<CachedDocument | null> {
    const set = await this.visibleSet(p);
    const rowHash = hashOf(set, toolId);
    if (rowHash === null) return null;
    const parts = await this.descriptorBytes([{ toolId, rowHash }], view);
    if (!parts) {
      if (attempt >= 3) throw new Error('the catalog kept changing while a tool was being read');
      this.generation.advance();
      return this.get(p, toolId, view, attempt + 1);
    }
    // A descriptor whose bytes live in a kept list's segment is copied out: a holder of the body (the decision memo) is
    // charged its length, and must not keep a 256 KB segment alive after the document layer let it go.
    const bytes = parts[0].bytes.buffer.byteLength > Math.max(8192, parts[0].bytes.length) ? Buffer.from(parts[0].bytes) : parts[0].bytes;
    return { body: new CachedBody(bytes), etag: `"${view[0]}${parts[0].digest.toString('base64url').slice(0, 40)}"` };
  }

  /**
   * The caller's visible set (issue 18): what search ranks, resolved exactly as list() resolves it. `key` is a hash
   * of its content (ids and row stamps), so equal keys mean equal sets on every replica.
   */
  visibleSetOf(p: Principal): Promise<VisibleSet> {
    return this.visibleSet(p);
  }

  /**
   * A list document of some of `set`'s tools in the given order (search results: relevance order, the documented
   * exception to toolId order). Same shape and descriptor bytes as list(); the ETag hashes `seed` (what else the
   * answer depends on: the query's terms and the limit) and the descriptors' digests in order. null when the catalog
   * moved under us (the caller starts over with a fresh set); ids not in the set are a caller bug.
   */
  async orderedDocument(set: VisibleSet, view: ServedView, ids: readonly string[], seed: string): Promise<CachedDocument | null> {
    const stamps = ids.map((toolId) => {
      const rowHash = hashOf(set, toolId);
      if (rowHash === null) throw new Error(`${toolId} is not in the visible set it was ranked from`);
      return { toolId, rowHash };
    });
    const parts = await this.descriptorBytes(stamps, view);
    if (!parts) return null;
    const chunks: Buffer[] = [Buffer.from(isCompactView(view) ? '{"tools":[' : '[')];
    const etag = createHash('sha256').update(view).update('\u0000').update(seed).update('\u0000');
    parts.forEach((d, i) => {
      chunks.push(i ? Buffer.concat([COMMA, d.bytes]) : d.bytes);
      etag.update(d.digest);
    });
    chunks.push(Buffer.from(isCompactView(view) ? ']}' : ']'));
    return { body: new CachedBody(Buffer.concat(chunks)), etag: `"q${view[0]}${etag.digest('base64url').slice(0, 40)}"` };
  }

  stats(): { documents: number; documentBytes: number; descriptors: number; descriptorBytes: number; visibleSets: number; streamedLists: number; hits: number; misses: number } {
    return {
      documents: this.documents.size, documentBytes: this.documents.calculatedSize, descriptors: this.descriptors.size, descriptorBytes: this.descriptors.calculatedSize,
      visibleSets: this.visible.size, streamedLists: this.streamed.size, hits: this.hits, misses: this.misses,
    };
  }

  private async visibleSet(p: Principal): Promise<VisibleSet> {
    const generation = this.generation.current;
    const key = decisionKey(p);
    const cached = this.visible.get(key);
    if (cached && cached.generation === generation) return cached;
    const stamps = (await this.tools.findVisibleStamps(p)).sort((a, b) => compareCodeUnits(a.toolId, b.toolId)); // TC-CAT-7
    const h = createHash('sha256');
    const hashes = Buffer.alloc(stamps.length * HASH_BYTES);
    stamps.forEach((s, i) => {
      h.update(s.toolId).update('\u0000').update(s.rowHash).update('\u0000');
      if (hashes.write(s.rowHash, i * HASH_BYTES, 'hex') !== HASH_BYTES) throw new Error(`row hash of ${s.toolId} is not SHA-256 hex`);
    });
    const set: VisibleSet = { generation, key: h.digest('base64url'), ids: stamps.map((s) => s.toolId), hashes };
    this.visible.set(key, set, { size: visibleSetBytes(set) });
    return set;
  }

  /**
   * Bytes per stamp, loading what is missing; null if the catalog moved under us (then nothing is cached). A
   * loaded row belongs to the stamp only if its stored rowHash is the stamp itself: stored compared with stored,
   * never with something the running code recomputes.
   */
  private async descriptorBytes(stamps: readonly Stamp[], view: ServedView): Promise<Descriptor[] | null> {
    const out: Array<Descriptor | undefined> = stamps.map((s) => this.descriptors.get(descriptorKey(view, s.rowHash)));
    const missing = stamps.filter((_, i) => !out[i]).map((s) => s.toolId);
    if (missing.length) {
      const loaded = new Map((await this.tools.findStampedByIds(missing)).map((r) => [r.record.toolId, r]));
      for (let i = 0; i < stamps.length; i++) {
        if (out[i]) continue;
        const found = loaded.get(stamps[i].toolId);
        if (!found || found.rowHash !== stamps[i].rowHash) return null;
        const bytes = Buffer.from(serializeView(found.record, view));
        const d = Descriptor.own(bytes, sha256Bytes(bytes));
        this.descriptors.set(descriptorKey(view, stamps[i].rowHash), d, { size: bytes.length + DESCRIPTOR_CHARGE_BYTES });
        out[i] = d;
      }
    }
    return out as Descriptor[];
  }
}

const COMMA = Buffer.from(',');
const STANDARD_OPEN = Buffer.from('[');
const STANDARD_CLOSE = Buffer.from(']');
const COMPACT_OPEN = Buffer.from('{"tools":[');
const COMPACT_CLOSE = Buffer.from(']}');
const listOpen = (view: ServedView): Buffer => (isCompactView(view) ? COMPACT_OPEN : STANDARD_OPEN);
const listClose = (view: ServedView): Buffer => (isCompactView(view) ? COMPACT_CLOSE : STANDARD_CLOSE);
/** A list's ETag: SHA-256 of the view and its descriptors' digests in order (buffered and streamed alike). */
const listEtag = (view: ServedView) => createHash('sha256').update(view);
const listEtagText = (view: ServedView, h: ReturnType<typeof createHash>): string => `"${view[0]}${h.digest('base64url').slice(0, 40)}"`;

/** A kept list's segments, one a group: each is one socket write. */
async function* segmentChunks(segments: readonly Buffer[]): AsyncGenerator<readonly Buffer[]> {
  for (const s of segments) yield [s];
}

/**
 * A kept list's entry left the document layer: every descriptor still pointing into its segments or digests gets its
 * own copy, so that the segments are freed (or held only by readers still sending them) and the descriptor layer's
 * charge stays what it holds. Descriptors a later list re-pointed into its own segments are left alone.
 */
function releaseSegments(v: StreamedSegments): void {
  const homes = new Set<ArrayBufferLike>(v.segments.map((s) => s.buffer));
  for (const d of v.members) {
    const at = d.homes;
    if (homes.has(at.bytes)) d.ownCopy('bytes');
    if (at.digest === v.digests.buffer) d.ownCopy('digest');
  }
}

const visibleSetBytes = (set: VisibleSet): number => 200 + set.key.length + set.ids.length * VISIBLE_BYTES_PER_TOOL;

function stampsOf(set: VisibleSet, from = 0, to = set.ids.length): Stamp[] {
  const out: Stamp[] = [];
  for (let i = from; i < Math.min(to, set.ids.length); i++) out.push({ toolId: set.ids[i], rowHash: set.hashes.toString('hex', i * HASH_BYTES, (i + 1) * HASH_BYTES) });
  return out;
}

/** The tool's row stamp when it is in the set (binary search over the sorted ids), else null. */
function hashOf(set: VisibleSet, toolId: string): string | null {
  let lo = 0;
  let hi = set.ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareCodeUnits(set.ids[mid], toolId);
    if (c === 0) return set.hashes.toString('hex', mid * HASH_BYTES, (mid + 1) * HASH_BYTES);
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return null;
}
