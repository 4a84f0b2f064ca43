// The reflector's retry delays (client-go tools/cache/reflector.go with wait.Backoff.DelayWithReset): 800 ms,
// doubling to a cap of 30 s, each with up to 100 % jitter (so the cap waits 30-60 s), and back to 800 ms once no
// delay was asked for during 2 minutes, i.e. the API server has been healthy for a while.

export interface BackoffOptions {
  initialMs: number;
  capMs: number;
  factor: number;
  /** The delay is d + random * jitter * d. */
  jitter: number;
  /** Start over from initialMs when the previous delay was asked for longer ago than this. */
  resetAfterMs: number;
}

export const REFLECTOR_BACKOFF: BackoffOptions = { initialMs: 800, capMs: 30_000, factor: 2, jitter: 1, resetAfterMs: 120_000 };

export class Backoff {
  private current: number;
  private lastAsked = -Infinity;

  constructor(
    private readonly opts: BackoffOptions = REFLECTOR_BACKOFF,
    private readonly random: () => number = Math.random,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.current = opts.initialMs;
  }

  /** The next delay in milliseconds. */
  next(): number {
    const now = this.now();
    if (now - this.lastAsked > this.opts.resetAfterMs) this.current = this.opts.initialMs;
    this.lastAsked = now;
    const base = this.current;
    this.current = Math.min(this.opts.capMs, this.current * this.opts.factor);
    return base + this.random() * this.opts.jitter * base;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
