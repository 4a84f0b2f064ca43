// At most N requests of a client in flight at once; the rest wait in order. Over HTTP/1.1 each request in flight
// holds a connection, so this is the cap on the connections a client's requests open (watches do not take a
// slot: each holds its connection for its whole life, and a watch must never wait behind requests).
import { ClientClosedError } from './token-bucket';

/** client-go's MaxIdleConnsPerHost: the default cap on a client's requests in flight (watches aside). */
export const DEFAULT_MAX_CONNECTIONS = 25;

/** The slots for a client's maxConnections, as tokenBucketFor reads qps: 0 or unset means 25, negative means no cap (null). */
export function requestSlotsFor(maxConnections: number | undefined): RequestSlots | null {
  const cap = !maxConnections ? DEFAULT_MAX_CONNECTIONS : maxConnections;
  return cap < 0 ? null : new RequestSlots(cap);
}

export class RequestSlots {
  private free: number;
  private readonly waiting: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Resolves with the slot's release once one is free; rejects with ClientClosedError if `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new ClientClosedError());
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.resolve();
      else this.free++;
    };
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const entry = {
        resolve: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject,
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new ClientClosedError());
      };
      this.waiting.push(entry);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
