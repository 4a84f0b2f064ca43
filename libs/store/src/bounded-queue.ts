// A buffer between a producer that must never wait (a store commit, a watch stream, a cache fan-out) and a
// consumer reading through an async iterator. Items carry a weight (events per batch); when the waiting weight
// would pass the limit, the queue fails with the producer's overflow error and drops what it held, so a
// consumer that stops reading costs a bounded amount of memory. Shared by store watches and the registry's
// watch cache.

type Waiter<T> = { resolve: (r: IteratorResult<T>) => void; reject: (e: Error) => void };

export class BoundedQueue<T> implements AsyncIterable<T> {
  private readonly items: Array<{ item: T; weight: number }> = [];
  private weight = 0;
  private waiter: Waiter<T> | null = null;
  private error: Error | null = null;
  private done = false;

  /** `onEnd` runs once, when the queue is closed or fails: release what feeds it. */
  constructor(
    private readonly limit: number,
    private readonly overflow: () => Error,
    private readonly onEnd: () => void = () => undefined,
  ) {}

  get closed(): boolean {
    return this.done;
  }

  /** Adds an item; returns false when the queue is closed or the item overflowed it (the queue then failed). */
  push(item: T, weight = 1): boolean {
    if (this.done) return false;
    if (this.waiter && this.items.length === 0) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve({ value: item, done: false });
      return true;
    }
    if (this.weight + weight > this.limit) {
      this.fail(this.overflow(), true);
      return false;
    }
    this.items.push({ item, weight });
    this.weight += weight;
    return true;
  }

  /** Ends the queue with an error, after what is buffered unless `discard`. */
  fail(err: Error, discard = false): void {
    if (this.done) return;
    if (discard) this.clear();
    this.error = err;
    this.end();
  }

  close(): void {
    if (this.done) return;
    this.clear();
    this.end();
  }

  private clear() {
    this.items.length = 0;
    this.weight = 0;
  }

  private end() {
    this.done = true;
    this.onEnd();
    const w = this.waiter;
    this.waiter = null;
    if (!w) return;
    if (this.error) w.reject(this.error);
    else w.resolve({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const head = this.items.shift();
    if (head) {
      this.weight -= head.weight;
      return Promise.resolve({ value: head.item, done: false });
    }
    if (this.error) return Promise.reject(this.error);
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
