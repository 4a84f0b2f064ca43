// The API server's `store` health check, as upstream's etcd check: a probe with a 2 s deadline, at most one
// probe per half deadline (callers in between get the last result), and the cause wrapped the way upstream
// words it, so the per-check endpoint shows `error getting data from store: <cause>`.
import type { Store } from './store';

export interface StoreHealthCheckOptions {
  timeoutMs?: number;
  now?: () => number;
}

export function storeHealthCheck(store: Store, opts: StoreHealthCheckOptions = {}) {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const now = opts.now ?? Date.now;
  let lastProbe = -Infinity;
  let lastError: Error | null = null;
  let inFlight: Promise<void> | null = null;

  const probe = async () => {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      await store.ping(abort.signal);
      lastError = null;
    } catch (e) {
      lastError = new Error(`error getting data from store: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
    }
  };

  const verdict = () => {
    if (lastError) throw lastError;
  };
  return {
    name: 'store',
    // Synchronous between probes (the common case): health requests run every check on every call.
    check(): Promise<void> | void {
      if (now() - lastProbe >= timeoutMs / 2) {
        lastProbe = now();
        inFlight ??= probe().finally(() => (inFlight = null));
      }
      if (inFlight) return inFlight.then(verdict);
      verdict();
    },
  };
}
