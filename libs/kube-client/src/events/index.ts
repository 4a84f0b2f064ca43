// Core/v1 events as client-go's record package writes them: the recorder, the sink over the REST client, and an
// in-memory sink for tests.
export { createEventRecorder, RECORDER_DEFAULTS } from './recorder';
export { eventSinkFor } from './event-sink';
export type { EventWritingClient } from './event-sink';
export { CORRELATOR_DEFAULTS } from './correlator';
export { COMBINED_MESSAGE_PREFIX } from './event-aggregator';
export { MemoryEventSink, statusError } from './memory-event-sink';
export type { SinkCall } from './memory-event-sink';
export type { CoreEvent, CorrelatorOptions, EventLog, EventRecorder, EventRecorderOptions, EventSink, EventSource, EventType, ObjectReference } from './types';
