// Cancellable waits and periodic loops for the node's controllers: stop() ends every wait at once, so a
// stopped agent leaves no timer behind and no request starts after it.

export class Timers {
  private stopped = false;
  private readonly pending = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Resolves after `ms`, or at once when stopped (then with false). */
  sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.pending.delete(entry);
          resolve(true);
        }, Math.max(0, ms)),
        resolve: () => resolve(false),
      };
      this.pending.add(entry);
    });
  }

  /**
   * Runs `fn` now and then every `periodMs` (plus up to `jitter` of it, as upstream's wait.JitterUntil) after each
   * run ends, until stopped. Errors are reported to `onError`, never end the loop.
   */
  loop(periodMs: number, fn: () => Promise<void>, onError: (e: unknown) => void, jitter = 0): Promise<void> {
    return (async () => {
      while (!this.stopped) {
        try {
          await fn();
        } catch (e) {
          onError(e);
        }
        if (!(await this.sleep(periodMs * (1 + Math.random() * jitter)))) return;
      }
    })();
  }

  stop(): void {
    this.stopped = true;
    for (const p of this.pending) {
      clearTimeout(p.timer);
      p.resolve();
    }
    this.pending.clear();
  }
}

/** Exponential back-off: `initialMs`, doubling, at most `maxMs` (upstream's registration and lease retries). */
export class Backoff {
  private current: number;

  constructor(private readonly initialMs: number, private readonly maxMs: number) {
    this.current = initialMs;
  }

  next(): number {
    const d = this.current;
    this.current = Math.min(this.current * 2, this.maxMs);
    return d;
  }

  reset(): void {
    this.current = this.initialMs;
  }
}
