// An in-memory EventSink that behaves like the API server's events resource, for tests of the recorder and of
// anything that records events (the node agent's sync loop, controllers).
import type { CoreEvent, EventSink } from './types';

export interface SinkCall {
  verb: 'create' | 'patch';
  namespace: string;
  name: string;
  /** The event created, or the patch sent. */
  body: CoreEvent | Record<string, unknown>;
}

/** An error shaped like the client's ApiError: an HTTP status `code` and a Status `reason`. */
export function statusError(code: number, reason: string, message = reason): Error & { code: number; reason: string } {
  return Object.assign(new Error(message), { code, reason });
}

export class MemoryEventSink implements EventSink {
  readonly calls: SinkCall[] = [];
  private readonly stored = new Map<string, CoreEvent>();
  private readonly failures: Record<SinkCall['verb'], unknown[]> = { create: [], patch: [] };
  private resourceVersion = 0;

  /** The next calls of `verb` fail with these errors, one each, in order. */
  failNext(verb: SinkCall['verb'], ...errors: unknown[]): this {
    this.failures[verb].push(...errors);
    return this;
  }

  /** Events as stored, in creation order. */
  get events(): CoreEvent[] {
    return [...this.stored.values()];
  }

  get(namespace: string, name: string): CoreEvent | undefined {
    return this.stored.get(`${namespace}/${name}`);
  }

  /** Deletes a stored event, as the API server's event TTL does. */
  remove(namespace: string, name: string): void {
    this.stored.delete(`${namespace}/${name}`);
  }

  async create(namespace: string, event: CoreEvent): Promise<CoreEvent> {
    const name = event.metadata.name;
    this.calls.push({ verb: 'create', namespace, name, body: structuredClone(event) });
    this.throwIfScripted('create');
    if (this.stored.has(`${namespace}/${name}`)) throw statusError(409, 'AlreadyExists', `events "${name}" already exists`);
    return this.store({ ...event, metadata: { ...event.metadata, namespace } });
  }

  async patch(namespace: string, name: string, patch: Record<string, unknown>): Promise<CoreEvent> {
    this.calls.push({ verb: 'patch', namespace, name, body: structuredClone(patch) });
    this.throwIfScripted('patch');
    const existing = this.stored.get(`${namespace}/${name}`);
    if (!existing) throw statusError(404, 'NotFound', `events "${name}" not found`);
    return this.store({ ...existing, ...patch } as CoreEvent);
  }

  private throwIfScripted(verb: SinkCall['verb']): void {
    if (this.failures[verb].length > 0) throw this.failures[verb].shift();
  }

  private store(event: CoreEvent): CoreEvent {
    const stored = { ...event, metadata: { ...event.metadata, resourceVersion: String(++this.resourceVersion) } };
    this.stored.set(`${stored.metadata.namespace}/${stored.metadata.name}`, stored);
    return structuredClone(stored);
  }
}
