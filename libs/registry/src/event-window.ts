// The watch cache's window of recent changes, sized as upstream's watchCache sizes its cyclic buffer: while the
// window is full and everything in it is younger than the fresh duration (75 s), it doubles, up to an upper bound;
// once even its newest quarter is older than that, it halves, down to a lower bound. A client whose watch ended (an
// API server restart, a watcher dropped for falling behind) then resumes from its resourceVersion for as long as
// 75 s of changes fit, at any write rate up to the upper bound / 75 s, instead of only for the last N changes: with
// a fixed 1,000, a saturated cluster (600 pod changes a second) kept under 2 s, so every dropped watcher came back
// to a 410 and a full relist.

export interface EventWindowOptions {
  /** A fixed number of changes instead of upstream's sizing (tests). */
  capacity?: number;
  /** How long a change counts as fresh: the window grows to keep this much history (upstream: 75 s). */
  eventFreshDurationMs?: number;
  now?: () => number;
}

export const EVENT_FRESH_DURATION_MS = 75_000;
/** Upstream's bounds of the watch cache's capacity (defaultLowerBoundCapacity, defaultUpperBoundCapacity). */
export const LOWER_BOUND_CAPACITY = 100;
export const UPPER_BOUND_CAPACITY = 100 * 1024;

export class EventWindow<E extends { revision: number }> {
  private events: Array<E | undefined>;
  private times: Float64Array;
  /** Absolute positions, as upstream's startIndex/endIndex: the window holds [start, end). */
  private start = 0;
  private end = 0;
  private readonly lower: number;
  private readonly upper: number;
  private readonly freshMs: number;
  private readonly now: () => number;

  constructor(o: EventWindowOptions = {}) {
    this.lower = o.capacity ?? LOWER_BOUND_CAPACITY;
    this.upper = o.capacity ?? UPPER_BOUND_CAPACITY;
    this.freshMs = o.eventFreshDurationMs ?? EVENT_FRESH_DURATION_MS;
    this.now = o.now ?? Date.now;
    this.events = new Array(this.lower);
    this.times = new Float64Array(this.lower);
  }

  get capacity(): number {
    return this.events.length;
  }

  get length(): number {
    return this.end - this.start;
  }

  /** Appends a change; returns the newest revision it pushed out of the window (the new horizon), if any. */
  push(event: E): number | undefined {
    const at = this.now();
    let evicted = this.resize(at);
    if (this.length === this.capacity) evicted = this.revisionAt(this.start++);
    const i = this.end++ % this.capacity;
    this.events[i] = event;
    this.times[i] = at;
    return evicted;
  }

  /** The changes after `revision`, oldest first. */
  *after(revision: number): Iterable<E> {
    // Revisions rise along the window: binary search for the first one past `revision`.
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.revisionAt(mid) <= revision) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.end; i++) yield this.events[i % this.capacity]!;
  }

  /** The newest change's revision, or undefined when the window is empty. */
  newest(): number | undefined {
    return this.length === 0 ? undefined : this.revisionAt(this.end - 1);
  }

  clear(): void {
    this.events = new Array(this.lower);
    this.times = new Float64Array(this.lower);
    this.start = this.end = 0;
  }

  private revisionAt(position: number): number {
    return this.events[position % this.capacity]!.revision;
  }

  /** Upstream's resizeCacheLocked: only a full window changes size. Returns the newest revision a shrink dropped. */
  private resize(at: number): number | undefined {
    const cap = this.capacity;
    if (this.length < cap) return undefined;
    if (at - this.times[this.start % cap] < this.freshMs) {
      if (cap < this.upper) this.reallocate(Math.min(cap * 2, this.upper));
      return undefined;
    }
    if (at - this.times[(this.end - Math.floor(cap / 4)) % cap] > this.freshMs && cap > this.lower) {
      const smaller = Math.max(Math.floor(cap / 2), this.lower);
      const dropped = this.revisionAt(this.end - smaller - 1);
      this.start = this.end - smaller;
      this.reallocate(smaller, cap);
      return dropped;
    }
    return undefined;
  }

  private reallocate(capacity: number, from = this.capacity): void {
    const events: Array<E | undefined> = new Array(capacity);
    const times = new Float64Array(capacity);
    for (let i = this.start; i < this.end; i++) {
      events[i % capacity] = this.events[i % from];
      times[i % capacity] = this.times[i % from];
    }
    this.events = events;
    this.times = times;
  }
}
