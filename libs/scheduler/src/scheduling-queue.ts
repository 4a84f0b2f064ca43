// The pods waiting to be scheduled (upstream's PriorityQueue, pkg/scheduler/backend/queue), in three places:
//
// | where         | what is there                                   | leaves when                                         |
// |---------------|-------------------------------------------------|-----------------------------------------------------|
// | active        | pods to try now: higher priority first, then    | popped for a scheduling attempt                     |
// |               | the one waiting longest                         |                                                     |
// | backoff       | pods that failed and may be retried, each until | its back-off ends (1 s after the first attempt,     |
// |               | its back-off ends                               | doubling per attempt up to 10 s) -> active          |
// | unschedulable | pods no node fitted, waiting for the cluster to | a node or pod change that may help (moveAll), the   |
// |               | change                                          | pod's own update, or 5 min -> backoff or active     |
//
// A pod that failed with an error (not "no node fits") goes straight to backoff. One that found no node goes to
// backoff instead of unschedulable when the cluster changed while it was being tried, so that change is not lost.
import { Heap } from './heap';

export interface QueuedPodInfo {
  key: string;
  priority: number;
  /** Scheduling attempts so far; the back-off doubles with each. */
  attempts: number;
  /** When it was added or last failed: the active queue's tie-break and the back-off's start. */
  timestamp: number;
  /** The scheduling cycle of its last attempt. */
  cycle: number;
  unschedulableSince?: number;
}

export interface SchedulingQueueOptions {
  /** podInitialBackoffSeconds, 1 s upstream. */
  initialBackoffMs?: number;
  /** podMaxBackoffSeconds, 10 s upstream. */
  maxBackoffMs?: number;
  /** podMaxInUnschedulablePodsDuration, 5 min upstream. */
  maxUnschedulableMs?: number;
  now?: () => number;
}

export const QUEUE_DEFAULTS = { initialBackoffMs: 1000, maxBackoffMs: 10_000, maxUnschedulableMs: 300_000 } as const;

/** How often pods that waited too long in unschedulable are looked for (upstream's flush period, 30 s). */
const UNSCHEDULABLE_FLUSH_MS = 30_000;

export class SchedulingQueue {
  private readonly active = new Heap<QueuedPodInfo>((a, b) => a.priority > b.priority || (a.priority === b.priority && a.timestamp < b.timestamp));
  /** Every pod in the active heap, by key: removal from the heap is lazy, so this says which entries count. */
  private readonly activeKeys = new Map<string, QueuedPodInfo>();
  private readonly backoff = new Map<string, { info: QueuedPodInfo; timer: NodeJS.Timeout }>();
  private readonly unschedulable = new Map<string, QueuedPodInfo>();
  /** Pods being tried now, and whether something happened meanwhile that should retry them. */
  private readonly inFlight = new Map<string, { info: QueuedPodInfo; changed: boolean }>();
  private schedulingCycle = 0;
  private moveRequestCycle = -1;
  private waiter: ((info: QueuedPodInfo | undefined) => void) | null = null;
  private closed = false;
  private readonly flushTimer: NodeJS.Timeout;
  private readonly opts: Required<Omit<SchedulingQueueOptions, 'now'>>;
  private readonly now: () => number;

  constructor(opts: SchedulingQueueOptions = {}) {
    this.opts = {
      initialBackoffMs: opts.initialBackoffMs ?? QUEUE_DEFAULTS.initialBackoffMs,
      maxBackoffMs: opts.maxBackoffMs ?? QUEUE_DEFAULTS.maxBackoffMs,
      maxUnschedulableMs: opts.maxUnschedulableMs ?? QUEUE_DEFAULTS.maxUnschedulableMs,
    };
    this.now = opts.now ?? Date.now;
    this.flushTimer = setInterval(() => this.flushUnschedulableLeftover(), UNSCHEDULABLE_FLUSH_MS).unref();
  }

  has(key: string): boolean {
    return this.activeKeys.has(key) || this.backoff.has(key) || this.unschedulable.has(key) || this.inFlight.has(key);
  }

  /** A pod that needs a node; one the queue already holds stays where it is. */
  add(key: string, priority: number): void {
    if (this.closed || this.has(key)) return;
    this.pushActive({ key, priority, attempts: 0, timestamp: this.now(), cycle: 0 });
  }

  /** The pod itself changed in a way that may let it fit (its spec or labels): retry it, after its back-off. */
  podChanged(key: string, priority: number): void {
    const flight = this.inFlight.get(key);
    if (flight) {
      flight.changed = true;
      return;
    }
    const waiting = this.unschedulable.get(key);
    if (waiting) {
      this.unschedulable.delete(key);
      this.activeOrBackoff({ ...waiting, priority });
      return;
    }
    this.add(key, priority);
  }

