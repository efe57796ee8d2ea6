/**
 * Large request bodies are parsed one at a time, in turns across parties (tenants), with a turn of the event loop
 * between two of them. JSON.parse of a body near the 1 MiB bound takes tens of milliseconds of main-thread time (a
 * 60,000-key object: ~40-70 ms), and it cannot be split or moved: the value is needed here. Sixteen such calls
 * arriving together held every other tenant's requests for over a second (red-team pass on issue 14, finding 2;
 * bench `--only=big-arguments`). Taking turns bounds what one request waits behind to about one large parse, and a
 * tenant sending many waits behind its own: the next turn goes to the party that has waited longest, each party's
 * bodies in the order they came. A body of at most `thresholdBytes` is parsed at once, as before.
 */
export class ParseTurns {
  private busy = false;
  /** Parties waiting, in the order their turn comes (a Map keeps insertion order), each with its bodies in order. */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(private readonly thresholdBytes: number) {}

  /** `parse()` now when `bytes` is small, else in `party`'s turn. */
  async run<T>(party: string, bytes: number, parse: () => T): Promise<T> {
    if (bytes <= this.thresholdBytes) return parse();
    await this.take(party);
    try {
      return parse();
    } finally {
      // The next large body after a turn of the loop: requests that arrived meanwhile are read and answered first.
      setImmediate(() => this.next(party));
    }
  }

  /** Bodies waiting for their turn (for tests and metrics). */
  get queued(): number {
    let n = 0;
    for (const q of this.waiting.values()) n += q.length;
    return n;
  }

  private take(party: string): Promise<void> {
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const q = this.waiting.get(party);
      if (q) q.push(resolve);
      else this.waiting.set(party, [resolve]);
    });
  }

  private next(justParsed: string): void {
    // The party whose body was just parsed goes behind every other party waiting.
    const own = this.waiting.get(justParsed);
    if (own && this.waiting.size > 1) {
      this.waiting.delete(justParsed);
      this.waiting.set(justParsed, own);
    }
    const first = this.waiting.entries().next();
    if (first.done) {
      this.busy = false;
      return;
    }
    const [party, q] = first.value;
    const resolve = q.shift()!;
    // The party goes to the back of the line with what it still has waiting.
    this.waiting.delete(party);
    if (q.length > 0) this.waiting.set(party, q);
    resolve();
  }
}
