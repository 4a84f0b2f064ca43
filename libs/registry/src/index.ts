export { WatchCache, TooOldResourceVersionError, TooLargeResourceVersionError, CacheWatcherOverflowError, DEFAULT_CAPACITY } from './watch-cache';
export type { CachedObject, CacheEvent, CacheWatch, CacheEventType, CacheWatchOptions, WatchCacheItem, WatchCacheOptions } from './watch-cache';