  delete(key: string): void {
    this.activeKeys.delete(key);
    const b = this.backoff.get(key);
    if (b) clearTimeout(b.timer);
    this.backoff.delete(key);
    this.unschedulable.delete(key);
    this.inFlight.delete(key);
  }

  /** The next pod to try; waits for one. Resolves undefined once the queue is closed. */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const next = this.popActive();
    if (next) return Promise.resolve(next);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  /** The next pod to try if one is ready now, without waiting. */
  tryPop(): QueuedPodInfo | undefined {
    return this.closed ? undefined : this.popActive();
  }

  /** The attempt placed the pod (it is assumed; the binding runs on). Returns its entry, for retry(). */
  done(key: string): QueuedPodInfo | undefined {
    const flight = this.inFlight.get(key);
    this.inFlight.delete(key);
    return flight?.info;
  }

  /** The binding of a placed pod failed: try it again after its back-off (unless it is queued again already). */
  retry(info: QueuedPodInfo): void {
    if (this.closed || this.has(info.key)) return;
    this.toBackoff({ ...info, timestamp: this.now() });
  }

  /**
   * The attempt failed. `unschedulable`: no node fitted, so wait for a change (unless one came during the attempt);
   * otherwise (an error, a failed binding) retry after the back-off.
   */
  requeue(key: string, unschedulable: boolean): void {
    const flight = this.inFlight.get(key);
    if (!flight || this.closed) return;
    this.inFlight.delete(key);
    const info: QueuedPodInfo = { ...flight.info, timestamp: this.now() };
    if (!unschedulable || flight.changed || this.moveRequestCycle >= info.cycle) {
      this.toBackoff(info);
    } else {
      this.unschedulable.set(key, { ...info, unschedulableSince: this.now() });
    }
  }

  /** Something in the cluster changed that may let waiting pods fit: a node came or changed, a pod went away. */
  moveAllToActiveOrBackoff(): void {
    for (const [key, info] of this.unschedulable) {
      this.unschedulable.delete(key);
      this.activeOrBackoff(info);
    }
    for (const flight of this.inFlight.values()) flight.changed = true;
    this.moveRequestCycle = this.schedulingCycle;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.flushTimer);
    for (const { timer } of this.backoff.values()) clearTimeout(timer);
    this.backoff.clear();
    this.waiter?.(undefined);
    this.waiter = null;
  }

  /** How long a pod waits after `attempts` attempts: 1 s, 2 s, 4 s, ... up to the maximum. */
  backoffMs(attempts: number): number {
    if (attempts === 0) return 0;
    let d = this.opts.initialBackoffMs;
    for (let i = 1; i < attempts && d < this.opts.maxBackoffMs; i++) d *= 2;
    return Math.min(d, this.opts.maxBackoffMs);
  }

  private popActive(): QueuedPodInfo | undefined {
    for (let info = this.active.pop(); info; info = this.active.pop()) {
      if (this.activeKeys.get(info.key) !== info) continue;
      this.activeKeys.delete(info.key);
      const popped = { ...info, attempts: info.attempts + 1, cycle: ++this.schedulingCycle };
      this.inFlight.set(info.key, { info: popped, changed: false });
      return popped;
    }
    return undefined;
  }

  private pushActive(info: QueuedPodInfo) {
    this.activeKeys.set(info.key, info);
    this.active.push(info);
    if (this.waiter) {
      const resolve = this.waiter;
      this.waiter = null;
      resolve(this.popActive());
    }
  }

  private activeOrBackoff(info: QueuedPodInfo) {
    if (info.timestamp + this.backoffMs(info.attempts) > this.now()) this.toBackoff(info);
    else this.pushActive(info);
  }

  private toBackoff(info: QueuedPodInfo) {
    const wait = Math.max(0, info.timestamp + this.backoffMs(info.attempts) - this.now());
    const timer = setTimeout(() => {
      if (this.backoff.get(info.key)?.info !== info) return;
      this.backoff.delete(info.key);
      this.pushActive(info);
    }, wait).unref();
    this.backoff.set(info.key, { info, timer });
  }

  private flushUnschedulableLeftover() {
    const now = this.now();
    for (const [key, info] of this.unschedulable) {
      if (now - (info.unschedulableSince ?? now) <= this.opts.maxUnschedulableMs) continue;
      this.unschedulable.delete(key);
      this.activeOrBackoff(info);
    }
  }
}
