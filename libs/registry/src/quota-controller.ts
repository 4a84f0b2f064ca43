// The resource quota controller of this server (upstream's runs in kube-controller-manager): it keeps every
// ResourceQuota's status.hard equal to spec.hard and status.used equal to what the namespace's objects use. The
// ResourceQuota admission plugin raises usage on create; this controller is what lowers it again. A namespace's
// quotas are recomputed when a quota is created or its limits change, when an object they may count is deleted,
// when a pod finishes or its deletion grace period runs out, and on a periodic resync. It reads the watch caches
// only, and writes status with the quota's resourceVersion, so it never overwrites a newer admission write.
import type { KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from './resource-store';
import { evaluatorFor, podCountsForCompute, quotaUsage, toResourceList, type QuotaEvaluator, type QuotaObject } from './admission-plugins/quota-evaluation';
import { resourceTotals } from './kinds/pod-resources';

export interface QuotaController {
  /** Recomputes every quota now (tests; the controller also runs on its own). */
  syncAll(): Promise<void>;
  stop(): void;
}

export interface QuotaControllerOptions {
  /** How often every quota is recomputed regardless of events (upstream's --resource-quota-sync-period is 5 min). */
  resyncMs?: number;
  /** Changes arriving within this window are recomputed together. */
  debounceMs?: number;
  now?: () => number;
}

const DEFAULT_RESYNC_MS = 30_000;

const namespaceOf = (o: KubeObject) => o.metadata?.namespace ?? '';

/** Equal as resource lists: the same names with equal quantities, whatever their spelling. */
function sameUsage(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  if (!a || !b) return a === b;
  const x = resourceTotals(a);
  const y = resourceTotals(b);
  if (x.size !== y.size || Object.keys(a).length !== Object.keys(b).length) return false;
  for (const [k, q] of x) {
    const other = y.get(k);
    if (!other || other.cmp(q) !== 0) return false;
  }
  return true;
}

export function startQuotaController(quotas: ResourceStore, stores: readonly ResourceStore[], log: (line: string) => void = () => undefined, opts: QuotaControllerOptions = {}): QuotaController {
  const now = opts.now ?? Date.now;
  const counted: Array<[QuotaEvaluator, ResourceStore]> = [];
  for (const s of stores) {
    if (!s.def.namespaced) continue;
    const evaluator = evaluatorFor(s.gr);
    if (evaluator) counted.push([evaluator, s]);
  }

  const quotasIn = (namespace: string) => quotas.cache.list(quotas.key(namespace, '')).items.map((i) => i.object as QuotaObject);
  let stopped = false;
  const dirty = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const graceTimers = new Map<string, NodeJS.Timeout>();

  const syncQuota = async (q: QuotaObject): Promise<void> => {
    const namespace = namespaceOf(q);
    const hard = q.spec?.hard ?? {};
    const names = Object.keys(hard);
    const objects: Array<[QuotaEvaluator, KubeObject[]]> = counted
      .filter(([e]) => e.matchingResources(names).length)
      .map(([e, s]) => [e, s.cache.list(s.key(namespace, '')).items.map((i) => i.object)]);
    const used = toResourceList(quotaUsage(q, objects, now()));
    if (sameUsage(q.status?.hard, hard) && sameUsage(q.status?.used, used)) return;
    await quotas.update(
      namespace,
      q.metadata!.name!,
      // At the version read: a status the admission plugin wrote since is newer than this computation.
      (current) => ({ ...current!, metadata: { ...current!.metadata, resourceVersion: q.metadata?.resourceVersion }, status: { hard: { ...hard }, used } }),
      { subresource: 'status' },
    );
  };

  const syncNamespace = async (namespace: string) => {
    for (const q of quotasIn(namespace)) {
      try {
        await syncQuota(q);
      } catch (e) {
        const err = e as Error & { code?: number };
        // 409: written meanwhile (its new version comes through the watch); 404: deleted meanwhile.
        if (err.code === 409) enqueue(namespace);
        else if (err.code !== 404) {
          log(`quota controller: ${namespace}/${q.metadata?.name}: ${err.message}`);
          enqueue(namespace, 1000);
        }
      }
    }
  };

  const drain = async () => {
    while (dirty.size && !stopped) {
      const batch = [...dirty];
      dirty.clear();
      for (const namespace of batch) await syncNamespace(namespace);
    }
  };

  const run = () => {
    running ??= drain().finally(() => {
      running = null;
      if (dirty.size && !stopped) schedule(opts.debounceMs ?? 20);
    });
    return running;
  };

  function schedule(delay: number) {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void run();
    }, delay);
    timer.unref();
  }

  function enqueue(namespace: string, delay = opts.debounceMs ?? 20) {
    dirty.add(namespace);
    schedule(delay);
  }

  const enqueueAll = () => {
    for (const { object } of quotas.cache.list().items) dirty.add(namespaceOf(object));
    schedule(0);
  };

  // A pod being deleted stops counting once its grace period has run out; nothing else happens then, so wake up.
  const watchGrace = (pod: KubeObject) => {
    const meta = pod.metadata;
    if (!meta?.deletionTimestamp || meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds === null) return;
    const key = `${namespaceOf(pod)}/${meta.name}`;
    if (graceTimers.has(key)) return;
    const at = Date.parse(meta.deletionTimestamp) + meta.deletionGracePeriodSeconds * 1000 + 1000;
    const t = setTimeout(() => {
      graceTimers.delete(key);
      enqueue(namespaceOf(pod));
    }, Math.max(0, at - now()));
    t.unref();
    graceTimers.set(key, t);
  };

  const hasQuotas = (namespace: string) => quotas.cache.list(quotas.key(namespace, '')).items.length > 0;
  const needsSync = (q: QuotaObject) => !q.status?.used || !sameUsage(q.status?.hard, q.spec?.hard ?? {});

  const watches = new Set<{ close(): void }>();
  const follow = async (store: ResourceStore, onEvent: (type: string, object: KubeObject) => void, filter?: (o: KubeObject) => boolean) => {
    while (!stopped) {
      await store.start();
      const w = store.cache.watch({ afterRevision: store.cache.revision || undefined, filter });
      watches.add(w);
      try {
        for await (const ev of w) if (ev.type !== 'BOOKMARK') onEvent(ev.type, ev.object);
      } catch {
        // The cache ended the watch (a relist): resync, then watch again.
        enqueueAll();
      } finally {
        watches.delete(w);
      }
    }
  };

  void follow(quotas, (type, q) => {
    if (type !== 'DELETED' && needsSync(q as QuotaObject)) enqueue(namespaceOf(q));
  });
  for (const [evaluator, store] of counted) {
    if (store === quotas) continue;
    const isPods = evaluator.resource.resource === 'pods' && evaluator.resource.group === '';
    // Only objects in namespaces with quotas reach the controller; creates are accounted for by admission.
    void follow(
      store,
      (type, o) => {
        if (type === 'DELETED') enqueue(namespaceOf(o));
        else if (isPods && type === 'MODIFIED') {
          if (!podCountsForCompute(o, now())) enqueue(namespaceOf(o));
          watchGrace(o);
        }
      },
      (o) => hasQuotas(namespaceOf(o)),
    );
  }

  void quotas.start().then(enqueueAll);
  const resync = setInterval(enqueueAll, opts.resyncMs ?? DEFAULT_RESYNC_MS);
  resync.unref();

  return {
    async syncAll() {
      await quotas.start();
      enqueueAll();
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      await run();
    },
    stop() {
      stopped = true;
      clearInterval(resync);
      if (timer) clearTimeout(timer);
      for (const t of graceTimers.values()) clearTimeout(t);
      for (const w of watches) w.close();
    },
  };
}
