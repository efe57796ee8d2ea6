import { FIELD_COUNT } from './fields';

/**
 * One owner's share of the index: the global tools (tenantId null) or one tenant's own tools. Partitioning by owner
 * is what keeps tenants apart in time as well as in scores: a query only ever reads the global partition and its
 * caller's tenant partition (a caller's visible set never holds another tenant's tools, tool.repository.ts), so
 * another tenant's tools are not filtered out at query time, they are never touched at all.
 *
 * Layout, sized for 100,000 tools: a tool is a dense slot; a term's postings are one Int32Array of
 * (slot, packed tfs) pairs in slot order, packed = 4 bits of capped term frequency per field. Field lengths are a
 * Uint32Array of slot * FIELD_COUNT. Removal tombstones the slot (its postings stay until compaction, and cost
 * nothing in scoring: a dead slot is in no visible set); compaction renumbers slots once dead postings pass a quarter
 * of all postings, so maintenance is amortised O(changed text) and never a rebuild per request.
 */
const DEAD = '';

export class Posting {
  /** [slot0, tf0, slot1, tf1, ...]; `n` pairs in use. */
  data: Int32Array = new Int32Array(4);
  n = 0;

  push(slot: number, packed: number): void {
    if (2 * this.n + 2 > this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[2 * this.n] = slot;
    this.data[2 * this.n + 1] = packed;
    this.n++;
  }

  /** Capacity bytes (what the typed array holds, used or not). */
  get bytes(): number {
    return this.data.byteLength;
  }
}

/** Slots touched by one query in one partition (to reset the accumulator and to rank); reused across queries. */
export class Touched {
  slots = new Int32Array(256);
  n = 0;
  push(slot: number): void {
    if (this.n === this.slots.length) {
      const next = new Int32Array(this.slots.length * 2);
      next.set(this.slots);
      this.slots = next;
    }
    this.slots[this.n++] = slot;
  }
}

export class Partition {
  /** toolId per slot, DEAD once removed. */
  ids: string[] = [];
  lens: Uint32Array = new Uint32Array(64 * FIELD_COUNT);
  readonly postings = new Map<string, Posting>();
  live = 0;
  /** Unique terms per slot, for dead-posting accounting. */
  termCounts: Uint32Array = new Uint32Array(64);
  totalPostings = 0;
  deadPostings = 0;
  /** Advances on every change that moves or adds a slot: a cached view of this partition is then stale. */
  epoch = 0;
  /** Scratch score per slot for one query (rank is synchronous: one query at a time per process). */
  acc: Float64Array = new Float64Array(0);

  constructor(readonly owner: string | null) {}

  /** Adds a tool; returns its slot. termTfs: term -> per-field capped tfs; lens: raw token count per field. */
  add(toolId: string, termTfs: ReadonlyMap<string, number>, lens: readonly number[]): number {
    const slot = this.ids.length;
    this.ids.push(toolId);
    if ((slot + 1) * FIELD_COUNT > this.lens.length) {
      const next = new Uint32Array(this.lens.length * 2);
      next.set(this.lens);
      this.lens = next;
      const tc = new Uint32Array(this.termCounts.length * 2);
      tc.set(this.termCounts);
      this.termCounts = tc;
    }
    for (let f = 0; f < FIELD_COUNT; f++) this.lens[slot * FIELD_COUNT + f] = Math.min(lens[f], 0xffffffff);
    for (const [term, packed] of termTfs) {
      let p = this.postings.get(term);
      if (!p) {
        p = new Posting();
        this.postings.set(term, p);
      }
      p.push(slot, packed);
    }
    this.termCounts[slot] = termTfs.size;
    this.totalPostings += termTfs.size;
    this.live++;
    this.epoch++;
    return slot;
  }

  remove(slot: number): void {
    if (this.ids[slot] === DEAD) return;
    this.ids[slot] = DEAD;
    this.live--;
    this.deadPostings += this.termCounts[slot];
    this.epoch++;
  }

  /** Dead postings past a quarter of all (and past a small floor, so tiny partitions are not churned). */
  needsCompaction(): boolean {
    return this.deadPostings > 1024 && this.deadPostings * 4 > this.totalPostings;
  }

  /** Renumbers live slots densely in their current order; returns old slot -> new slot (-1: dead). */
  compact(): Int32Array {
    const map = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    for (let s = 0; s < this.ids.length; s++) if (this.ids[s] !== DEAD) map[s] = ids.push(this.ids[s]) - 1;
    const lens = new Uint32Array(Math.max(64, ids.length) * FIELD_COUNT);
    const termCounts = new Uint32Array(Math.max(64, ids.length));
    for (let s = 0; s < this.ids.length; s++) {
      const t = map[s];
      if (t < 0) continue;
      lens.set(this.lens.subarray(s * FIELD_COUNT, (s + 1) * FIELD_COUNT), t * FIELD_COUNT);
      termCounts[t] = this.termCounts[s];
    }
    let total = 0;
    for (const [term, p] of this.postings) {
      let w = 0;
      for (let i = 0; i < p.n; i++) {
        const t = map[p.data[2 * i]];
        if (t < 0) continue;
        p.data[2 * w] = t;
        p.data[2 * w + 1] = p.data[2 * i + 1];
        w++;
      }
      if (w === 0) {
        this.postings.delete(term);
        continue;
      }
      p.n = w;
      if (p.data.length > 8 * w) p.data = p.data.slice(0, 4 * w); // give back what a shrunken term no longer needs
      total += w;
    }
    this.ids = ids;
    this.lens = lens;
    this.termCounts = termCounts;
    this.totalPostings = total;
    this.deadPostings = 0;
    this.acc = new Float64Array(0);
    this.marks = new Uint32Array(0);
    this.epoch++;
    return map;
  }

  private touchedList = new Touched();
  private candidateList = new Touched();

  /** The reusable touched list, emptied. */
  touched(): Touched {
    this.touchedList.n = 0;
    return this.touchedList;
  }

  /** The reusable candidate list (slots still able to reach the top k once pruning began), emptied. */
  candidates(): Touched {
    this.candidateList.n = 0;
    return this.candidateList;
  }

  private marks = new Uint32Array(0);

  /**
   * Two reusable bitsets over the slots, zeroed: `seen` (slots some query term matched) and `cand` (slots scored
   * before pruning began: the only ones pruned terms still add to). 2 bits a slot: they fit the L1 cache where the
   * accumulator (64 bits a slot) does not, which is what the pruned phase of a long query reads per posting.
   */
  bitsets(): { seen: Uint32Array; cand: Uint32Array } {
    const words = (this.ids.length + 31) >>> 5;
    if (this.marks.length < 2 * words) this.marks = new Uint32Array(Math.max(64, (words * 2.5) | 0));
    else this.marks.fill(0, 0, 2 * words);
    return { seen: this.marks.subarray(0, words), cand: this.marks.subarray(words, 2 * words) };
  }

  accumulator(): Float64Array {
    if (this.acc.length < this.ids.length) this.acc = new Float64Array(Math.max(64, this.ids.length * 1.25) | 0);
    return this.acc;
  }

  bytes(): number {
    let b = this.lens.byteLength + this.termCounts.byteLength + this.acc.byteLength + this.marks.byteLength + this.ids.length * 8;
    for (const [term, p] of this.postings) b += p.bytes + 2 * term.length + 96; // Map entry, object and array headers
    return b;
  }
}
