// EventAggregator (client-go tools/record/events_cache.go EventAggregate): similar events, ones that differ only in
// their message, are counted per object; from the maxEvents-th distinct message within the window on, each is
// replaced by one combined event, which then repeats (and is counted) like any other.
import { aggregateKeys, eventKey } from './event-keys';
import { LruCache } from './lru-cache';
import { EventNames, formatEventTime } from './make-event';
import type { CoreEvent } from './types';

export const COMBINED_MESSAGE_PREFIX = '(combined from similar events): ';

interface SimilarEvents {
  /** Distinct messages seen, at most maxEvents - 1 kept between events. */
  messages: Set<string>;
  lastSeenMs: number;
}

export interface Aggregated {
  event: CoreEvent;
  /** The repeat-counting key: the event's own key, or the aggregate key so every combined event counts as one. */
  key: string;
}

export class EventAggregator {
  private readonly similar: LruCache<SimilarEvents>;

  constructor(
    cacheSize: number,
    private readonly maxEvents: number,
    private readonly maxIntervalSeconds: number,
    private readonly names: EventNames,
  ) {
    this.similar = new LruCache(cacheSize);
  }

  aggregate(event: CoreEvent, now: Date): Aggregated {
    const nowMs = now.getTime();
    const { aggregateKey, localKey } = aggregateKeys(event);
    let record = this.similar.get(aggregateKey);
    // The window slides: it restarts only after maxIntervalSeconds with no similar event at all.
    if (!record || nowMs - record.lastSeenMs > this.maxIntervalSeconds * 1000) record = { messages: new Set(), lastSeenMs: nowMs };
    record.messages.add(localKey);
    record.lastSeenMs = nowMs;
    this.similar.set(aggregateKey, record);

    if (record.messages.size < this.maxEvents) return { event, key: eventKey(event) };

    // Keep the set one below the limit, so every further new message is combined too. Go drops an arbitrary
    // member; we drop the oldest, which is one of Go's possible outcomes and keeps tests deterministic.
    record.messages.delete(record.messages.values().next().value as string);

    const time = formatEventTime(now);
    const combined: CoreEvent = {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: this.names.next(event.involvedObject.name, now), namespace: event.metadata.namespace },
      involvedObject: event.involvedObject,
      reason: event.reason,
      message: COMBINED_MESSAGE_PREFIX + event.message,
      source: event.source,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
      type: event.type,
      eventTime: null,
      // Upstream builds the combined event without the reporting fields, so the API server sees them empty.
      reportingComponent: '',
      reportingInstance: '',
    };
    return { event: combined, key: aggregateKey };
  }
}
