// The two ways the node controllers run work: a pass repeated on a period (wait.UntilWithContext: the period
// counts from the end of one pass to the start of the next, so passes never overlap), and a queue of keys worked
// by a few workers (client-go's workqueue with its per-item rate limiter: a key is queued at most once, a key
// added while it is being worked on is worked on again afterwards, and a failed key comes back after 5 ms
// doubling up to 1000 s until it succeeds).
import { runWorkers, WorkQueue } from '../workloads/work-queue';

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

/**
 * A queue of keys worked on by `workers` loops, for controllers that only add keys: the work queue of the workload
 * controllers (one key queued once however often added, never worked on twice at once, failures retried with
 * client-go's per-key back-off) run by its workers, behind `add` and `stop`.
 */
export class KeyQueue {
  private readonly queue = new WorkQueue();
  private readonly running: Promise<void>;

  constructor(work: (key: string) => Promise<void>, onError: (key: string, e: unknown) => void, workers = 1) {
    this.running = runWorkers(this.queue, workers, work, onError);
  }

  add(key: string): void {
    this.queue.add(key);
  }

  /** Stops taking keys; resolves once the keys being worked on are done. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await this.running;
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
