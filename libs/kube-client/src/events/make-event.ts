// Building a fresh core/v1 Event the way client-go's recorder does (tools/record/event.go makeEvent and
// generateEvent, tools/record/util GenerateEventName).
import { randomUUID } from 'node:crypto';
import type { CoreEvent, EventSource, EventType, ObjectReference } from './types';

/** metav1.Time on the wire: RFC 3339 in UTC, whole seconds. */
export function formatEventTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/**
 * Event names: `<object name>.<hex of the time in nanoseconds>`, or a UUID when that is not a valid name
 * (kubernetes#127594: an object whose name is no DNS subdomain would otherwise never get events).
 */
export class EventNames {
  private lastNanos = -1n;

  next(objectName: string, at: Date): string {
    // Go's clock has nanoseconds, so two events about one object never share a name; ours has milliseconds, and
    // the kubelet easily reports twice about a pod within one. A collision would be lost to AlreadyExists, so a
    // name never repeats a nanosecond this recorder has used: the next free one is taken instead.
    let nanos = BigInt(at.getTime()) * 1_000_000n;
    if (nanos <= this.lastNanos) nanos = this.lastNanos + 1n;
    this.lastNanos = nanos;
    const name = `${objectName}.${nanos.toString(16)}`;
    return name.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && DNS1123_SUBDOMAIN.test(name) ? name : randomUUID();
  }
}

/** The reference as Go serialises it: field order kept, empty fields left out. */
export function copyReference(ref: ObjectReference): ObjectReference {
  const out: Record<string, string> = {};
  for (const field of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const) {
    const value = ref[field];
    if (value) out[field] = value;
  }
  return out as unknown as ObjectReference;
}

export function eventSourceJson(source: EventSource): CoreEvent['source'] {
  return { ...(source.component ? { component: source.component } : {}), ...(source.host ? { host: source.host } : {}) };
}

export interface EventFacts {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

/** A new event: count 1, first = last timestamp, in the object's namespace (`default` for cluster-scoped objects). */
export function makeEvent(facts: EventFacts, source: EventSource, at: Date, names: EventNames): CoreEvent {
  const time = formatEventTime(at);
  return {
    kind: 'Event',
    apiVersion: 'v1',
    metadata: { name: names.next(facts.ref.name, at), namespace: facts.ref.namespace || 'default' },
    involvedObject: copyReference(facts.ref),
    reason: facts.reason,
    message: facts.message,
    source: eventSourceJson(source),
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
    type: facts.type,
    eventTime: null,
    // The recorder reports as its source (event.go generateEvent); the aggregator's combined event does not.
    reportingComponent: source.component,
    reportingInstance: source.host ?? '',
  };
}
