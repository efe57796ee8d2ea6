import { compareCodeUnits } from '../catalog/stable-compare';

export interface ScoredTool {
  readonly toolId: string;
  readonly score: number;
}

/** Result order: higher score first; equal scores by toolId in code-unit order (TC-CAT-7), so ties are stable. */
export function better(a: ScoredTool, b: ScoredTool): boolean {
  return a.score > b.score || (a.score === b.score && compareCodeUnits(a.toolId, b.toolId) < 0);
}

/**
 * The k best of a stream in O(n log k): a min-heap (the worst kept item on top) instead of sorting every match,
 * which at 100,000 matching tools would cost more than the scoring itself.
 */
export class TopK {
  private readonly heap: ScoredTool[] = [];
  constructor(private readonly k: number) {}

  offer(item: ScoredTool): void {
    const h = this.heap;
    if (h.length < this.k) {
      h.push(item);
      this.up(h.length - 1);
    } else if (this.k > 0 && better(item, h[0])) {
      h[0] = item;
      this.down(0);
    }
  }

  /** No score below this can enter (-Infinity until k items are held). */
  floor(): number {
    return this.heap.length < this.k ? -Infinity : this.heap[0].score;
  }

  /** Would `score` for `toolId` enter? Lets callers skip building an item that cannot. */
  admits(score: number, toolId: string): boolean {
    if (this.heap.length < this.k) return true;
    const worst = this.heap[0];
    return score > worst.score || (score === worst.score && compareCodeUnits(toolId, worst.toolId) < 0);
  }

  sorted(): ScoredTool[] {
    return [...this.heap].sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!better(h[parent], h[i])) break;
      [h[parent], h[i]] = [h[i], h[parent]];
      i = parent;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && better(h[worst], h[l])) worst = l;
      if (r < h.length && better(h[worst], h[r])) worst = r;
      if (worst === i) return;
      [h[worst], h[i]] = [h[i], h[worst]];
      i = worst;
    }
  }
}
