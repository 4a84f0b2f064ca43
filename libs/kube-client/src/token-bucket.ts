// Client-side rate limiting as client-go's flowcontrol.NewTokenBucketRateLimiter (golang.org/x/time/rate): the
// bucket starts full (burst tokens), refills at qps, and a request that finds it empty reserves the next token
// and waits for it, so waiting requests go out in the order they asked, spaced 1/qps apart. Nothing fails for
// want of a token.

export const DEFAULT_QPS = 5;
export const DEFAULT_BURST = 10;

export class ClientClosedError extends Error {
  constructor() {
    super('the client is closed');
    this.name = 'ClientClosedError';
  }
}

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token and returns how many milliseconds the caller must wait before using it (0: now). */
  reserve(): number {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /** Resolves when the caller may send; rejects with ClientClosedError if `signal` aborts first. */
  wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (signal?.aborted) return Promise.reject(new ClientClosedError());
    if (delay === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(new ClientClosedError());
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, delay);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * The limiter for a client's qps and burst, following rest.RESTClientFor: qps 0 (or unset) means 5, a negative
 * qps means no limit (null); burst 0 (or unset) means 10.
 */
export function tokenBucketFor(qps: number | undefined, burst: number | undefined): TokenBucket | null {
  const q = !qps ? DEFAULT_QPS : qps;
  if (q < 0) return null;
  const b = !burst || burst < 1 ? DEFAULT_BURST : Math.floor(burst);
  return new TokenBucket(q, b);
}
