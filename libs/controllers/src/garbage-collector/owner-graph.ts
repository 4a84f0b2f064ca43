// The garbage collector's view of the cluster (upstream's GraphBuilder uidToNode): every object it watches, by
// uid, with its owner references, and the reverse edges (owner uid -> dependents), kept current by the informers'
// events. Owners may be seen after their dependents (or never, when their kind is not watched): an owner uid with
// no node is simply absent, and the collector asks the server before believing it gone.
import type { OwnerReference } from '@cl/apimachinery';
import type { ApiResource } from '../discovery/api-resources';

export interface GraphObject {
  metadata: { name?: string; namespace?: string; uid?: string; resourceVersion?: string; deletionTimestamp?: string; finalizers?: string[]; ownerReferences?: OwnerReference[] };
}

export interface GraphNode {
  uid: string;
  resource: ApiResource;
  namespace?: string;
  name: string;
  resourceVersion?: string;
  owners: OwnerReference[];
  deleting: boolean;
  finalizers: string[];
}

export class OwnerGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly dependentsOf = new Map<string, Set<string>>();

  /** Records an object's current state; returns the node before the change (undefined when new). */
  upsert(resource: ApiResource, o: GraphObject): GraphNode | undefined {
    const uid = o.metadata.uid;
    if (!uid) return undefined;
    const before = this.nodes.get(uid);
    if (before) for (const ref of before.owners) this.dependentsOf.get(ref.uid)?.delete(uid);
    const node: GraphNode = {
      uid,
      resource,
      namespace: o.metadata.namespace,
      name: o.metadata.name ?? '',
      resourceVersion: o.metadata.resourceVersion,
      owners: o.metadata.ownerReferences ?? [],
      deleting: !!o.metadata.deletionTimestamp,
      finalizers: o.metadata.finalizers ?? [],
    };
    this.nodes.set(uid, node);
    for (const ref of node.owners) {
      let deps = this.dependentsOf.get(ref.uid);
      if (!deps) this.dependentsOf.set(ref.uid, (deps = new Set()));
      deps.add(uid);
    }
    return before;
  }

  /** Forgets an object; returns its last node. */
  remove(uid: string | undefined): GraphNode | undefined {
    if (!uid) return undefined;
    const node = this.nodes.get(uid);
    if (!node) return undefined;
    this.nodes.delete(uid);
    for (const ref of node.owners) {
      const deps = this.dependentsOf.get(ref.uid);
      deps?.delete(uid);
      if (deps && deps.size === 0) this.dependentsOf.delete(ref.uid);
    }
    return node;
  }

  get(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  /** The objects that name `uid` as an owner. */
  dependents(uid: string): GraphNode[] {
    return [...(this.dependentsOf.get(uid) ?? [])].map((d) => this.nodes.get(d)).filter((n): n is GraphNode => !!n);
  }

  get size(): number {
    return this.nodes.size;
  }
}
