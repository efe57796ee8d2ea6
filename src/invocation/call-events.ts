import type { CallEvent } from './invocation.service';

/**
 * The events of one call, kept until the call is over so a reader that starts late still sees them all (opened …
 * closed), read by one consumer (the SSE writer). Bounded: a chatty upstream's progress notifications are coalesced
 * to the latest once more than MAX_PENDING wait unread (each is bounded too: its message is cut to 1,000
 * characters), and a caller that reads no events (a JSON answer) keeps no progress at all.
 */
const MAX_PENDING = 256;

export class CallEvents {
  private readonly pending: CallEvent[] = [];
  private closed = false;
  private wake: (() => void) | null = null;
  private cancelled = false;
  private readonly cancelHooks: Array<() => void> = [];
  private progressWanted = true;

  constructor(readonly callId: string) {}

  /** The caller reads only the end (a JSON answer): progress is not kept. */
  discardProgress(): void {
    this.progressWanted = false;
    for (let i = this.pending.length - 1; i >= 0; i--) if (this.pending[i].type === 'progress') this.pending.splice(i, 1);
  }

  push(e: CallEvent): void {
    if (this.closed) return;
    if (e.type === 'progress' && !this.progressWanted) return;
    if (e.type === 'progress' && this.pending.length >= MAX_PENDING) {
      const last = this.pending.findLastIndex((x) => x.type === 'progress');
      if (last !== -1) this.pending.splice(last, 1);
    }
    this.pending.push(e);
    this.signal();
  }

  close(last: CallEvent): void {
    if (this.closed) return;
    this.pending.push(last);
    this.closed = true;
    this.signal();
  }

  onCancel(fn: () => void): void {
    this.cancelHooks.push(fn);
  }

  cancel(): void {
    if (this.cancelled || this.closed) return;
    this.cancelled = true;
    for (const fn of this.cancelHooks) fn();
  }

  async *iterate(): AsyncIterableIterator<CallEvent> {
    for (;;) {
      while (this.pending.length) yield this.pending.shift()!;
      if (this.closed) return;
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  private signal(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}
