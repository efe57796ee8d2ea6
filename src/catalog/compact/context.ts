/** Per-attempt compile context: options, resolver, budget and the path-scoped location stack (§4.3). */
import { Budget } from './budget';
import { SubtreeCache, type CacheEntry, type Frame } from './memo';
import type { RefResolver } from './ref-resolver';
import type { CompactOptions } from './types';
import type { Node } from './ir';

/** Composition nesting (anyOf inside allOf inside …) does not add output depth; cap it separately. */
export const MAX_CALL_DEPTH = 200;

export class CompileContext {
  readonly budget: Budget;
  /** locations on the current root-to-node path, with multiplicity (pitfall 4: path-scoped, not global) */
  private readonly onPath = new Map<string, number>();
  calls = 0;
  /** recursion tails, depth cuts and budget tails emitted so far */
  truncations = 0;
  /** budget / call-depth tails: a subtree containing one depends on the budget state, never cached */
  budgetTails = 0;
  readonly cache = new SubtreeCache();
  private readonly frames: Frame[] = [];

  get truncated(): boolean {
    return this.truncations > 0;
  }

  set truncated(value: boolean) {
    if (value) this.truncations++;
  }

  constructor(
    readonly opts: CompactOptions,
    readonly resolver: RefResolver,
    readonly maxRecursion: number,
    readonly maxDepth: number,
  ) {
    this.budget = new Budget(opts.maxNodes, opts.maxBytes, opts.maxNodes * 200);
  }

  enter(loc: string): void {
    this.onPath.set(loc, (this.onPath.get(loc) ?? 0) + 1);
    this.calls++;
    const b = this.budget;
    this.frames.push({ loc, deps: new Map(), nodes0: b.nodes - 1, bytes0: b.bytes, truncations0: this.truncations, budgetTails0: this.budgetTails });
  }

  /** Pops the frame; caches `node` under `key` when the subtree did not depend on the budget. */
  leave(loc: string, key: string, raw: object, node: Node | undefined): void {
    const n = (this.onPath.get(loc) ?? 1) - 1;
    if (n <= 0) this.onPath.delete(loc);
    else this.onPath.set(loc, n);
    this.calls--;
    const frame = this.frames.pop()!;
    this.inheritDeps(frame.deps);
    if (node === undefined || this.budgetTails !== frame.budgetTails0 || this.budget.exceeded) return;
    this.cache.store(key, {
      raw,
      deps: frame.deps,
      node,
      nodes: this.budget.nodes - frame.nodes0,
      bytes: this.budget.bytes - frame.bytes0,
      truncations: this.truncations - frame.truncations0,
    });
  }

  /** A cached subtree whose recursion decisions hold on the current path, charged to the budget. */
  reuse(key: string, raw: object): Node | undefined {
    const hit: CacheEntry | undefined = this.cache.lookup(key, raw, (loc) => this.capped(this.timesOnPath(loc)));
    if (hit === undefined) return undefined;
    if (!this.budget.charge(hit.nodes, hit.bytes)) return undefined;
    this.truncations += hit.truncations;
    this.inheritDeps(hit.deps);
    return hit.node;
  }

  /** How often `loc` is already on the path: covers refs followed AND structural ancestors (T08, `#`). */
  timesOnPath(loc: string): number {
    return this.onPath.get(loc) ?? 0;
  }

  /** Records that the current subtree's result depends on how often `loc` is on the path. */
  dependOn(loc: string): void {
    const top = this.frames[this.frames.length - 1];
    if (top === undefined) return;
    const above = this.timesOnPath(loc) - (top.loc === loc ? 1 : 0);
    top.deps.set(loc, this.capped(above));
  }

  /** Only "at least maxRecursion" matters to the recursion decision, so counts are capped there. */
  private capped(n: number): number {
    return Math.min(n, this.maxRecursion);
  }

  /** A child's dependencies, re-expressed relative to the current (parent) frame. */
  private inheritDeps(deps: ReadonlyMap<string, number>): void {
    const top = this.frames[this.frames.length - 1];
    if (top === undefined) return;
    for (const [loc, c] of deps) {
      const above = this.capped(Math.max(0, c - (top.loc === loc ? 1 : 0)));
      top.deps.set(loc, above);
    }
  }
}

/** What step modules need from the driver; avoids import cycles between node.ts and the steps. */
export interface Compiler {
  readonly ctx: CompileContext;
  /** compiles any subschema value found at `loc`; `depth` is its output nesting level (root = 1) */
  compile(raw: unknown, loc: string, depth: number): Node;
}
