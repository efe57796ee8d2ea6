/**
 * A least-recently-used map bounded by the bytes of its values (as the caller measures them). Map keeps
 * insertion order, so re-inserting on a hit makes the first key the least recently used.
 */
export class ByteLru<V> {
  private readonly map = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V, bytes: number): void {
    if (bytes > this.maxBytes) return; // larger than the whole cache: serve it, don't keep it
    const old = this.map.get(key);
    if (old) {
      this.total -= old.bytes;
      this.map.delete(key);
    }
    this.map.set(key, { value, bytes });
    this.total += bytes;
    while (this.total > this.maxBytes) {
      const [k, e] = this.map.entries().next().value as [string, { bytes: number }];
      this.map.delete(k);
      this.total -= e.bytes;
    }
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  get size(): number {
    return this.map.size;
  }

  get bytes(): number {
    return this.total;
  }
}
