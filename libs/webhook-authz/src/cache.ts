// Upstream's LRU expiring cache for webhook answers (8192 entries, a TTL per entry). A Map keeps insertion
// order, so moving an entry to the end on a hit makes the first key the least recently used. Moving costs a
// delete and an insert on every hit of a warm cache, so an entry is only moved once it has drifted into the
// older quarter of the order: recency is exact up to that quarter, which only matters for which entry a full
// cache evicts.

interface Entry<V> {
  value: V;
  expiresAt: number;
  /** `stamp` when the entry was last put at the end of the order. */
  placed: number;
}

export class ExpiringLruCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private stamp = 0;

  constructor(
    private readonly maxEntries = 8192,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    if (this.stamp - e.placed > this.maxEntries >> 2) {
      this.entries.delete(key);
      e.placed = ++this.stamp;
      this.entries.set(key, e);
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs, placed: ++this.stamp });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
