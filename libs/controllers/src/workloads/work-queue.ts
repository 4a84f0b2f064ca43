// A work queue of object keys, as client-go's workqueue: a key is queued at most once however often it is added;
// a key being worked on is not handed to a second worker, and if it was added meanwhile it is queued again when
// the first finishes; failures come back after a per-key exponential delay (5 ms doubling up to 1000 s, the
// per-item half of DefaultControllerRateLimiter) until forgotten; delayed adds keep the earliest time asked for.

export interface WorkQueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private waiters: Array<(key: string | undefined) => void> = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;

  constructor(opts: WorkQueueOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 5;
    this.maxDelayMs = opts.maxDelayMs ?? 1_000_000;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) this.hand(key, waiter);
    else this.queue.push(key);
  }

  /** Adds `key` once `ms` have passed; an earlier pending add of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    // Waiting work must not keep a process alive that is otherwise done.
    timer.unref();
    this.delayed.set(key, { at, timer });
  }

  /** Adds `key` after its next back-off delay. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(this.baseDelayMs * 2 ** n, this.maxDelayMs));
  }

  /** Resets the back-off of `key` (after a sync that succeeded). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The next key to work on, or undefined once the queue is shut down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.take(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the work on `key` finished; a key added meanwhile is queued again. */
  done(key: string): void {
    this.processing.delete(key);
    if (!this.dirty.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) this.hand(key, waiter);
    else this.queue.push(key);
  }

  /** Stops handing out keys: waiting and later get() calls resolve with undefined, delayed adds are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queue.length = 0;
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  get length(): number {
    return this.queue.length;
  }

  private take(key: string): string {
    this.dirty.delete(key);
    this.processing.add(key);
    return key;
  }

  private hand(key: string, waiter: (key: string) => void) {
    waiter(this.take(key));
  }
}

/**
 * Runs `workers` loops that take keys from `queue` and sync them: a sync that throws is retried with back-off,
 * one that succeeds resets it. Resolves when the queue is shut down and every loop has finished its key.
 */
export async function runWorkers(queue: WorkQueue, workers: number, sync: (key: string) => Promise<void>, onError: (key: string, err: unknown) => void): Promise<void> {
  const loop = async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (e) {
        onError(key, e);
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}
