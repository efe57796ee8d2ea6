/**
 * Local `$ref` / `$dynamicRef` resolution (design/compact-view.md §4.3, pitfalls 3 and 7).
 * Supported: `#`, `#/json/pointer` (percent-decoding, `~1`, `~0`, array indices), `#anchor` via
 * `$anchor` / `$dynamicAnchor` / draft-07 `$id: "#name"`, and refs relative to an embedded `$id`.
 * Anything else is EXTERNAL and is never fetched: no I/O exists in this module by construction.
 */
import { forEachSubschema } from './keywords';
import { isObject, hasOwn } from './json';
import { decodeFragment, joinPointer, parsePointer } from './pointer';

/** Placeholder base for documents without `$id`; `.invalid` can never resolve (RFC 2606). */
const ROOT_BASE = 'https://toolcat.invalid/root.json';

interface Located {
  target: unknown;
  pointer: string;
}

export type Resolution =
  | { kind: 'local'; target: unknown; pointer: string }
  | { kind: 'external'; uri: string }
  | { kind: 'unresolved' };

interface Meta {
  pointer: string;
  base: string;
}

export class RefResolver {
  private readonly meta = new WeakMap<object, Meta>();
  private readonly resources = new Map<string, Located>();
  private readonly anchors = new Map<string, Located>();
  private readonly cache = new Map<string, Resolution>();

  constructor(private readonly root: unknown) {
    this.index();
  }

  /** Canonical pointer of a schema object reached while indexing (undefined for data positions). */
  pointerOf(node: unknown): string | undefined {
    return isObject(node) ? this.meta.get(node)?.pointer : undefined;
  }

  /** Memoised per (base, ref): URL parsing is the costly part and recursion tails re-resolve often. */
  resolve(ref: string, from: unknown): Resolution {
    const base = (isObject(from) ? this.meta.get(from)?.base : undefined) ?? this.rootBase();
    const key = `${base}\n${ref}`;
    let hit = this.cache.get(key);
    if (hit === undefined) {
      hit = this.resolveUncached(ref, base);
      this.cache.set(key, hit);
    }
    return hit;
  }

  private resolveUncached(ref: string, base: string): Resolution {
    let url: URL;
    try {
      url = new URL(ref, base);
    } catch {
      return { kind: 'unresolved' };
    }
    const fragment = decodeFragment(url.hash.startsWith('#') ? url.hash.slice(1) : url.hash);
    url.hash = '';
    const resource = this.resources.get(url.href);
    if (resource === undefined) return { kind: 'external', uri: ref };
    if (fragment === '') return { kind: 'local', ...resource };
    if (fragment.startsWith('/')) return this.navigate(resource, fragment);
    const anchor = this.anchors.get(`${url.href}#${fragment}`);
    return anchor === undefined ? { kind: 'unresolved' } : { kind: 'local', ...anchor };
  }

  private rootBase(): string {
    return (isObject(this.root) ? this.meta.get(this.root)?.base : undefined) ?? ROOT_BASE;
  }

  private navigate(resource: Located, fragment: string): Resolution {
    const tokens = parsePointer(fragment);
    if (tokens === undefined) return { kind: 'unresolved' };
    let current: unknown = resource.target;
    for (const token of tokens) {
      if (Array.isArray(current)) {
        if (!/^(0|[1-9][0-9]*)$/.test(token)) return { kind: 'unresolved' };
        const index = Number(token);
        if (index >= current.length) return { kind: 'unresolved' };
        current = current[index];
      } else if (isObject(current) && hasOwn(current, token)) {
        current = current[token];
      } else {
        return { kind: 'unresolved' };
      }
    }
    const pointer = this.pointerOf(current) ?? joinPointer(resource.pointer, ...tokens);
    return { kind: 'local', target: current, pointer };
  }

  /** One iterative walk over schema positions (keywords.ts) records pointers, bases and anchors. */
  private index(): void {
    const stack: Array<{ node: unknown; pointer: string; base: string }> = [
      { node: this.root, pointer: '', base: ROOT_BASE },
    ];
    this.resources.set(ROOT_BASE, { target: this.root, pointer: '' });
    while (stack.length > 0) {
      const { node, pointer, base: parentBase } = stack.pop()!;
      if (!isObject(node) || this.meta.has(node)) continue;
      let base = parentBase;
      const id = node.$id;
      if (typeof id === 'string' && id !== '') {
        if (id.startsWith('#')) {
          // draft-06/07 plain-name fragment: an anchor, not a new resource
          this.anchors.set(`${parentBase}#${decodeFragment(id.slice(1))}`, { target: node, pointer });
        } else {
          try {
            const url = new URL(id, parentBase);
            url.hash = '';
            base = url.href;
            if (!this.resources.has(base)) this.resources.set(base, { target: node, pointer });
          } catch {
            // an unparsable $id is ignored: refs against it resolve as unresolved or external
          }
        }
      }
      for (const key of ['$anchor', '$dynamicAnchor']) {
        const name = node[key];
        if (typeof name === 'string' && !this.anchors.has(`${base}#${name}`)) {
          this.anchors.set(`${base}#${name}`, { target: node, pointer });
        }
      }
      this.meta.set(node, { pointer, base });
      const children: Array<{ node: unknown; pointer: string; base: string }> = [];
      forEachSubschema(node, (child, suffix) => children.push({ node: child, pointer: joinPointer(pointer, ...suffix), base }));
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    }
  }
}
