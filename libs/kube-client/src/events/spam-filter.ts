// EventSourceObjectSpamFilter (client-go tools/record/events_cache.go): a source may send `burst` events about one
// object, then one per 1/qps seconds. It bounds the long tail of events about things that stay broken.
import { spamKey } from './event-keys';
import { LruCache } from './lru-cache';
import { PassiveTokenBucket } from './passive-token-bucket';
import type { CoreEvent } from './types';

export class SpamFilter {
  private readonly buckets: LruCache<PassiveTokenBucket>;

  constructor(cacheSize: number, private readonly burst: number, private readonly qps: number) {
    this.buckets = new LruCache(cacheSize);
  }

  /** True when the event is over its object's allowance and must be dropped. */
  shouldDrop(event: CoreEvent, nowMs: number): boolean {
    const key = spamKey(event);
    // An evicted object starts again with a full bucket, as upstream's LRU does.
    const bucket = this.buckets.get(key) ?? new PassiveTokenBucket(this.qps, this.burst);
    const drop = !bucket.tryAccept(nowMs);
    this.buckets.set(key, bucket);
    return drop;
  }
}
