// The three ways client-go's correlator groups events (tools/record/events_cache.go: getEventKey,
// getSpamKey, EventAggregatorByReasonFunc).
import type { CoreEvent } from './types';

// client-go joins the fields with no separator; a NUL keeps "ab"+"c" apart from "a"+"bc" and changes nothing else.
const join = (parts: ReadonlyArray<string | undefined>): string => parts.map((p) => p ?? '').join('\u0000');

/** The same event again: every field a reader can tell apart, message included. Repeats of it become count patches. */
export function eventKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.fieldPath, o.uid, o.apiVersion, e.type, e.reason, e.message]);
}

/** One token bucket per source, object and type: the spam filter's unit (no reason, no field path). */
export function spamKey(e: CoreEvent): string {
  const o = e.involvedObject;
  return join([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type]);
}

/**
 * Similar events: everything but the message (and the field path), so ten different messages with one reason
 * about one object are combined. `localKey` is what tells the similar events apart.
 */
export function aggregateKeys(e: CoreEvent): { aggregateKey: string; localKey: string } {
  const o = e.involvedObject;
  const aggregateKey = join([e.source.component, e.source.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion, e.type, e.reason, e.reportingComponent, e.reportingInstance]);
  return { aggregateKey, localKey: e.message };
}
