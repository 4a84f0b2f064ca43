// Periodic compaction as kube-apiserver does it (--etcd-compaction-interval): each tick compacts the history up
// to the revision seen at the previous tick, so a watcher always has at least one interval to catch up. Several
// API servers on one etcd agree through a compare-and-swap on one key: the first to advance it compacts, the
// others see the conflict and only note where the key now stands.
import { CompactedError, ConflictError, type Store } from './store';

/** Upstream's key, kept under the store prefix with everything else. */
export const COMPACT_REVISION_KEY = '/compact_rev_key';

export interface Compactor {
  /** One tick, as the timer runs it: claim this interval, and compact to the previous tick's revision if claimed. */
  tick(): Promise<void>;
  stop(): void;
}

export interface CompactorOptions {
  intervalMs: number;
  log?: (line: string) => void;
}

export function startCompactor(store: Store, opts: CompactorOptions): Compactor {
  // The compact key's revision as last seen (the compare in the swap; 0, "absent", until a swap tells otherwise,
  // so a second API server's first tick loses to the first's), and the store revision of the last tick.
  let keyRevision = 0;
  let previousTick = 0;
  let running: Promise<void> | null = null;

  const claim = async (): Promise<void> => {
    let revision: number;
    try {
      revision = (await store.put(COMPACT_REVISION_KEY, String(previousTick), { expectedRevision: keyRevision })).revision;
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
      // Another API server compacted this interval: follow its key and start counting from now.
      keyRevision = e.actualRevision;
      previousTick = (await store.count(COMPACT_REVISION_KEY)).revision;
      return;
    }
    keyRevision = revision;
    const target = previousTick;
    previousTick = revision;
    if (target === 0) return;
    try {
      await store.compact(target);
      opts.log?.(`store: compacted history up to revision ${target}`);
    } catch (e) {
      if (!(e instanceof CompactedError)) throw e;
    }
  };

  const tick = () => {
    running ??= claim()
      .catch((e) => opts.log?.(`store: compaction failed: ${(e as Error).message}`))
      .finally(() => (running = null));
    return running;
  };

  const timer = opts.intervalMs > 0 ? setInterval(() => void tick(), opts.intervalMs) : null;
  timer?.unref();
  return {
    tick,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
