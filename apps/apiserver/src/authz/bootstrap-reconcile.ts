// The rbac/bootstrap-roles post-start hook's work (upstream's ensureRBACPolicy): the bootstrap cluster roles and
// cluster role bindings of @cl/rbac reconciled into the store at every start (created when missing, completed
// when auto-updated), each write conditional on the revision read, retried when another writer came first.
import { randomUUID } from 'node:crypto';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles, reconcileBinding, reconcileClusterRole, type Binding, type ClusterRole, type Reconciled } from '@cl/rbac';
import { ConflictError, type Store } from '@cl/store';

const API_VERSION = 'rbac.authorization.k8s.io/v1';
const ATTEMPTS = 5;

const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

async function reconcileOne<T extends ClusterRole | Binding>(store: Store, key: string, kind: string, expected: T, reconcile: (e: T | undefined, x: T) => Reconciled<T>): Promise<boolean> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const kv = await store.get(key);
    const existing = kv ? (JSON.parse(kv.value.toString()) as T & Record<string, unknown>) : undefined;
    const out = reconcile(existing, expected);
    if (out.action === 'none') return false;
    const fresh = { uid: randomUUID(), creationTimestamp: now() };
    const object =
      out.action === 'update'
        ? out.object
        : { apiVersion: API_VERSION, kind, ...out.object, metadata: { ...out.object.metadata, ...fresh } };
    try {
      if (out.action === 'recreate' && kv) await store.delete(key, { expectedRevision: kv.modRevision });
      await store.put(key, JSON.stringify(object), { expectedRevision: out.action === 'update' ? kv!.modRevision : 0 });
      return true;
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
    }
  }
  throw new Error(`could not reconcile ${key}: it kept changing`);
}

/** Returns how many objects were created or updated. */
export async function reconcileBootstrapPolicy(store: Store): Promise<number> {
  let changed = 0;
  for (const r of bootstrapClusterRoles()) {
    if (await reconcileOne(store, `/clusterroles/${r.metadata.name}`, 'ClusterRole', r, reconcileClusterRole)) changed++;
  }
  for (const b of bootstrapClusterRoleBindings()) {
    if (await reconcileOne(store, `/clusterrolebindings/${b.metadata.name}`, 'ClusterRoleBinding', b, reconcileBinding)) changed++;
  }
  return changed;
}
