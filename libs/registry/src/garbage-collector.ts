// The garbage collector for ownerReferences (upstream's runs in kube-controller-manager): dependents of a
// deleted owner are deleted (Background), or deleted before it (Foreground: the owner keeps its
// `foregroundDeletion` finalizer until they are gone), or kept with the reference removed (Orphan: the
// `orphan` finalizer). It follows every resource's watch cache and sweeps their contents after changes; a
// sweep reads memory only, so it is cheap for the object counts one server holds, and writes through the
// stores like any client.
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, type KubeObject } from '@cl/apimachinery';
import type { ResourceStore } from './resource-store';

export interface GarbageCollector {
  /** Runs one sweep now (tests; the collector also sweeps on its own after changes). */
  sweep(): Promise<void>;
  stop(): void;
}

interface Entry {
  store: ResourceStore;
  object: KubeObject;
}

export function startGarbageCollector(stores: readonly ResourceStore[], log: (line: string) => void = () => undefined, debounceMs = 50): GarbageCollector {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;

  const ignoreGone = (e: { code?: number }) => {
    if (e.code !== 404 && e.code !== 409) throw e;
  };

  const sweep = async () => {
    const all: Entry[] = [];
    for (const store of stores) for (const item of store.cache.list().items) all.push({ store, object: item.object });
    const byUid = new Map(all.map((e) => [e.object.metadata?.uid, e]));
    const dependents = new Map<string, Entry[]>();
    for (const e of all) {
      for (const ref of e.object.metadata?.ownerReferences ?? []) {
        const list = dependents.get(ref.uid) ?? [];
        list.push(e);
        dependents.set(ref.uid, list);
      }
    }
    const name = (e: Entry) => ({ ns: e.object.metadata?.namespace ?? '', name: e.object.metadata!.name! });
    const dropFinalizer = (e: Entry, finalizer: string) =>
      e.store.update(name(e).ns, name(e).name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: (cur!.metadata?.finalizers ?? []).filter((f) => f !== finalizer) } })).catch(ignoreGone);

    for (const e of all) {
      const meta = e.object.metadata!;
      const uid = meta.uid!;
      const deps = dependents.get(uid) ?? [];
      if (meta.deletionTimestamp && meta.finalizers?.includes(FINALIZER_ORPHAN_DEPENDENTS)) {
        for (const d of deps) {
          await d.store
            .update(name(d).ns, name(d).name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, ownerReferences: (cur!.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid) } }))
            .catch(ignoreGone);
        }
        await dropFinalizer(e, FINALIZER_ORPHAN_DEPENDENTS);
        log(`garbage collector: orphaned ${deps.length} dependents of ${e.store.def.plural} ${meta.name}`);
      } else if (meta.deletionTimestamp && meta.finalizers?.includes(FINALIZER_DELETE_DEPENDENTS)) {
        if (deps.length === 0) {
          await dropFinalizer(e, FINALIZER_DELETE_DEPENDENTS);
          continue;
        }
        // Dependents go first, foreground too, so a chain is deleted from the leaves up.
        for (const d of deps) if (!d.object.metadata?.deletionTimestamp) await d.store.delete(name(d).ns, name(d).name, { propagationPolicy: 'Foreground' }).catch(ignoreGone);
      }
    }
    // Background: a dependent whose owners are all gone goes too.
    for (const e of all) {
      const refs = e.object.metadata?.ownerReferences ?? [];
      if (refs.length === 0 || e.object.metadata?.deletionTimestamp) continue;
      if (refs.every((r) => !byUid.has(r.uid))) {
        log(`garbage collector: deleting ${e.store.def.plural} ${e.object.metadata!.name}, its owners are gone`);
        await e.store.delete(name(e).ns, name(e).name, { propagationPolicy: 'Background' }).catch(ignoreGone);
      }
    }
  };

  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = sweep()
      .catch((e: Error) => log(`garbage collector: ${e.message}`))
      .finally(() => {
        running = null;
        if (again && !stopped) {
          again = false;
          schedule();
        }
      });
    return running;
  };

  const schedule = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void run();
    }, debounceMs);
    timer.unref();
  };

  // Any change anywhere schedules a sweep; a watch its cache ends (a relist) is opened again.
  const watches = new Set<{ close(): void }>();
  const follow = async (store: ResourceStore) => {
    while (!stopped) {
      await store.start();
      const w = store.cache.watch({ afterRevision: store.cache.revision || undefined });
      watches.add(w);
      try {
        // Only changes that can matter wake it: a delete (an owner may be gone), an object with owners, or one
        // being deleted (its orphan/foreground finalizers). Plain creates of ownerless objects cost nothing.
        for await (const ev of w) if (ev.type === 'DELETED' || (ev.type !== 'BOOKMARK' && (ev.object.metadata?.ownerReferences?.length || ev.object.metadata?.deletionTimestamp))) schedule();
      } catch {
        schedule();
      } finally {
        watches.delete(w);
      }
    }
  };
  for (const store of stores) void follow(store);
  schedule();

  return {
    sweep: run,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      for (const w of watches) w.close();
    },
  };
}
