// Expectations, as upstream's UIDTrackingControllerExpectations: after a ReplicaSet creates or deletes pods, it
// must not act again on a pod list that does not show those writes yet (the informer lags the API server), or it
// would create the same pods twice. A sync records how many creations it expects and which pods it expects to go;
// the pod informer's events count them off; until they are all seen (or five minutes pass, in case a watch event
// was lost) the ReplicaSet only updates its status.

/** Upstream's ExpectationsTimeout. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000;

interface Expectation {
  add: number;
  del: number;
  /** When it was set, for the timeout. */
  since: number;
}

export class PodExpectations {
  private readonly byKey = new Map<string, Expectation>();
  /** Pods ("namespace/name") each controller waits to see deleted, so a delete is counted once (a graceful delete shows twice). */
  private readonly deleting = new Map<string, Set<string>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** True when the controller of `key` may act: nothing expected, everything seen, or the expectation timed out. */
  satisfied(key: string): boolean {
    const e = this.byKey.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.now() - e.since > EXPECTATIONS_TIMEOUT_MS;
  }

  expectCreations(key: string, count: number): void {
    this.byKey.set(key, { add: count, del: 0, since: this.now() });
  }

  expectDeletions(key: string, podKeys: readonly string[]): void {
    this.deleting.set(key, new Set(podKeys));
    this.byKey.set(key, { add: 0, del: podKeys.length, since: this.now() });
  }

  creationObserved(key: string): void {
    const e = this.byKey.get(key);
    if (e) e.add--;
  }

  /** Counts the deletion of `podKey` if `key` was waiting for it. */
  deletionObserved(key: string, podKey: string): void {
    const pods = this.deleting.get(key);
    if (!pods?.delete(podKey)) return;
    const e = this.byKey.get(key);
    if (e) e.del--;
  }

  delete(key: string): void {
    this.byKey.delete(key);
    this.deleting.delete(key);
  }

  /** What is still awaited for `key` (tests, logs). */
  pending(key: string): { add: number; del: number } | undefined {
    const e = this.byKey.get(key);
    return e && { add: e.add, del: e.del };
  }
}
