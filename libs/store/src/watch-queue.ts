// The consumer side of a store watch, shared by both backends: a bounded queue of batches. A backend pushes
// what it receives; this drops what was already delivered (a resumed etcd stream replays from the last revision
// it saw), turns idleness into progress requests, and ends the watch with WatchOverflowError when the consumer
// stops reading instead of buffering without bound.
import { BoundedQueue } from './bounded-queue';
import { WatchOverflowError, type StoreEvent, type StoreWatch, type WatchBatch } from './store';

export interface WatchQueueOptions {
  /** The revision the watch starts after (events at or below it are not delivered); unknown until `started`. */
  afterRevision?: number;
  maxBufferedEvents?: number;
  progressIntervalMs?: number;
  /** Ask the backend for a progress notification (it answers with `progress`). */
  requestProgress: () => void;
  /** Whether the backend answers progress requests in order with its events (StoreWatch.progressOnRequest); default true. */
  progressOnRequest?: Promise<boolean>;
  /** The consumer closed the watch, or it failed: release the backend's resources. */
  release: () => void;
}

export const DEFAULT_MAX_BUFFERED_EVENTS = 10_000;

export class WatchQueue implements StoreWatch {
  private readonly queue: BoundedQueue<WatchBatch>;
  /** The newest event revision delivered: a resumed stream's replay of older events is dropped against it. */
  private lastEvent: number;
  private lastProgress = -1;
  private readonly idleTimer: NodeJS.Timeout | null = null;
  private idle = true;
  private readonly readiness: { promise: Promise<number>; resolve: (rev: number) => void; reject: (e: Error) => void };

  constructor(private readonly opts: WatchQueueOptions) {
    this.lastEvent = opts.afterRevision ?? -1;
    const limit = opts.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
    this.queue = new BoundedQueue<WatchBatch>(limit, () => new WatchOverflowError(limit), () => this.ended());
    let resolve!: (rev: number) => void, reject!: (e: Error) => void;
    const promise = new Promise<number>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => undefined); // the iterator reports the same error; nobody need await this
    this.readiness = { promise, resolve, reject };
    if (opts.progressIntervalMs && opts.progressIntervalMs > 0) {
      // A watch that delivered nothing for a whole interval asks for progress, so its consumer learns the
      // current revision (upstream turns that into a BOOKMARK).
      this.idleTimer = setInterval(() => {
        if (this.idle && !this.closed) this.opts.requestProgress();
        this.idle = true;
      }, opts.progressIntervalMs);
      this.idleTimer.unref();
    }
  }

  get ready(): Promise<number> {
    return this.readiness.promise;
  }

  get progressOnRequest(): Promise<boolean> {
    return this.opts.progressOnRequest ?? Promise.resolve(true);
  }

  get closed(): boolean {
    return this.queue.closed;
  }

  /** The backend's watch is established and continues after `revision` (the current one, for a watch from now). */
  started(revision: number): void {
    if (this.lastEvent < 0) this.lastEvent = revision;
    this.readiness.resolve(revision);
  }

  /** Where a resumed backend stream continues after: the newest event or progress revision delivered. */
  get resumeAfter(): number {
    return Math.max(this.lastEvent, this.lastProgress);
  }

  /** Events of revisions in increasing order; those at or below the last delivered revision are dropped. */
  push(events: StoreEvent[]): void {
    let fresh = events;
    if (events.length && events[0].kv.modRevision <= this.lastEvent) {
      fresh = events.filter((e) => e.kv.modRevision > this.lastEvent);
    }
    if (!fresh.length || this.closed) return;
    this.lastEvent = fresh[fresh.length - 1].kv.modRevision;
    this.idle = false;
    this.queue.push({ events: fresh, revision: this.lastEvent }, fresh.length);
  }

  /**
   * Everything up to `revision` was delivered: a backend calls it only for a notification it can vouch for (one sent
   * after the events before it), since a resumed stream then continues after `revision`.
   */
  progress(revision: number): void {
    if (this.closed || revision < this.resumeAfter) return;
    this.lastProgress = revision;
    this.idle = false;
    this.queue.push({ events: [], revision }, 0);
  }

  /** End the watch with an error, after what is buffered. */
  fail(err: Error): void {
    this.readiness.reject(err);
    this.queue.fail(err);
  }

  requestProgress(): void {
    if (!this.closed) this.opts.requestProgress();
  }

  close(): void {
    this.queue.close();
  }

  private ended() {
    this.readiness.reject(new Error('watch ended')); // no-op once settled; a watch that ends first never was ready
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.opts.release();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchBatch> {
    return this.queue[Symbol.asyncIterator]();
  }
}
