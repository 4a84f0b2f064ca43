// An EventSink over the REST client: core/v1 events at /api/v1/namespaces/<ns>/events.
import type { CoreEvent, EventSink } from './types';

/** The two calls of the REST client the sink needs; a KubeClient has them. */
export interface EventWritingClient {
  create(path: string, body: unknown): Promise<unknown>;
  patch(path: string, body: unknown, type?: 'strategic' | 'merge' | 'json'): Promise<unknown>;
}

const eventsPath = (namespace: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`;

export function eventSinkFor(client: EventWritingClient): EventSink {
  return {
    create: async (namespace, event) => (await client.create(eventsPath(namespace), event)) as CoreEvent,
    // Events carry no patch merge keys that matter here, but client-go sends a strategic merge patch, so do we.
    patch: async (namespace, name, patch) => (await client.patch(`${eventsPath(namespace)}/${encodeURIComponent(name)}`, patch, 'strategic')) as CoreEvent,
  };
}
