// client-go's eventLogger (tools/record/events_cache.go eventObserve, updateState): an event seen before is
// written as a patch of the first one's count, lastTimestamp and message, so a crash-looping container makes one
// event with a rising count instead of thousands.
import { eventKey } from './event-keys';
import { LruCache } from './lru-cache';
import type { CoreEvent } from './types';

interface Observation {
  count: number;
  firstTimestamp: string | null;
  name: string;
}

export interface Observed {
  event: CoreEvent;
  /** Set when the event repeats one already written: the strategic merge patch for it. */
  patch?: Record<string, unknown>;
}

const EPOCH = '1970-01-01T00:00:00Z';

/**
 * Upstream diffs the event against a copy with count 0, lastTimestamp at the epoch and no message, so the patch
 * holds exactly those three fields (a field equal to its blank stays out, as in the two-way merge patch).
 */
function countPatch(event: CoreEvent): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (event.count !== 0) patch['count'] = event.count;
  if (event.lastTimestamp !== EPOCH) patch['lastTimestamp'] = event.lastTimestamp;
  if (event.message) patch['message'] = event.message;
  return patch;
}

export class EventDeduplicator {
  private readonly seen: LruCache<Observation>;

  constructor(cacheSize: number) {
    this.seen = new LruCache(cacheSize);
  }

  observe(incoming: CoreEvent, key: string): Observed {
    const last = this.seen.get(key);
    let event = incoming;
    let patch: Record<string, unknown> | undefined;
    if (last && last.count > 0) {
      event = {
        ...incoming,
        metadata: { ...incoming.metadata, name: last.name },
        firstTimestamp: last.firstTimestamp,
        count: last.count + 1,
      };
      patch = countPatch(event);
    }
    // Counted now, before the spam filter and the write: a dropped or failed repeat still raises the next count.
    this.seen.set(key, { count: event.count, firstTimestamp: event.firstTimestamp, name: event.metadata.name });
    return patch ? { event, patch } : { event };
  }

  /** Takes the API server's copy as the truth for its key (its name and count). */
  recordWritten(written: CoreEvent): void {
    // A sink that answers with something other than an event must not break the recorder.
    if (!written || typeof written !== 'object' || !written.metadata || !written.involvedObject || !written.source) return;
    this.seen.set(eventKey(written), { count: written.count ?? 0, firstTimestamp: written.firstTimestamp ?? null, name: written.metadata.name });
  }
}
