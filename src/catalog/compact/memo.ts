/**
 * Memoisation of compiled subtrees (design/compact-view.md §4.3 "Memoisation", T41): a subtree is
 * reused when its location, depth and raw object match AND every recursion decision made inside it
 * would be taken the same way, i.e. the counts of the consulted locations on the path ABOVE it match
 * (capped at maxRecursion). Reuse charges the subtree's node/byte cost to the budget, so budgets bound
 * the OUTPUT as before; only time is saved. Subtrees cut by the budget are never cached, and a reuse
 * that does not fit the remaining budget becomes one tail (deterministic either way).
 */
import type { Node } from './ir';

interface Entry {
  raw: object;
  deps: ReadonlyMap<string, number>;
  node: Node;
  nodes: number;
  bytes: number;
  truncations: number;
}

export interface Frame {
  loc: string;
  /** location -> its count on the path above this frame (capped), for every recursion check inside */
  deps: Map<string, number>;
  nodes0: number;
  bytes0: number;
  truncations0: number;
  budgetTails0: number;
}

export class SubtreeCache {
  private readonly entries = new Map<string, Entry[]>();

  lookup(key: string, raw: object, countAbove: (loc: string) => number): Entry | undefined {
    for (const e of this.entries.get(key) ?? []) {
      if (e.raw !== raw) continue;
      let ok = true;
      for (const [loc, c] of e.deps) if (countAbove(loc) !== c) ok = false;
      if (ok) return e;
    }
    return undefined;
  }

  store(key: string, entry: Entry): void {
    const list = this.entries.get(key);
    if (list === undefined) this.entries.set(key, [entry]);
    else if (list.length < 8) list.push(entry);
  }
}

export type { Entry as CacheEntry };
