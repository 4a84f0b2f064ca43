// Keeps an @cl/rbac RbacIndex current from the four RBAC resources' watch caches: each watch starts with the
// current objects (ADDED), then follows changes; when the cache ends a watch (it relisted after a broken store
// watch) the kind is cleared and watched again. Also runs the cluster role aggregation controller on the same
// index: an aggregated role whose rules differ from the union of its selected roles is rewritten in the store.
import type { KubeObject } from '@cl/apimachinery';
import { aggregatedRules, RbacIndex, sameRules, type Binding, type ClusterRole, type RbacKind, type Role } from '@cl/rbac';
import type { ResourceStore } from '@cl/registry';

const RESOURCES: Record<string, RbacKind> = { roles: 'Role', clusterroles: 'ClusterRole', rolebindings: 'RoleBinding', clusterrolebindings: 'ClusterRoleBinding' };
const RETRY_MS = 1000;

export interface RbacFeed {
  /** Resolves once every kind's current objects are in the index. */
  readonly synced: Promise<void>;
  stop(): void;
}

const asRbac = (o: KubeObject) => o as unknown as Role & ClusterRole & Binding;

/** Starts following the RBAC stores among `stores` into `index`. */
export function feedRbacIndex(index: RbacIndex, stores: readonly ResourceStore[], log: (line: string) => void): RbacFeed {
  let stopped = false;
  const closers = new Set<() => void>();
  const follow = async (store: ResourceStore, kind: RbacKind, onSynced: () => void) => {
    while (!stopped) {
      await store.start();
      if (stopped) return;
      const watch = store.cache.watch();
      closers.add(() => watch.close());
      index.clear(kind);
      // The initial ADDED events are queued at once; the index is synced when the cache's current objects are in.
      let initial = store.cache.size;
      if (initial === 0) onSynced();
      try {
        for await (const ev of watch) {
          if (ev.type === 'BOOKMARK') continue;
          const o = asRbac(ev.object);
          if (ev.type === 'DELETED') index.delete(kind, o.metadata.namespace ?? '', o.metadata.name);
          else index.put(kind, o);
          if (initial > 0 && --initial === 0) onSynced();
        }
      } catch (e) {
        if (!stopped) log(`RBAC: watch of ${store.def.plural} ended: ${(e as Error).message}`);
      }
      if (stopped) return;
      await new Promise((r) => setTimeout(r, RETRY_MS).unref());
    }
  };
  const synced: Promise<void>[] = [];
  for (const s of stores) {
    const kind = s.def.group === 'rbac.authorization.k8s.io' ? RESOURCES[s.def.plural] : undefined;
    if (!kind) continue;
    synced.push(new Promise<void>((resolve) => void follow(s, kind, resolve)));
  }
  return {
    synced: Promise.all(synced).then(() => undefined),
    stop() {
      stopped = true;
      for (const c of closers) c();
    },
  };
}

/**
 * The cluster role aggregation controller (upstream pkg/controller/clusterroleaggregation) on the index: after any
 * cluster role change, every aggregated role whose rules are not the union of its selected roles' is updated.
 * The writes are the server's own (no user), so escalation checks do not apply to them.
 */
export function startClusterRoleAggregation(index: RbacIndex, clusterRoles: ResourceStore, log: (line: string) => void): () => void {
  let scheduled = false;
  let running = Promise.resolve();
  const sync = async () => {
    scheduled = false;
    const all = [...index.allClusterRoles()];
    for (const role of all) {
      const want = aggregatedRules(role, all);
      if (!want || sameRules(role.rules, want)) continue;
      try {
        await clusterRoles.update('', role.metadata.name, (current) => {
          if (!current) throw new Error('gone');
          return { ...current, rules: want } as KubeObject;
        });
      } catch (e) {
        log(`clusterrole-aggregation: updating ${role.metadata.name}: ${(e as Error).message}`);
      }
    }
  };
  const off = index.onChange((kind) => {
    if (kind !== 'ClusterRole' || scheduled) return;
    scheduled = true;
    running = running.then(() => new Promise<void>((r) => setImmediate(r))).then(sync);
  });
  return off;
}
