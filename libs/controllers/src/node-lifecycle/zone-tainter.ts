// The per-zone queue of nodes waiting for a NoExecute taint (upstream's RateLimitedTimedQueue over a UniqueQueue):
// nodes are tainted in the order they were marked, at most `rate` per second (a token bucket of burst 1), so a
// zone going down loses its pods gradually rather than all at once. A node stays remembered after it has been
// tainted, so marking it again does nothing until it is forgotten (it became ready, or lost its taint).

/** client-go's token bucket as TryAccept uses it; a rate of 0 never accepts (evictions stopped). */
export class TryRateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    readonly rate: number,
    private readonly burst = 1,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  tryAccept(): boolean {
    if (this.rate <= 0) return false;
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** What tainting one node came to: done, or try again after `retryAfterMs`. */
export type TaintAttempt = { done: true } | { done: false; retryAfterMs: number };

interface Waiting {
  name: string;
  uid: string;
  processAt: number;
}

export class ZoneTainter {
  private limiter: TryRateLimiter;
  private waiting: Waiting[] = [];
  /** Every node marked and not forgotten, tainted or still waiting. */
  private readonly marked = new Set<string>();

  constructor(
    rate: number,
    private readonly now: () => number = Date.now,
  ) {
    this.limiter = new TryRateLimiter(rate, 1, now);
  }

  /** Marks a node for tainting; false when it is already marked. */
  add(name: string, uid: string): boolean {
    if (this.marked.has(name)) return false;
    this.marked.add(name);
    this.insert({ name, uid, processAt: this.now() });
    return true;
  }

  /** Forgets a node (waiting or tainted); true when it was marked. */
  remove(name: string): boolean {
    if (!this.marked.delete(name)) return false;
    this.waiting = this.waiting.filter((w) => w.name !== name);
    return true;
  }

  get rate(): number {
    return this.limiter.rate;
  }

  /** A new rate; with burst 1, a limiter that was out of tokens hands its emptiness on (SwapLimiter). */
  setRate(rate: number): void {
    if (this.limiter.rate === rate) return;
    const drained = !this.limiter.tryAccept();
    this.limiter = new TryRateLimiter(rate, 1, this.now);
    if (drained) this.limiter.tryAccept();
  }

  get waitingNames(): string[] {
    return this.waiting.map((w) => w.name);
  }

  /**
   * Taints the waiting nodes that are due, in order, while the limiter allows (each attempt takes a token, as
   * upstream's Try does); a failed attempt waits its retry time and keeps its place by that time.
   */
  async taintDue(taint: (name: string, uid: string) => Promise<TaintAttempt>): Promise<void> {
    while (this.waiting.length) {
      if (!this.limiter.tryAccept()) return;
      const head = this.waiting[0];
      const now = this.now();
      if (now < head.processAt) return;
      const attempt = await taint(head.name, head.uid);
      // The node may have been forgotten (or forgotten and marked again) while the attempt ran.
      const i = this.waiting.indexOf(head);
      if (i < 0) continue;
      this.waiting.splice(i, 1);
      if (!attempt.done) this.insert({ ...head, processAt: now + attempt.retryAfterMs + 1 });
    }
  }

  private insert(w: Waiting) {
    const i = this.waiting.findIndex((x) => x.processAt > w.processAt);
    if (i < 0) this.waiting.push(w);
    else this.waiting.splice(i, 0, w);
  }
}
