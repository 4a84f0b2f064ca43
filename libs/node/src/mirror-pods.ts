// Mirror pods: the API server's read-only copy of each static pod (file or http source), as upstream's
// mirror_client.go and pod_workers: named and spaced as the static pod, annotated kubernetes.io/config.mirror
// with the static pod's hash, owned by the Node. A mirror deleted by someone is created again; one whose hash
// no longer matches (the manifest changed) is replaced; one whose static pod went away is deleted.
import { Timers } from './timers';
import { statusCode, type ApiClient, type Node, type NodeLog, type Pod } from './types';

export const ANNOTATION_CONFIG_MIRROR = 'kubernetes.io/config.mirror';
export const ANNOTATION_CONFIG_HASH = 'kubernetes.io/config.hash';

export const isMirrorPod = (p: Pod) => p.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR] !== undefined;
const fullName = (p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`;
const hashOf = (p: Pod) => p.metadata.annotations?.[ANNOTATION_CONFIG_HASH] ?? p.metadata.uid ?? '';

export interface MirrorPodsOptions {
  client: ApiClient;
  nodeName: string;
  /** The registered Node (mirror pods are owned by it, so none is made before it exists). */
  node: () => Node | undefined;
  log: NodeLog;
  retryMs?: number;
}

export class MirrorPods {
  private statics = new Map<string, Pod>();
  private mirrors = new Map<string, Pod>();
  private readonly timers = new Timers();
  private running = false;
  private again = false;
  private done: Promise<void> = Promise.resolve();

  constructor(private readonly o: MirrorPodsOptions) {}

  /** The static pods the agent runs now (the whole set). */
  setStaticPods(pods: Pod[]): void {
    this.statics = new Map(pods.map((p) => [fullName(p), p]));
    this.reconcile();
  }

  /** The mirror pods of this node the API server has now (the whole set, from the pod watch). */
  setMirrorPods(pods: Pod[]): void {
    this.mirrors = new Map(pods.map((p) => [fullName(p), p]));
    this.reconcile();
  }

  /** The mirror of a static pod, for writing its status. */
  mirrorOf(staticPod: Pod): Pod | undefined {
    const m = this.mirrors.get(fullName(staticPod));
    return m && m.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR] === hashOf(staticPod) && !m.metadata.deletionTimestamp ? m : undefined;
  }

  /** Runs a reconcile now (after the Node registered). */
  reconcile(): void {
    if (this.timers.isStopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.done = (async () => {
      do {
        this.again = false;
        try {
          await this.reconcileOnce();
        } catch (e) {
          this.o.log('Failed creating a mirror pod, will retry', { err: (e as Error).message }, 'E');
          if (await this.timers.sleep(this.o.retryMs ?? 2000)) this.again = true;
        }
      } while (this.again && !this.timers.isStopped);
      this.running = false;
    })();
  }

  async stop(): Promise<void> {
    this.timers.stop();
    await this.done;
  }

  private async reconcileOnce(): Promise<void> {
    const node = this.o.node();
    if (!node?.metadata.uid) return;
    for (const [name, mirror] of this.mirrors) {
      const wanted = this.statics.get(name);
      const current = wanted && mirror.metadata.annotations?.[ANNOTATION_CONFIG_MIRROR] === hashOf(wanted);
      if (current && !mirror.metadata.deletionTimestamp) continue;
      // Someone deleted it (it waits for this node, as every bound pod), its manifest changed, or its static
      // pod is gone: it goes at once, and a static pod that still runs gets a new one below.
      this.o.log(!wanted ? 'Deleting orphaned mirror pod' : current ? 'Deleting mirror pod that is being deleted, to re-create it' : 'Deleting mirror pod because it is outdated', { pod: name });
      await this.deleteMirror(mirror);
    }
    for (const [name, pod] of this.statics) {
      if (this.mirrors.has(name)) continue;
      this.o.log('Creating a mirror pod for static pod', { pod: name });
      try {
        const created = await this.o.client.create<Pod>(`/api/v1/namespaces/${pod.metadata.namespace}/pods`, mirrorPodOf(pod, node));
        this.mirrors.set(name, created);
      } catch (e) {
        if (statusCode(e) !== 409) throw e;
      }
    }
  }

  private async deleteMirror(mirror: Pod): Promise<void> {
    try {
      await this.o.client.delete(`/api/v1/namespaces/${mirror.metadata.namespace}/pods/${mirror.metadata.name}`, {
        gracePeriodSeconds: 0,
        preconditions: { uid: mirror.metadata.uid },
      });
    } catch (e) {
      if (statusCode(e) !== 404 && statusCode(e) !== 409) throw e;
    }
    this.mirrors.delete(fullName(mirror));
  }
}

/** The mirror pod of a static pod: its metadata and spec, bound to this node, owned by the Node. */
export function mirrorPodOf(pod: Pod, node: Node): Pod {
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...meta } = pod.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      annotations: { ...meta.annotations, [ANNOTATION_CONFIG_MIRROR]: hashOf(pod) },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name!, uid: node.metadata.uid!, controller: true }],
    },
    spec: { ...pod.spec, nodeName: node.metadata.name },
  };
}
