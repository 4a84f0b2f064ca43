// A watch served straight from the store, for resources kept out of the watch cache. Upstream keeps events out of
// it (DefaultWatchCacheSizes: events#0): they are many, short-lived and almost never watched, so caching them costs
// every API server a decoded copy of each for an hour of TTL. Each such watch is its own store watch (one etcd
// watch upstream); it yields the same items as a watch on the cache, with the same errors.
import { BoundedQueue, CompactedError, type KeyValue, type Store, type StoreWatch } from '@cl/store';
import { CacheWatcherOverflowError, DEFAULT_MAX_BUFFERED, TooOldResourceVersionError, changeAsSeen, type CacheWatch, type CacheWatchOptions, type WatchCacheItem } from './watch-cache';

/** Pages of the initial list, so a large resource is never read in one store call. */
const PAGE = 500;

/** `onEnd` runs once when the watch ends, however it ends. */
export function watchFromStore<T>(store: Store, prefix: string, decode: (kv: KeyValue) => T, opts: CacheWatchOptions<T> = {}, onEnd: () => void = () => undefined): CacheWatch<T> {
  const limit = opts.maxBuffered ?? DEFAULT_MAX_BUFFERED;
  let storeWatch: StoreWatch | null = null;
  let timer: NodeJS.Timeout | null = null;
  const q = new BoundedQueue<WatchCacheItem<T>>(
    limit,
    () => new CacheWatcherOverflowError(limit),
    () => {
      storeWatch?.close();
      if (timer) clearInterval(timer);
      onEnd();
    },
  );
  const pass = (o: T) => !opts.filter || opts.filter(o);
  let current = 0;

  const run = async () => {
    let after = opts.afterRevision ?? 0;
    if (after === 0) {
      // The initial state, one snapshot read in pages. Weight 0 as on the cache: it is a list's worth of objects,
      // bounded by the resource; the limit is on live events a consumer leaves unread.
      let page = await store.range(prefix, { limit: PAGE });
      after = page.revision;
      for (;;) {
        for (const kv of page.kvs) {
          const object = decode(kv);
          if (pass(object)) q.push({ type: 'ADDED', key: kv.key, object, revision: kv.modRevision }, 0);
        }
        if (!page.more || q.closed) break;
        page = await store.range(prefix, { revision: after, limit: PAGE, startKey: page.kvs[page.kvs.length - 1].key + '\0' });
      }
      if (opts.initialEventsEnd) q.push({ type: 'BOOKMARK', revision: after, initialEventsEnd: true }, 0);
    }
    if (q.closed) return;
    current = after;
    const watch = store.watch(prefix, { afterRevision: after, progressIntervalMs: opts.bookmarkIntervalMs ? 1000 : undefined });
    storeWatch = watch;
    if (opts.bookmarkIntervalMs && opts.bookmarkIntervalMs > 0) {
      timer = setInterval(() => q.push({ type: 'BOOKMARK', revision: current }, 0), opts.bookmarkIntervalMs);
      timer.unref();
    }
    for await (const batch of watch) {
      for (const e of batch.events) {
        const prevObject = e.prevKv ? decode(e.prevKv) : null;
        const change =
          e.type === 'PUT'
            ? { type: 'PUT' as const, key: e.kv.key, object: decode(e.kv), prevObject, revision: e.kv.modRevision }
            : prevObject !== null
              ? { type: 'DELETE' as const, key: e.kv.key, object: prevObject, prevObject, revision: e.kv.modRevision }
              : null;
        const item = change && changeAsSeen(change, opts.filter);
        if (item && !q.push(item)) return;
      }
      current = Math.max(current, batch.revision);
    }
  };
  // The revision followed to (store progress included): a timed-out watch's last BOOKMARK carries it.
  Object.defineProperty(q, 'revision', { get: () => current });
  run().then(
    () => q.close(),
    // History compacted past the asked revision: upstream's 410 "too old resource version", as from the cache.
    (e: Error) => q.fail(e instanceof CompactedError ? new TooOldResourceVersionError(e.requestedRevision, e.compactedRevision) : e),
  );
  return q;
}
