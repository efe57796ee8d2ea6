/** Seconds in a row over the notification cap that make a source "flooding", and so throttled (issue 12). */
export const FLOOD_SECONDS = 3;

/**
 * The per-second notification budget of one source (issue 12, defect 4: a server sending ~50,000
 * notifications/tools/list_changed per second held toolcat at 100% CPU and every other tenant's reads at ~400 ms).
 *
 * Time is cut into one-second windows. In each, at most `maxPerSecond` notifications are admitted (parsed and
 * handled); the rest are dropped, and the stdio transport asks before it parses, so a dropped one costs a byte
 * scan. A source over the cap FLOOD_SECONDS windows in a row is reported as flooding (`onFlood`, once per window
 * while it goes on); the owner then throttles it (`throttleUntil`): nothing of it is admitted until then. Past
 * `readBudget` lines in a window the transport stops reading until the next window (`pauseMs`): the server's
 * writes then wait on its full pipe, which is the backpressure that bounds what a flood costs here.
 */
export class NotificationGate {
  /** Notifications seen since this gate was made (admitted + dropped). */
  received = 0;
  dropped = 0;
  private window = -1;
  private inWindow = 0;
  private streak = 0;
  private previous = 0;
  private until = 0;
  private readonly readBudget: number;

  constructor(
    private readonly opts: {
      readonly maxPerSecond: number;
      /** Called when the source is over the cap FLOOD_SECONDS windows in a row, with the previous (full) window's count. */
      readonly onFlood?: (perSecond: number) => void;
      readonly now?: () => number;
    },
  ) {
    this.readBudget = Math.max(10_000, opts.maxPerSecond * 100);
  }

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now();
  }

  /** One notification arrived: true when it may be processed, false when it is to be dropped unread. */
  admit(): boolean {
    const now = this.now();
    const w = Math.floor(now / 1000);
    if (w !== this.window) {
      const adjacentOver = w === this.window + 1 && this.inWindow > this.opts.maxPerSecond;
      if (!adjacentOver) this.streak = 0;
      this.previous = w === this.window + 1 ? this.inWindow : 0;
      this.window = w;
      this.inWindow = 0;
    }
    this.received++;
    this.inWindow++;
    if (this.inWindow === this.opts.maxPerSecond + 1) {
      this.streak++;
      if (this.streak >= FLOOD_SECONDS) this.opts.onFlood?.(this.previous);
    }
    if (now < this.until || this.inWindow > this.opts.maxPerSecond) {
      this.dropped++;
      return false;
    }
    return true;
  }

  /** Nothing of this source is admitted before `epochMs`. */
  throttleUntil(epochMs: number): void {
    this.until = Math.max(this.until, epochMs);
  }

  get throttledUntil(): number | null {
    return this.now() < this.until ? this.until : null;
  }

  /** > 0: so many lines were read in this window that reading should pause this long (until the next window). */
  pauseMs(): number {
    if (this.inWindow <= this.readBudget) return 0;
    const now = this.now();
    return Math.floor(now / 1000) === this.window ? (this.window + 1) * 1000 - now : 0;
  }
}
