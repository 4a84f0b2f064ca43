// The scheduler's view of the cluster between two scheduling decisions (upstream's internal cache): the nodes,
// and per node the pods that count against it. A pod counts from the moment the scheduler assumes it onto a node,
// before the binding is written, so the next decision already sees the room it takes; the watch later confirms
// the binding, or a failed binding takes the assumption back. Terminated pods (Succeeded, Failed) free their room.
import { nodeInfoFor, type NodeInfo } from './node-info';
import { podKey, type Node, type Pod } from './types';

interface PlacedPod {
  pod: Pod;
  nodeName: string;
  assumed: boolean;
}

const isTerminated = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

export class ClusterCache {
  private readonly nodes = new Map<string, Node>();
  private readonly placed = new Map<string, PlacedPod>();
  private readonly podsByNode = new Map<string, Set<string>>();
  /** NodeInfos built since their node or pods last changed. */
  private readonly infos = new Map<string, NodeInfo>();
  /** The node names in order, kept until a node comes or goes (not re-sorted for every decision). */
  private names: string[] | null = null;

  setNode(node: Node): void {
    const name = node.metadata.name ?? '';
    if (!this.nodes.has(name)) this.names = null;
    this.nodes.set(name, node);
    this.infos.delete(name);
  }

  removeNode(name: string): void {
    if (this.nodes.delete(name)) this.names = null;
    this.infos.delete(name);
  }

  /** A pod as the watch shows it: counted on its node while assigned and not terminated. */
  setPod(pod: Pod): void {
    const key = podKey(pod);
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) {
      // Our own status writes reach us before the binding does; an assumption stands until the watch decides.
      if (!this.placed.get(key)?.assumed) this.unplace(key);
      return;
    }
    if (isTerminated(pod)) this.unplace(key);
    else this.place(key, { pod, nodeName, assumed: false });
  }

  removePod(key: string): void {
    this.unplace(key);
  }

  /** Counts the pod on `nodeName` until the watch shows it bound there, or forget() takes it back. */
  assume(pod: Pod, nodeName: string): void {
    this.place(podKey(pod), { pod: { ...pod, spec: { ...pod.spec, nodeName } }, nodeName, assumed: true });
  }

  /** Takes back an assumption whose binding failed; a binding the watch has confirmed stays. */
  forget(key: string): void {
    if (this.placed.get(key)?.assumed) this.unplace(key);
  }

  isAssumed(key: string): boolean {
    return this.placed.get(key)?.assumed === true;
  }

  /** Every node with the pods that count against it, by node name. */
  snapshot(): NodeInfo[] {
    this.names ??= [...this.nodes.keys()].sort();
    return this.names.map((name) => this.nodeInfo(name)!);
  }

  nodeInfo(name: string): NodeInfo | undefined {
    const node = this.nodes.get(name);
    if (!node) return undefined;
    let info = this.infos.get(name);
    if (!info) {
      const pods = [...(this.podsByNode.get(name) ?? [])].map((key) => this.placed.get(key)!.pod);
      info = nodeInfoFor(node, pods);
      this.infos.set(name, info);
    }
    return info;
  }

  private place(key: string, entry: PlacedPod) {
    this.unplace(key);
    this.placed.set(key, entry);
    const keys = this.podsByNode.get(entry.nodeName) ?? new Set<string>();
    keys.add(key);
    this.podsByNode.set(entry.nodeName, keys);
    this.infos.delete(entry.nodeName);
  }

  private unplace(key: string) {
    const entry = this.placed.get(key);
    if (!entry) return;
    this.placed.delete(key);
    const keys = this.podsByNode.get(entry.nodeName);
    keys?.delete(key);
    if (keys?.size === 0) this.podsByNode.delete(entry.nodeName);
    this.infos.delete(entry.nodeName);
  }
}
