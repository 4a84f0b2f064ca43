// The watch cache of one resource, as kube-apiserver's cacher: a single list and a single store watch feed an
// in-memory copy of every object plus a window of recent events, and every list and watch of the resource is
// served from there. Each event is decoded once and handed to all watchers (no copy per watcher); a watcher is a
// bounded queue, dropped when its consumer stops reading. When the store watch breaks for good (compaction
// overtook it, it fell behind), the cache relists and ends its watchers so their clients watch again, as
// upstream's reflector does.
//
// A new cache (an API server restart) also replays the store's recent history into its window, so a client
// resumes from the resourceVersion it had instead of relisting. A watcher gets every change after its
// resourceVersion, or a 410, never a hole: replayed changes reach the watchers already registered as well as the
// window (a watcher may register before the history has arrived: etcd 3.4 sends it up to 100 ms after the watch is
// created, and nothing marks its end there), and the cache's revision moves only with events and with progress
// notifications the store vouches for (store.ts, progressOnRequest).
import { BoundedQueue, CompactedError, type KeyValue, type Store, type StoreEvent, type StoreWatch } from '@cl/store';
import { EventWindow, type EventWindowOptions } from './event-window';

export interface CachedObject<T> {
  key: string;
  object: T;
  /** The store revision that wrote this state (its resourceVersion). */
  revision: number;
  /** The store lease the key is attached to (0: none), so a write from this state keeps it. */
  lease: number;
}

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface CacheEvent<T> {
  type: CacheEventType;
  key: string;
  /** The new state; for DELETED, the last state before the deletion. */
  object: T;
  /** The event's revision (for DELETED, the deletion's: the object's resourceVersion in the event). */
  revision: number;
}

/** A watch on the cache: iterate it; close() ends it. */
export type CacheWatch<T> = AsyncIterable<WatchCacheItem<T>> & {
  close(): void;
  /** A watch straight from the store knows the revision it has followed to (there is no cache revision to ask). */
  readonly revision?: number;
};

export type WatchCacheItem<T> = CacheEvent<T> | { type: 'BOOKMARK'; revision: number; initialEventsEnd?: boolean };

/** A change as the cache keeps it: decoded once, with the previous state for selector transitions. */
export interface Change<T> {
  type: 'PUT' | 'DELETE';
  key: string;
  object: T;
  prevObject: T | null;
  revision: number;
}

export interface WatchCacheOptions<T> {
  decode: (kv: KeyValue) => T;
  /**
   * How many recent changes are kept for watches that resume from a past resourceVersion: unset, upstream's sizing
   * (75 s of changes, 100 to 102,400; event-window.ts); a number, exactly that many.
   */
  capacity?: number;
  /** The sizing's clock and fresh duration (tests). */
  window?: Omit<EventWindowOptions, 'capacity'>;
  /**
   * The value watchers may be indexed by (upstream's trigger function: a pod's spec.nodeName). A watch created with
   * `index` gets only the changes of objects whose value, new or previous, is that one, without its filter being
   * asked about every other change: a thousand nodes' agents each watching their own pods cost one delivery per
   * change instead of a thousand filter calls.
   */
  indexOf?: (object: T) => string | undefined;
  /** Store revisions of history before the list to replay into the window (bounded by what compaction left). */
  historyRevisions?: number;
  /** How often an idle store watch reports progress, so the cache's revision (and bookmarks) keep up. */
  progressIntervalMs?: number;
  log?: (line: string) => void;
}

export interface CacheWatchOptions<T> {
  /** Deliver changes after this revision; absent: ADDED for every current object first (resourceVersion unset or 0). */
  afterRevision?: number;
  /** Only objects for which this holds; a change across the boundary becomes ADDED or DELETED, as upstream. */
  filter?: (object: T) => boolean;
  /** Send a BOOKMARK with the cache's revision this often (allowWatchBookmarks). */
  bookmarkIntervalMs?: number;
  /** Items waiting for a consumer that does not read; past this the watch ends with an error. */
  maxBuffered?: number;
  /** After the initial ADDED events, a BOOKMARK marking their end (sendInitialEvents). */
  initialEventsEnd?: boolean;
  /**
   * The value of the cache's index that `filter` requires (a field selector's `spec.nodeName=X`): only changes of
   * objects with that value, new or previous, are offered to the filter. Ignored by a cache without `indexOf`.
   */
  index?: string;
}

