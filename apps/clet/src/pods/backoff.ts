// client-go's flowcontrol.Backoff as the kubelet uses it for crash loops and image pulls: the first
// retry is immediate, then 10s doubling to 5m; an entry older than 2x the maximum starts over.
export class Backoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();

  constructor(private readonly initialMs = 10_000, private readonly maxMs = 300_000, private readonly now: () => number = Date.now) {}

  /** True while `eventTime` (e.g. the last exit) is less than the current back-off ago. */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const e = this.entries.get(key);
    if (!e) return false;
    if (eventTime - e.lastUpdate > 2 * this.maxMs) return false;
    return this.now() - eventTime < e.backoffMs;
  }

  /** True while less than the current back-off has passed from the last recorded retry to `eventTime` (image pulls). */
  isInBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const e = this.entries.get(key);
    if (!e) return false;
    if (eventTime - e.lastUpdate > 2 * this.maxMs) return false;
    return eventTime - e.lastUpdate < e.backoffMs;
  }

  /** When `key` last recorded a retry (ms since epoch; 0 when none). */
  lastUpdate(key: string): number {
    return this.entries.get(key)?.lastUpdate ?? 0;
  }

  /** Current back-off of `key` in ms (0 when none). */
  get(key: string): number {
    return this.entries.get(key)?.backoffMs ?? 0;
  }

  /** Records a retry at `eventTime`: starts at the initial delay or doubles up to the maximum. */
  next(key: string, eventTime: number): void {
    const e = this.entries.get(key);
    if (!e || eventTime - e.lastUpdate > 2 * this.maxMs) {
      this.entries.set(key, { backoffMs: this.initialMs, lastUpdate: this.now() });
    } else {
      e.backoffMs = Math.min(e.backoffMs * 2, this.maxMs);
      e.lastUpdate = this.now();
    }
  }

  /** Drops entries untouched for 2x the maximum (upstream's periodic GC). */
  gc(): void {
    const now = this.now();
    for (const [k, e] of this.entries) if (now - e.lastUpdate > 2 * this.maxMs) this.entries.delete(k);
  }

  deletePrefix(prefix: string): void {
    for (const k of this.entries.keys()) if (k.startsWith(prefix)) this.entries.delete(k);
  }
}
