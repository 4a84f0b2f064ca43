// The roles and bindings in memory, kept current by the caller (a watch of the four resources), with the bindings
// indexed by subject: an authorization looks up only the bindings that name the user, a group of it or its
// service account, so its cost grows with that user's bindings, not with every binding in the cluster.
import type { UserInfo } from '@cl/auth';
import { groupKey, subjectKey, userKey } from './subjects';
import type { Binding, ClusterRole, Role } from './types';

/** What the authorizer reads (upstream's RoleGetter, ClusterRoleGetter and the binding listers). */
export interface RbacSource {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  /** Cluster role bindings that may name the user (the caller still checks which subject applies). */
  clusterRoleBindingsFor(user: UserInfo): Iterable<Binding>;
  /** Role bindings of `namespace` that may name the user. */
  roleBindingsFor(user: UserInfo, namespace: string): Iterable<Binding>;
}

export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';

/** Bindings of one scope (the cluster, or one namespace's role bindings) by subject key. */
class BindingIndex {
  private readonly byName = new Map<string, Binding>();
  private readonly bySubject = new Map<string, Map<string, Binding>>();

  constructor(private readonly namespace: string) {}

  put(b: Binding): void {
    this.remove(b.metadata.name);
    this.byName.set(b.metadata.name, b);
    for (const key of this.keysOf(b)) {
      let m = this.bySubject.get(key);
      if (!m) this.bySubject.set(key, (m = new Map()));
      m.set(b.metadata.name, b);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const key of this.keysOf(old)) {
      const m = this.bySubject.get(key);
      m?.delete(name);
      if (m?.size === 0) this.bySubject.delete(key);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  clear(): void {
    this.byName.clear();
    this.bySubject.clear();
  }

  /** The bindings naming the user or one of its groups, each once (an array: this runs on every request). */
  for(user: UserInfo): Binding[] {
    const out: Binding[] = [];
    let sources = 0;
    const add = (m: Map<string, Binding> | undefined) => {
      if (!m) return;
      // A binding found under a second key (user and group) is only listed once.
      if (sources++ === 0) for (const b of m.values()) out.push(b);
      else for (const b of m.values()) if (!out.includes(b)) out.push(b);
    };
    add(this.bySubject.get(userKey(user.username)));
    for (let i = 0; i < user.groups.length; i++) add(this.bySubject.get(groupKey(user.groups[i])));
    return out;
  }

  private keysOf(b: Binding): Set<string> {
    const keys = new Set<string>();
    for (const s of b.subjects ?? []) {
      const k = subjectKey(s, this.namespace);
      if (k) keys.add(k);
    }
    return keys;
  }
}

export class RbacIndex implements RbacSource {
  private readonly roles = new Map<string, Role>();
  private readonly clusterRoles = new Map<string, ClusterRole>();
  private readonly clusterBindings = new BindingIndex('');
  private readonly roleBindings = new Map<string, BindingIndex>();
  private readonly listeners = new Set<(kind: RbacKind) => void>();

  getRole(namespace: string, name: string): Role | undefined {
    return this.roles.get(`${namespace}/${name}`);
  }

  getClusterRole(name: string): ClusterRole | undefined {
    return this.clusterRoles.get(name);
  }

  clusterRoleBindingsFor(user: UserInfo): Iterable<Binding> {
    return this.clusterBindings.for(user);
  }

  roleBindingsFor(user: UserInfo, namespace: string): Iterable<Binding> {
    return this.roleBindings.get(namespace)?.for(user) ?? [];
  }

  /** Every cluster role (the aggregation controller reads them all). */
  allClusterRoles(): IterableIterator<ClusterRole> {
    return this.clusterRoles.values();
  }

  /** Called after every change with the kind that changed. */
  onChange(listener: (kind: RbacKind) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An object was added or changed. */
  put(kind: RbacKind, obj: Role | ClusterRole | Binding): void {
    const { name, namespace = '' } = obj.metadata;
    switch (kind) {
      case 'Role':
        this.roles.set(`${namespace}/${name}`, obj as Role);
        break;
      case 'ClusterRole':
        this.clusterRoles.set(name, obj as ClusterRole);
        break;
      case 'ClusterRoleBinding':
        this.clusterBindings.put(obj as Binding);
        break;
      case 'RoleBinding': {
        let idx = this.roleBindings.get(namespace);
        if (!idx) this.roleBindings.set(namespace, (idx = new BindingIndex(namespace)));
        idx.put(obj as Binding);
        break;
      }
    }
    this.changed(kind);
  }

  delete(kind: RbacKind, namespace: string, name: string): void {
    switch (kind) {
      case 'Role':
        this.roles.delete(`${namespace}/${name}`);
        break;
      case 'ClusterRole':
        this.clusterRoles.delete(name);
        break;
      case 'ClusterRoleBinding':
        this.clusterBindings.remove(name);
        break;
      case 'RoleBinding': {
        const idx = this.roleBindings.get(namespace);
        idx?.remove(name);
        if (idx?.size === 0) this.roleBindings.delete(namespace);
        break;
      }
    }
    this.changed(kind);
  }

  /** Forgets every object of a kind (before a relist). */
  clear(kind: RbacKind): void {
    if (kind === 'Role') this.roles.clear();
    else if (kind === 'ClusterRole') this.clusterRoles.clear();
    else if (kind === 'RoleBinding') this.roleBindings.clear();
    else this.clusterBindings.clear();
    this.changed(kind);
  }

  private changed(kind: RbacKind): void {
    for (const l of this.listeners) l(kind);
  }
}