/** A watch from a revision older than the cache's window: upstream's 410 `too old resource version: N (M)`. */
export class TooOldResourceVersionError extends Error {
  constructor(
    readonly requested: number,
    readonly oldest: number,
  ) {
    super(`too old resource version: ${requested} (${oldest})`);
    this.name = 'TooOldResourceVersionError';
  }
}

/** The cache did not reach a requested revision in time: upstream's 504 `Too large resource version`. */
export class TooLargeResourceVersionError extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`Too large resource version: ${requested}, current: ${current}`);
    this.name = 'TooLargeResourceVersionError';
  }
}

export class CacheWatcherOverflowError extends Error {
  constructor(limit: number) {
    super(`watch consumer fell behind: more than ${limit} events buffered`);
    this.name = 'CacheWatcherOverflowError';
  }
}

const DEFAULT_HISTORY_REVISIONS = 10_000;
/** Events a watcher may have queued before it is ended as too slow (cached and uncached watches alike). */
export const DEFAULT_MAX_BUFFERED = 1000;

interface Watcher<T> {
  /** Changes at or below this revision are not for this watcher (its resourceVersion, or the state it was sent). */
  after: number;
  queue: BoundedQueue<WatchCacheItem<T>>;
  filter?: (object: T) => boolean;
  timer: NodeJS.Timeout | null;
  index?: string;
}

