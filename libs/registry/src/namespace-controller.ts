// The namespace controller of this server (upstream's lives in kube-controller-manager): a Terminating namespace
// is emptied resource by resource, then its `kubernetes` finalizer is cleared through /finalize and it is
// deleted again, which removes it. It follows the namespaces watch cache and retries with back-off while
// objects with finalizers of their own remain.
import type { KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from './resource-store';
import { NAMESPACE_FINALIZER } from './kinds/namespaces';

export interface NamespaceController {
  stop(): void;
}

export function startNamespaceController(namespaces: ResourceStore, all: readonly ResourceStore[], log: (line: string) => void = () => undefined): NamespaceController {
  const namespaced = all.filter((s) => s.def.namespaced);
  const working = new Set<string>();
  const retries = new Map<string, NodeJS.Timeout>();
  let stopped = false;

  const finalize = async (name: string) => {
    let remaining = 0;
    for (const store of namespaced) {
      const deleted = await store.deleteCollection(name, {}, { propagationPolicy: 'Background' });
      const left = (await store.list(name, {})).items.length;
      if (deleted.length) log(`namespace ${name}: deleted ${deleted.length} ${store.def.plural}`);
      remaining += left;
    }
    if (remaining > 0) return false;
    await namespaces.update('', name, (current) => {
      const ns = current as KubeObject & { spec?: { finalizers?: string[] } };
      return { ...ns, spec: { ...ns.spec, finalizers: (ns.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) } };
    }, { subresource: 'finalize' });
    await namespaces.delete('', name).catch((e: { code?: number }) => {
      if (e.code !== 404) throw e;
    });
    log(`namespace ${name}: removed`);
    return true;
  };

  const handle = (name: string, attempt = 0) => {
    if (stopped || working.has(name)) return;
    working.add(name);
    finalize(name)
      .then((done) => (done ? undefined : retry(name, attempt)))
      .catch((e: Error & { code?: number }) => {
        if (e.code !== 404) {
          log(`namespace ${name}: ${e.message}`);
          retry(name, attempt);
        }
      })
      .finally(() => working.delete(name));
  };

  const retry = (name: string, attempt: number) => {
    if (stopped) return;
    clearTimeout(retries.get(name));
    const t = setTimeout(() => handle(name, attempt + 1), Math.min(100 * 2 ** attempt, 10_000));
    t.unref();
    retries.set(name, t);
  };

  const terminating = (o: KubeObject) => !!o.metadata?.deletionTimestamp && ((o as { spec?: { finalizers?: string[] } }).spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER);

  // Follows the namespaces; a watch the cache ends (a relist) is started again and replays every namespace.
  let watch: ReturnType<typeof namespaces.cache.watch> | null = null;
  const follow = async () => {
    while (!stopped) {
      await namespaces.start();
      watch = namespaces.cache.watch({});
      try {
        for await (const ev of watch) if (ev.type !== 'BOOKMARK' && ev.type !== 'DELETED' && terminating(ev.object)) handle(ev.object.metadata!.name!);
      } catch (e) {
        if (!stopped) log(`namespace controller: watch ended: ${(e as Error).message}; watching again`);
      }
    }
  };
  void follow();

  return {
    stop() {
      stopped = true;
      watch?.close();
      for (const t of retries.values()) clearTimeout(t);
    },
  };
}
