// Fixed-rate periodic tasks with an injectable clock, for the pod sync loop and the runtime's own chores (the
// clet's garbage collection). A run that is still going when its next one is due makes that one skip, so a slow
// runtime never piles up listings; stop() waits for the runs under way, so no runtime call outlives its owner.

/** The time source and timers of the sync loop; tests pass a fake one and move time by hand. */
export interface LoopClock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: LoopClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Periods below this would spin: the shortest period a task gets. */
const MIN_PERIOD_MS = 10;

export class PeriodicTasks {
  private stopped = false;
  private readonly timers = new Set<unknown>();
  private readonly running = new Set<Promise<void>>();

  /** `onError`: a run that threw or rejected (the task keeps its schedule). */
  constructor(private readonly onError: (e: unknown) => void, private readonly clock: LoopClock = systemClock) {}

  /** Runs `fn` every `periodMs`, the first time one period from now. */
  every(periodMs: number, fn: () => Promise<void> | void): void {
    const period = Math.max(MIN_PERIOD_MS, periodMs);
    let busy = false;
    const arm = () => {
      if (this.stopped) return;
      const timer = this.clock.setTimeout(() => {
        this.timers.delete(timer);
        arm();
        if (busy || this.stopped) return;
        busy = true;
        const run: Promise<void> = Promise.resolve()
          .then(fn)
          .catch((e: unknown) => this.onError(e))
          .finally(() => {
            busy = false;
            this.running.delete(run);
          });
        this.running.add(run);
      }, period);
      this.timers.add(timer);
    };
    arm();
  }

  /** No run starts after this; resolves once the runs under way ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) this.clock.clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.running]);
  }
}