export class WatchCache<T> {
  private readonly objects = new Map<string, CachedObject<T>>();
  /** The keys of `objects`, sorted: inserted and removed as objects come and go. */
  private sortedKeys: string[] = [];
  private readonly window: EventWindow<Change<T>>;
  private readonly watchers = new Set<Watcher<T>>();
  /** The watchers every change is offered to, and those indexed by a value of `indexOf` (a subset of `watchers`). */
  private readonly unindexed = new Set<Watcher<T>>();
  private readonly indexed = new Map<string, Set<Watcher<T>>>();
  private readonly freshWaiters: Array<{ revision: number; resolve: () => void }> = [];
  private storeWatch: StoreWatch | null = null;
  private current = 0;
  /** The oldest revision a watch may resume after: events after it are all in the window. */
  private horizon = 0;
  /** The revision of the last list: changes up to it come from history replay and are not applied to `objects`. */
  private listedAt = 0;
  /** Every change up to this revision has come from the store watch (history replay included). */
  private followed = -1;
  private stopped = false;
  private readyPromise: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly opts: WatchCacheOptions<T>,
  ) {
    this.window = new EventWindow({ ...opts.window, capacity: opts.capacity });
  }

  /** Lists the resource and starts following it; resolves once the cache holds a consistent state. */
  start(): Promise<void> {
    this.readyPromise ??= this.sync();
    return this.readyPromise;
  }

  get revision(): number {
    return this.current;
  }

  /** Every object now (or those whose keys start with `prefix`), in key order, and the revision they were read at. */
  list(prefix = ''): { items: CachedObject<T>[]; revision: number } {
    // The keys are kept sorted, so a namespace's objects are one binary search and a contiguous run.
    const items: CachedObject<T>[] = [];
    for (let i = lowerBound(this.sortedKeys, prefix); i < this.sortedKeys.length && this.sortedKeys[i].startsWith(prefix); i++) {
      items.push(this.objects.get(this.sortedKeys[i])!);
    }
    return { items, revision: this.current };
  }

  /** How many objects the cache holds. */
  get size(): number {
    return this.objects.size;
  }

  get(key: string): CachedObject<T> | undefined {
    return this.objects.get(key);
  }

  /**
   * Whether the cache catches up with the store's current revision on request (the store answers progress
   * requests it can vouch for), so that a consistent read can be served from it: upstream's ConsistentReadSupported.
   * Where not, the cache reaches a revision only with the resource's own changes (or etcd's periodic notifications).
   */
  async consistentReadsSupported(): Promise<boolean> {
    await this.start();
    return (await this.storeWatch?.progressOnRequest) ?? true;
  }

  /** Resolves once the cache has seen `revision` (NotOlderThan reads); fails as too large after `timeoutMs`. */
  waitUntilFresh(revision: number, timeoutMs = 3000): Promise<void> {
    if (revision <= this.current) return Promise.resolve();
    // Ask the store where it is, so an idle resource's cache catches up without waiting for a write.
    this.storeWatch?.requestProgress();
    return new Promise((resolve, reject) => {
      const waiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.freshWaiters.splice(this.freshWaiters.indexOf(waiter), 1);
        reject(new TooLargeResourceVersionError(revision, this.current));
      }, timeoutMs);
      this.freshWaiters.push(waiter);
    });
  }

  watch(opts: CacheWatchOptions<T> = {}): CacheWatch<T> {
    const limit = opts.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    const initial = opts.afterRevision === undefined || opts.afterRevision === 0;
    const watcher: Watcher<T> = {
      // From the initial state: the changes after the revision the objects are at (none of the replayed history).
      after: initial ? this.current : opts.afterRevision!,
      filter: opts.filter,
      timer: null,
      index: this.opts.indexOf ? opts.index : undefined,
      queue: new BoundedQueue<WatchCacheItem<T>>(
        limit,
        () => new CacheWatcherOverflowError(limit),
        () => {
          this.removeWatcher(watcher);
          if (watcher.timer) clearInterval(watcher.timer);
        },
      ),
    };
    const q = watcher.queue;
    if (initial) {
      for (const o of this.list().items) {
        // Weight 0: the initial state and the replayed window reference objects the cache holds anyway; the
        // limit is on live events a consumer leaves unread.
        if (!opts.filter || opts.filter(o.object)) q.push({ type: 'ADDED', key: o.key, object: o.object, revision: o.revision }, 0);
      }
      if (opts.initialEventsEnd) q.push({ type: 'BOOKMARK', revision: this.current, initialEventsEnd: true }, 0);
    } else {
      const after = watcher.after;
      if (after < this.horizon) {
        q.fail(new TooOldResourceVersionError(after, this.horizon));
        return q;
      }
      // What the window holds after it now; the rest (history still to replay, or a revision the cache has not
      // reached yet) is dispatched as it comes.
      for (const c of this.window.after(after)) this.deliver(watcher, c, 0);
    }
    if (opts.bookmarkIntervalMs && opts.bookmarkIntervalMs > 0) {
      // Never a revision below the watch's own (upstream sends bookmarks from the watch's resourceVersion on).
      watcher.timer = setInterval(() => {
        if (this.current >= watcher.after) q.push({ type: 'BOOKMARK', revision: this.current }, 0);
      }, opts.bookmarkIntervalMs);
      watcher.timer.unref();
    }
    this.addWatcher(watcher);
    return q;
  }

  private addWatcher(w: Watcher<T>) {
    this.watchers.add(w);
    if (w.index === undefined) return void this.unindexed.add(w);
    let set = this.indexed.get(w.index);
    if (!set) this.indexed.set(w.index, (set = new Set()));
    set.add(w);
  }

  private removeWatcher(w: Watcher<T>) {
    this.watchers.delete(w);
    if (w.index === undefined) return void this.unindexed.delete(w);
    const set = this.indexed.get(w.index);
    set?.delete(w);
    if (set?.size === 0) this.indexed.delete(w.index);
  }

  /** A change to every watcher that may see it: the unindexed ones and those indexed by its new or old value. */
  private dispatch(c: Change<T>, weight = 1) {
    for (const w of this.unindexed) this.deliver(w, c, weight);
    if (this.indexed.size === 0) return;
    const indexOf = this.opts.indexOf!;
    const now = indexOf(c.object);
    const before = c.prevObject ? indexOf(c.prevObject) : undefined;
    if (now !== undefined) for (const w of this.indexed.get(now) ?? []) this.deliver(w, c, weight);
    if (before !== undefined && before !== now) for (const w of this.indexed.get(before) ?? []) this.deliver(w, c, weight);
  }

  stop(): void {
    this.stopped = true;
    this.storeWatch?.close();
    for (const w of [...this.watchers]) w.queue.close();
  }

  private async sync(): Promise<void> {
    // The first list is paged at one revision, so a large resource is never read in one response.
    this.objects.clear();
    this.window.clear();
    let page = await this.store.range(this.prefix, { limit: 500 });
    const revision = page.revision;
    for (;;) {
      for (const kv of page.kvs) this.objects.set(kv.key, { key: kv.key, object: this.opts.decode(kv), revision: kv.modRevision, lease: kv.lease });
      if (!page.more) break;
      page = await this.store.range(this.prefix, { revision, limit: 500, startKey: page.kvs[page.kvs.length - 1].key + '\0' });
    }
    this.sortedKeys = [...this.objects.keys()].sort(compareKeys);
    this.current = revision;
    this.listedAt = revision;
    this.followed = -1;
    this.advanced();
    // The window is filled from the store's history before the list as well (what it still keeps), so a client
    // that watched the previous incarnation of this server resumes from its resourceVersion instead of relisting.
    await new Promise<void>((resolve) => {
      this.replayed = resolve;
      this.startWatch(Math.max(0, revision - (this.opts.historyRevisions ?? DEFAULT_HISTORY_REVISIONS)));
    });
  }

  /** Follows the store after `after`; history between what was followed and `after` is lost to the window. */
  private startWatch(after: number) {
    if (after > this.followed) {
      this.window.clear();
      this.horizon = after;
      this.followed = after;
      // Those registered from before it would miss what lies between: a 410, so they relist.
      this.expireWatchersBefore(after);
    }
    const watch = this.store.watch(this.prefix, { afterRevision: this.followed, progressIntervalMs: this.opts.progressIntervalMs ?? 1000 });
    this.storeWatch = watch;
    // Once established, a progress notification marks the end of the replayed history, where the store sends it
    // after that history. Where it cannot (etcd before 3.4.31 / 3.5.13), nothing does: the cache is ready once the
    // watch is (its list is consistent, as upstream's cache is ready after its list), and watchers get the
    // history in order as it arrives.
    watch.ready.then(
      async () => {
        if (await (watch.progressOnRequest ?? true)) watch.requestProgress();
        else this.caughtUp(Infinity);
      },
      () => undefined,
    );
    void this.follow(watch);
  }

  /** Resolves sync() once the window holds the history up to the list (watches from before it are then served). */
  private replayed: (() => void) | null = null;

  private caughtUp(revision: number) {
    if (this.replayed && revision >= this.listedAt) {
      const done = this.replayed;
      this.replayed = null;
      done();
    }
  }

  private async follow(watch: StoreWatch) {
    try {
      for await (const batch of watch) {
        for (const e of batch.events) this.apply(e);
        // A batch without events is a progress notification the store vouches for: nothing more up to it.
        if (batch.revision > this.followed) this.followed = batch.revision;
        if (batch.revision > this.current) this.current = batch.revision;
        this.caughtUp(batch.revision);
        this.advanced();
      }
    } catch (e) {
      if (this.stopped) return this.caughtUp(Infinity);
      if (e instanceof CompactedError && this.horizon < this.listedAt && (this.window.newest() ?? 0) <= this.listedAt) {
        // Less history than asked for: keep what the list gave and follow from there (or the compacted point).
        this.startWatch(Math.max(this.followed, Math.min(this.listedAt, Math.max(this.horizon, e.compactedRevision))));
        return;
      }
      this.caughtUp(Infinity);
      this.opts.log?.(`watch cache ${this.prefix}: ${e instanceof CompactedError ? 'store history compacted past the cache' : (e as Error).message}; relisting`);
      // Watchers cannot be carried across a relist (events in between are unknown): end them so clients rewatch.
      for (const w of [...this.watchers]) w.queue.fail(new TooOldResourceVersionError(this.current, this.current));
      this.readyPromise = this.relist();
      return;
    }
  }

  private async relist(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await this.sync();
        return;
      } catch (e) {
        this.opts.log?.(`watch cache ${this.prefix}: relist failed: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5000)));
      }
    }
  }

  private apply(e: StoreEvent) {
    if (e.kv.modRevision <= this.listedAt) return this.remember(e);
    const prev = this.objects.get(e.kv.key);
    let change: Change<T>;
    if (e.type === 'PUT') {
      const object = this.opts.decode(e.kv);
      change = { type: 'PUT', key: e.kv.key, object, prevObject: prev?.object ?? null, revision: e.kv.modRevision };
      if (!prev) this.sortedKeys.splice(lowerBound(this.sortedKeys, e.kv.key), 0, e.kv.key);
      this.objects.set(e.kv.key, { key: e.kv.key, object, revision: e.kv.modRevision, lease: e.kv.lease });
    } else {
      const last = prev?.object ?? (e.prevKv ? this.opts.decode(e.prevKv) : null);
      if (last === null) return; // nothing known to delete
      change = { type: 'DELETE', key: e.kv.key, object: last, prevObject: last, revision: e.kv.modRevision };
      this.objects.delete(e.kv.key);
      if (prev) this.sortedKeys.splice(lowerBound(this.sortedKeys, e.kv.key), 1);
    }
    this.record(change);
    this.current = change.revision;
    this.dispatch(change);
  }

  /**
   * A change from before the list (history replay): the list already holds its result, so `objects` does not
   * change; the window learns it, and so do the watchers from before it (weight 0, as the window's replay to a
   * watcher that registers later).
   */
  private remember(e: StoreEvent) {
    const revision = e.kv.modRevision;
    const prevObject = e.prevKv ? this.opts.decode(e.prevKv) : null;
    let change: Change<T>;
    if (e.type === 'PUT') change = { type: 'PUT', key: e.kv.key, object: this.opts.decode(e.kv), prevObject, revision };
    else if (prevObject) change = { type: 'DELETE', key: e.kv.key, object: prevObject, prevObject, revision };
    else {
      // A deletion whose last state the store no longer has (compacted away): it cannot be told to anyone, so
      // watches from before it are too old instead of missing it.
      this.horizon = Math.max(this.horizon, revision);
      this.expireWatchersBefore(revision);
      return;
    }
    this.record(change);
    this.dispatch(change, 0);
  }

  /** Watchers from before `revision` cannot be told what came before it: they get the 410 and relist. */
  private expireWatchersBefore(revision: number) {
    for (const w of [...this.watchers]) if (w.after < revision) w.queue.fail(new TooOldResourceVersionError(w.after, revision));
  }

  private record(change: Change<T>) {
    const evicted = this.window.push(change);
    if (evicted !== undefined) this.horizon = evicted;
  }

  /** One change as one watcher sees it through its filter (upstream's cacheWatcher conversion). */
  private deliver(w: Watcher<T>, c: Change<T>, weight = 1) {
    if (c.revision <= w.after) return;
    const item = changeAsSeen(c, w.filter);
    if (item) w.queue.push(item, weight);
  }

  private advanced() {
    if (this.freshWaiters.length === 0) return;
    for (const waiter of this.freshWaiters.filter((x) => x.revision <= this.current)) {
      this.freshWaiters.splice(this.freshWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}

/** One change as a watcher with this filter sees it (upstream's cacheWatcher conversion). */
export function changeAsSeen<T>(c: Change<T>, filter?: (object: T) => boolean): CacheEvent<T> | null {
  if (c.type === 'DELETE') {
    return !filter || filter(c.object) ? { type: 'DELETED', key: c.key, object: c.object, revision: c.revision } : null;
  }
  const now = !filter || filter(c.object);
  const before = c.prevObject !== null && (!filter || filter(c.prevObject));
  if (now && before) return { type: 'MODIFIED', key: c.key, object: c.object, revision: c.revision };
  if (now) return { type: 'ADDED', key: c.key, object: c.object, revision: c.revision };
  // Left the selection: a DELETED with the last state that matched.
  if (before) return { type: 'DELETED', key: c.key, object: c.prevObject!, revision: c.revision };
  return null;
}

/** Store keys compare as bytes (etcd's order); plain code-unit order agrees for the ASCII keys used here. */
function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The first index whose key is not below `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
