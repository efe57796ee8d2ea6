/**
 * Budgets enforced WHILE building (design/compact-view.md pitfall 5, §4.2 step 9): inlining can blow up
 * without cycles (diamonds), so limits are checked as nodes are compiled, not after. Counting is by
 * work done, never by wall-clock time, so the output stays deterministic.
 */
export class BudgetExceeded extends Error {}

export class Budget {
  nodes = 0;
  bytes = 0;
  ops = 0;
  /** set once a node or byte limit cut structure (the attempt is then retried smaller, §4.2 step 6) */
  exceeded = false;

  constructor(
    readonly maxNodes: number,
    readonly maxBytes: number,
    readonly maxOps: number,
  ) {}

  /** Accounts one compiled node; false when the caller must emit a tail instead. */
  takeNode(): boolean {
    if (this.exceeded || this.nodes >= this.maxNodes || this.bytes >= this.maxBytes) {
      this.exceeded = true;
      return false;
    }
    this.nodes++;
    return true;
  }

  /** Charges a reused subtree's cost; false (and exceeded) when it does not fit. */
  charge(nodes: number, bytes: number): boolean {
    if (this.exceeded || this.nodes + nodes > this.maxNodes || this.bytes + bytes > this.maxBytes) {
      this.exceeded = true;
      return false;
    }
    this.nodes += nodes;
    this.bytes += bytes;
    return true;
  }

  addBytes(n: number): void {
    this.bytes += n;
  }

  /** Merge work (intersect/union) is bounded too; exceeding it aborts the attempt. */
  tick(n = 1): void {
    this.ops += n;
    if (this.ops > this.maxOps) throw new BudgetExceeded('merge work budget exceeded');
  }
}
