// The event recorder: client-go's recorder + broadcaster + StartRecordingToSink in one (tools/record/event.go).
// event() only builds the event and queues it; one writer takes the queue in order, correlates each event and
// writes it with retries. One writer, as upstream: while the API server is away, events wait rather than pile
// up in parallel retries, and the correlator sees them in the order they happened.
import { setTimeout as sleepFor } from 'node:timers/promises';
import { EventCorrelator } from './correlator';
import { EventNames, makeEvent } from './make-event';
import { writeEventOnce } from './write-event';
import { describeError } from './write-errors';
import type { CoreEvent, EventLog, EventRecorder, EventRecorderOptions, EventSink, EventSource, EventType, ObjectReference } from './types';

export const RECORDER_DEFAULTS = {
  retryDelayMs: 10_000,
  maxTries: 12,
  /** Upstream's broadcaster channel (maxQueuedEvents). */
  queueLength: 1000,
} as const;

const EVENT_TYPES: ReadonlySet<string> = new Set<EventType>(['Normal', 'Warning']);

function logToStderr(msg: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${msg}${fields ? ' ' + JSON.stringify(fields) : ''}\n`);
}

/** A timer that does not keep the process alive and ends early (rejecting) when the recorder stops. */
const timerSleep = (ms: number, signal: AbortSignal) => sleepFor(ms, undefined, { signal, ref: false });

class QueuedEventRecorder implements EventRecorder {
  private readonly queue: CoreEvent[] = [];
  private writing: Promise<void> | undefined;
  private readonly stopping = new AbortController();
  private readonly stopped: Promise<void>;
  private readonly names = new EventNames();
  private readonly correlator: EventCorrelator;
  private readonly now: () => Date;
  private readonly log: EventLog;
  private readonly retryDelayMs: number;
  private readonly maxTries: number;
  private readonly queueLength: number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly sink: EventSink, private readonly source: EventSource, opts: EventRecorderOptions) {
    this.now = opts.now ?? (() => new Date());
    const log = opts.log ?? logToStderr;
    // A logger that throws must not turn event() into something that throws.
    this.log = (msg, fields) => {
      try {
        log(msg, fields);
      } catch {
        /* nowhere left to report it */
      }
    };
    this.retryDelayMs = opts.retryDelayMs ?? RECORDER_DEFAULTS.retryDelayMs;
    this.maxTries = opts.maxTries ?? RECORDER_DEFAULTS.maxTries;
    this.queueLength = opts.queueLength ?? RECORDER_DEFAULTS.queueLength;
    this.sleep = opts.sleep ?? timerSleep;
    this.correlator = new EventCorrelator(opts.correlator ?? {}, this.names);
    this.stopped = new Promise((resolve) => this.stopping.signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  event(ref: ObjectReference, type: EventType, reason: string, message: string): void {
    try {
      if (typeof ref !== 'object' || ref === null) {
        this.log('Could not construct reference, will not report event', { type, reason, message });
        return;
      }
      if (!EVENT_TYPES.has(type)) {
        this.log('Unsupported event type', { eventType: type });
        return;
      }
      const event = makeEvent({ ref, type, reason, message }, this.source, this.now(), this.names);
      if (this.stopping.signal.aborted) {
        this.log('Unable to record event: the recorder is stopped, dropped event', { event });
        return;
      }
      if (this.queue.length >= this.queueLength) {
        this.log('Unable to record event: too many queued events, dropped event', { event });
        return;
      }
      this.queue.push(event);
      this.writing ??= this.writeQueued();
    } catch (err) {
      this.log('Unable to record event (will not retry!)', { error: describeError(err) });
    }
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.flush();
  }

  private async writeQueued(): Promise<void> {
    // Start on a later turn, so event() returns before any sink call begins.
    await Promise.resolve();
    try {
      for (let event = this.queue.shift(); event; event = this.queue.shift()) await this.writeWithRetries(event);
    } finally {
      this.writing = undefined;
    }
  }

  /** client-go's recordToSink: correlate, then try up to maxTries times, pausing between tries. */
  private async writeWithRetries(queued: CoreEvent): Promise<void> {
    try {
      const correlation = this.correlator.correlate(queued, this.now());
      if (correlation.skip) return;
      for (let tries = 1; ; tries++) {
        if (await writeEventOnce(this.sink, correlation, this.correlator, this.log)) return;
        if (tries >= this.maxTries) {
          this.log('Unable to write event (retry limit exceeded!)', { event: queued });
          return;
        }
        if (!(await this.pause(tries))) {
          this.log('Unable to write event (the recorder is stopped)', { event: queued });
          return;
        }
      }
    } catch (err) {
      // Only a bug can land here; one bad event must not stop the writer for all later ones.
      this.log('Unable to write event (will not retry!)', { event: queued, error: describeError(err) });
    }
  }

  /** Waits before the next try; false when the recorder stopped (before or during the wait). */
  private async pause(triesSoFar: number): Promise<boolean> {
    if (this.stopping.signal.aborted) return false;
    // The first pause is random so that clients that lost the API server together do not come back together.
    const delay = triesSoFar === 1 ? this.retryDelayMs * Math.random() : this.retryDelayMs;
    await Promise.race([this.sleep(delay, this.stopping.signal).catch(() => undefined), this.stopped]);
    return !this.stopping.signal.aborted;
  }
}

/**
 * A recorder of core/v1 events for `source` (the kubelet: `{ component: 'kubelet', host: nodeName }`), with
 * client-go's correlation (aggregation, repeat counts, spam filter) and retries.
 */
export function createEventRecorder(sink: EventSink, source: EventSource, opts: EventRecorderOptions = {}): EventRecorder {
  return new QueuedEventRecorder(sink, source, opts);
}
