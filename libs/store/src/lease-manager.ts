// Keys with a time to live (events, `--event-ttl`) without a lease per key: as kube-apiserver's lease manager, a
// lease is shared by the keys written within a short window, granted a little longer than asked (the window, at
// most a minute or 5% of the TTL) so every key attached to it lives at least its TTL.
import type { Store } from './store';

export interface LeaseManagerOptions {
  /** Longest reuse window in seconds (upstream: 60). */
  reuseDurationSeconds?: number;
  /** Reuse window as a fraction of the TTL (upstream: 0.05). */
  reuseDurationPercent?: number;
  /** Keys per lease before a new one is granted (upstream: 1000). */
  maxKeysPerLease?: number;
  now?: () => number;
}

interface Current {
  id: number;
  expiresAt: number;
  keys: number;
}

export class LeaseManager {
  private readonly byTtl = new Map<number, Current>();
  private readonly granting = new Map<number, Promise<number>>();

  constructor(
    private readonly store: Store,
    private readonly opts: LeaseManagerOptions = {},
  ) {}

  /** A lease under which a key written now lives at least `ttlSeconds` (and at most the reuse window longer). */
  async leaseFor(ttlSeconds: number): Promise<number> {
    const now = (this.opts.now ?? Date.now)();
    const reuse = Math.min(this.opts.reuseDurationSeconds ?? 60, Math.floor(ttlSeconds * (this.opts.reuseDurationPercent ?? 0.05)));
    const cur = this.byTtl.get(ttlSeconds);
    const valid = cur && now + ttlSeconds * 1000 < cur.expiresAt;
    const sufficient = cur && now + (ttlSeconds + reuse) * 1000 > cur.expiresAt;
    if (cur && valid && sufficient && cur.keys < (this.opts.maxKeysPerLease ?? 1000)) {
      cur.keys++;
      return cur.id;
    }
    // One grant at a time per TTL: concurrent writers share it instead of each granting their own.
    let pending = this.granting.get(ttlSeconds);
    if (!pending) {
      pending = this.store.grantLease(ttlSeconds + reuse).then(
        (id) => {
          this.byTtl.set(ttlSeconds, { id, expiresAt: now + (ttlSeconds + reuse) * 1000, keys: 0 });
          return id;
        },
      );
      pending.finally(() => this.granting.delete(ttlSeconds)).catch(() => undefined);
      this.granting.set(ttlSeconds, pending);
    }
    const id = await pending;
    const granted = this.byTtl.get(ttlSeconds);
    if (granted?.id === id) granted.keys++;
    return id;
  }
}
