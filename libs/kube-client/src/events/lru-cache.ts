// k8s.io/utils/lru as the correlator uses it: a read or a write makes an entry the newest; past the limit the
// oldest goes. The correlator's state is bounded this way, so a node with many short-lived pods keeps no garbage.

export class LruCache<V> {
  // A Map iterates in insertion order, so re-inserting on every touch keeps the oldest entry first.
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }
}
