// The two ways the node controllers run work: a pass repeated on a period (wait.UntilWithContext: the period
// counts from the end of one pass to the start of the next, so passes never overlap), and a queue of keys worked
// by a few workers (client-go's workqueue with its per-item rate limiter: a key is queued at most once, a key
// added while it is being worked on is worked on again afterwards, and a failed key comes back after 5 ms
// doubling up to 1000 s until it succeeds).

export type LoopErrorLog = (e: unknown) => void;

export class PeriodicLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly periodMs: number,
    private readonly pass: () => Promise<void> | void,
    private readonly onError: LoopErrorLog,
  ) {}

  start(): void {
    if (!this.timer && !this.running && !this.stopped) this.schedule(0);
  }

  /** Resolves once no pass runs and none will. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.runPass();
    }, ms);
    // A loop must not keep alive a process that is otherwise done.
    this.timer.unref();
  }

  private async runPass(): Promise<void> {
    try {
      await this.pass();
    } catch (e) {
      this.onError(e);
    }
    this.running = undefined;
    this.schedule(this.periodMs);
  }
}

const RETRY_BASE_MS = 5;
const RETRY_MAX_MS = 1_000_000;

export class KeyQueue {
  private readonly queued: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly work: (key: string) => Promise<void>,
    private readonly onError: (key: string, e: unknown) => void,
    private readonly workers = 1,
  ) {}

  add(key: string): void {
    if (this.stopped || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.queued.push(key);
    this.pump();
  }

  /** Stops taking keys; resolves once the keys being worked on are done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
    this.queued.length = 0;
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private pump() {
    while (!this.stopped && this.processing.size < this.workers && this.queued.length) {
      const key = this.queued.shift()!;
      this.dirty.delete(key);
      this.processing.add(key);
      const p = this.process(key);
      this.inFlight.add(p);
      void p.finally(() => this.inFlight.delete(p));
    }
  }

  private async process(key: string): Promise<void> {
    try {
      await this.work(key);
      this.failures.delete(key);
    } catch (e) {
      this.onError(key, e);
      this.retryLater(key);
    } finally {
      this.processing.delete(key);
      if (this.dirty.has(key) && !this.stopped) this.queued.push(key);
      this.pump();
    }
  }

  private retryLater(key: string) {
    if (this.stopped || this.retries.has(key)) return;
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    const timer = setTimeout(() => {
      this.retries.delete(key);
      this.add(key);
    }, Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** n));
    timer.unref();
    this.retries.set(key, timer);
  }
}

/** A pause that ends early (resolving) when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Runs `fn` over `items` with at most `limit` at once (workqueue.ParallelizeUntil); resolves when all are done. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
