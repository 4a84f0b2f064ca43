// EventCorrelator (client-go tools/record/events_cache.go EventCorrelate): aggregate similar events, count
// repeats, then drop what is over the object's spam allowance. The order matters: the allowance is spent on the
// event as it will be written, and a dropped repeat has still been counted.
import { EventAggregator } from './event-aggregator';
import { EventDeduplicator } from './event-deduplicator';
import { EventNames } from './make-event';
import { SpamFilter } from './spam-filter';
import type { CoreEvent, CorrelatorOptions } from './types';

export const CORRELATOR_DEFAULTS: Required<CorrelatorOptions> = {
  lruCacheSize: 4096,
  spamBurst: 25,
  spamQps: 1 / 300,
  maxEvents: 10,
  maxIntervalSeconds: 600,
};

export type Correlation = { skip: true } | { skip: false; event: CoreEvent; patch?: Record<string, unknown> };

export class EventCorrelator {
  private readonly aggregator: EventAggregator;
  private readonly deduplicator: EventDeduplicator;
  private readonly spamFilter: SpamFilter;

  constructor(options: CorrelatorOptions, names: EventNames) {
    // As upstream's populateDefaults: an unset (or zero) option takes the default.
    const o = { ...CORRELATOR_DEFAULTS };
    for (const [k, v] of Object.entries(options) as Array<[keyof CorrelatorOptions, number | undefined]>) if (v) o[k] = v;
    this.aggregator = new EventAggregator(o.lruCacheSize, o.maxEvents, o.maxIntervalSeconds, names);
    this.deduplicator = new EventDeduplicator(o.lruCacheSize);
    this.spamFilter = new SpamFilter(o.lruCacheSize, o.spamBurst, o.spamQps);
  }

  correlate(event: CoreEvent, now: Date): Correlation {
    const aggregated = this.aggregator.aggregate(event, now);
    const observed = this.deduplicator.observe(aggregated.event, aggregated.key);
    if (this.spamFilter.shouldDrop(observed.event, now.getTime())) return { skip: true };
    return { skip: false, ...observed };
  }

  /** After a write: the server's copy of the event. */
  recordWritten(written: CoreEvent): void {
    this.deduplicator.recordWritten(written);
  }
}
