// One try at writing a correlated event (client-go tools/record/event.go recordEvent).
import type { EventCorrelator } from './correlator';
import { describeError, isNotFound, judgeWriteError } from './write-errors';
import type { CoreEvent, EventLog, EventSink } from './types';

export interface PendingWrite {
  event: CoreEvent;
  patch?: Record<string, unknown>;
}

/** Sinks are called through this so one that throws instead of rejecting is still just a failed write. */
async function call<T>(write: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; err: unknown }> {
  try {
    return { ok: true, value: await write() };
  } catch (err) {
    return { ok: false, err };
  }
}

/** Resolves true when the event is written or will never be; false when another try may succeed. */
export async function writeEventOnce(sink: EventSink, pending: PendingWrite, correlator: EventCorrelator, log: EventLog): Promise<boolean> {
  const { event, patch } = pending;
  const namespace = event.metadata.namespace;
  // A repeat (count above 1) patches the event it repeats; if that one is gone (deleted, or expired after the
  // API server's event TTL) it is created again under the same name, carrying its count and first timestamp.
  let result = event.count > 1 && patch ? await call(() => sink.patch(namespace, event.metadata.name, patch)) : undefined;
  if (!result || (!result.ok && isNotFound(result.err))) {
    const { resourceVersion: _rv, ...metadata } = event.metadata;
    result = await call(() => sink.create(namespace, { ...event, metadata }));
  }
  if (result.ok) {
    correlator.recordWritten(result.value);
    return true;
  }
  switch (judgeWriteError(result.err)) {
    case 'give-up-quietly':
      return true;
    case 'give-up':
      log('Server rejected event (will not retry!)', { event, error: describeError(result.err) });
      return true;
    case 'retry':
      log('Unable to write event (may retry after sleeping)', { event, error: describeError(result.err) });
      return false;
  }
}
