// The shapes of the core/v1 event recorder (k8s.io/client-go/tools/record): what callers hand in, what goes to
// the API server, and where it goes.

export type EventType = 'Normal' | 'Warning';

/** core/v1 ObjectReference: the object an event is about. */
export interface ObjectReference {
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
  /** Which part of the object, e.g. `spec.containers{nginx}` for a container's events. */
  fieldPath?: string;
}

/** core/v1 EventSource: who reports. The kubelet uses `{ component: 'kubelet', host: <node name> }`. */
export interface EventSource {
  component: string;
  host?: string;
}

/** The core/v1 Event fields the recorder writes, in the order Go serialises them. */
export interface CoreEvent {
  kind: 'Event';
  apiVersion: 'v1';
  metadata: { name: string; namespace: string; resourceVersion?: string; uid?: string };
  involvedObject: ObjectReference;
  reason: string;
  message: string;
  source: { component?: string; host?: string };
  /** RFC 3339 in whole seconds, as metav1.Time. */
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  count: number;
  type: string;
  /** Always null from this recorder: eventTime belongs to events.k8s.io/v1 events. */
  eventTime: string | null;
  reportingComponent: string;
  reportingInstance: string;
}

/** Where events go: core/v1 events of the API server. Errors with a numeric `code` are HTTP statuses. */
export interface EventSink {
  create(namespace: string, event: CoreEvent): Promise<CoreEvent>;
  /** A strategic merge patch of an existing event. */
  patch(namespace: string, name: string, patch: Record<string, unknown>): Promise<CoreEvent>;
}

export interface EventRecorder {
  /** Queues an event about `ref`. Never throws and never waits: a full queue or a stopped recorder drops it with a log line. */
  event(ref: ObjectReference, type: EventType, reason: string, message: string): void;
  /** Resolves when every queued event has been written or given up on (for tests and shutdown). */
  flush(): Promise<void>;
  /** Stops taking events; the queued ones get one try each, without waiting between tries. */
  stop(): Promise<void>;
}

/** client-go's CorrelatorOptions without the pluggable key functions; each unset field takes client-go's default. */
export interface CorrelatorOptions {
  /** Entries of each of the three caches (aggregation, repeat counts, spam buckets). Default 4096. */
  lruCacheSize?: number;
  /** Events a source may send about one object at once. Default 25. */
  spamBurst?: number;
  /** Refill of that allowance, events per second. Default 1/300 (one every five minutes). */
  spamQps?: number;
  /** Distinct messages of similar events before they are combined into one. Default 10. */
  maxEvents?: number;
  /** How long after the last similar event the count of distinct messages starts again. Default 600. */
  maxIntervalSeconds?: number;
}

export type EventLog = (msg: string, fields?: Record<string, unknown>) => void;

export interface EventRecorderOptions {
  /** The clock for timestamps, names, aggregation windows and spam buckets. */
  now?: () => Date;
  log?: EventLog;
  /** Pause between tries of one event; the first pause is a random part of it. Default 10 000. */
  retryDelayMs?: number;
  /** Tries per event before it is given up. Default 12. */
  maxTries?: number;
  /** Events waiting to be written before new ones are dropped. Default 1000. */
  queueLength?: number;
  /** How to wait between tries; resolves early or rejects when `signal` aborts (on stop). Default: a timer. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  correlator?: CorrelatorOptions;
}
