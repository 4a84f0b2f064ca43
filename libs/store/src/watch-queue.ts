// The consumer side of a watch, shared by both backends: a bounded buffer of batches read through an async
// iterator. A backend pushes what it receives; the queue drops what was already delivered (a resumed etcd
// stream replays from the last revision it saw), turns idleness into progress requests, and ends the watch
// with WatchOverflowError when the consumer stops reading instead of buffering without bound.
import { WatchOverflowError, type StoreEvent, type StoreWatch, type WatchBatch } from './store';

export interface WatchQueueOptions {
  /** The revision the watch starts after (events at or below it are not delivered); unknown until `started`. */
  afterRevision?: number;
  maxBufferedEvents?: number;
  progressIntervalMs?: number;
  /** Ask the backend for a progress notification (it answers with `progress`). */
  requestProgress: () => void;
  /** The consumer closed the watch, or it failed: release the backend's resources. */
  release: () => void;
}

export const DEFAULT_MAX_BUFFERED_EVENTS = 10_000;

type Waiter = { resolve: (r: IteratorResult<WatchBatch>) => void; reject: (e: Error) => void };

export class WatchQueue implements StoreWatch {
  private readonly batches: WatchBatch[] = [];
  private buffered = 0;
  private waiter: Waiter | null = null;
  private error: Error | null = null;
  private done = false;
  /** The newest event revision delivered: a resumed stream's replay of older events is dropped against it. */
  private lastEvent: number;
  private lastProgress = -1;
  private readonly limit: number;
  private readonly readiness: { promise: Promise<number>; resolve: (rev: number) => void; reject: (e: Error) => void };
  private readonly idleTimer: NodeJS.Timeout | null = null;
  private idle = true;

  constructor(private readonly opts: WatchQueueOptions) {
    this.lastEvent = opts.afterRevision ?? -1;
    let resolve!: (rev: number) => void, reject!: (e: Error) => void;
    const promise = new Promise<number>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => undefined); // the iterator reports the same error; nobody need await this
    this.readiness = { promise, resolve, reject };
    this.limit = opts.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
    if (opts.progressIntervalMs && opts.progressIntervalMs > 0) {
      // A watch that delivered nothing for a whole interval asks for progress, so its consumer learns the
      // current revision (upstream turns that into a BOOKMARK).
      this.idleTimer = setInterval(() => {
        if (this.idle && !this.done) this.opts.requestProgress();
        this.idle = true;
      }, opts.progressIntervalMs);
      this.idleTimer.unref();
    }
  }

  get ready(): Promise<number> {
    return this.readiness.promise;
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

  get closed(): boolean {
    return this.done;
  }

  /** Events of revisions in increasing order; those at or below the last delivered revision are dropped. */
  push(events: StoreEvent[]): void {
    if (this.done) return;
    let fresh = events;
    if (events.length && events[0].kv.modRevision <= this.lastEvent) {
      fresh = events.filter((e) => e.kv.modRevision > this.lastEvent);
    }
    if (!fresh.length) return;
    this.lastEvent = fresh[fresh.length - 1].kv.modRevision;
    if (this.buffered + fresh.length > this.limit) {
      this.fail(new WatchOverflowError(this.limit), true);
      return;
    }
    this.enqueue({ events: fresh, revision: this.lastEvent });
  }

  /**
   * Everything up to `revision` was delivered. It does not move the event watermark: etcd 3.4 can answer a
   * progress request before an event of an older revision is on the wire, and that event must still arrive.
   */
  progress(revision: number): void {
    if (this.done || revision < this.resumeAfter) return;
    this.lastProgress = revision;
    this.enqueue({ events: [], revision });
  }

  /** End the watch with an error; with `discard`, what is buffered is dropped (a consumer that fell behind). */
  fail(err: Error, discard = false): void {
    if (this.done) return;
    if (discard) {
      this.batches.length = 0;
      this.buffered = 0;
    }
    this.error = err;
    this.readiness.reject(err);
    this.finish();
    this.wake();
  }

  requestProgress(): void {
    if (!this.done) this.opts.requestProgress();
  }

  close(): void {
    if (this.done) return;
    this.readiness.reject(new Error('watch closed'));
    this.finish();
    this.batches.length = 0;
    this.buffered = 0;
    this.wake();
  }

  private finish() {
    this.done = true;
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.opts.release();
  }

  private enqueue(batch: WatchBatch) {
    this.idle = false;
    if (this.waiter && this.batches.length === 0) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve({ value: batch, done: false });
      return;
    }
    this.batches.push(batch);
    this.buffered += batch.events.length;
  }

  private wake() {
    if (!this.waiter) return;
    const w = this.waiter;
    this.waiter = null;
    if (this.error) w.reject(this.error);
    else w.resolve({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<WatchBatch>> {
    const batch = this.batches.shift();
    if (batch) {
      this.buffered -= batch.events.length;
      return Promise.resolve({ value: batch, done: false });
    }
    if (this.error) return Promise.reject(this.error);
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchBatch> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
