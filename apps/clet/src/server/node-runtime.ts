// The container runtime as the debugging and stats handlers see it: a second, read-mostly CRI
// connection (the pod manager keeps its own) answering "which container runs this", "where are its
// logs", streaming URLs and stats. Running pods come from the runtime, as upstream's runtime cache.
import { CriClient, nanosToDate } from '@cl/cri';
import type { Container, ContainerStats, PodSandbox, PodSandboxStats } from '@cl/cri';

export const LABEL_POD_NAME = 'io.kubernetes.pod.name';
export const LABEL_POD_NAMESPACE = 'io.kubernetes.pod.namespace';
export const LABEL_POD_UID = 'io.kubernetes.pod.uid';
export const LABEL_CONTAINER_NAME = 'io.kubernetes.container.name';

export interface RunningPod {
  name: string;
  namespace: string;
  uid: string;
  sandboxId: string;
  containers: Container[];
}

export interface StatsSnapshot {
  containers: ContainerStats[];
  /** Per-sandbox stats when the runtime can give them (it cannot for sandboxes without a cgroup parent). */
  sandboxes: PodSandboxStats[] | null;
  sandboxList: PodSandbox[];
  containerList: Container[];
}

export class NodeRuntime {
  readonly cri: CriClient;

  constructor(endpoint: string, imageEndpoint: string, timeoutMs: number) {
    this.cri = new CriClient({ runtimeEndpoint: endpoint, imageEndpoint: imageEndpoint || endpoint, timeoutMs });
  }

  close(): void {
    this.cri.close();
  }

  /** Pods with a ready sandbox and their running containers (upstream GetPods(all=false)). */
  async runningPods(): Promise<RunningPod[]> {
    const [sandboxes, containers] = await Promise.all([
      this.cri.listPodSandbox({ state: { state: 'SANDBOX_READY' } }),
      this.cri.listContainers({ state: { state: 'CONTAINER_RUNNING' } }),
    ]);
    const byUid = new Map<string, RunningPod>();
    // Newest sandbox first, so a pod's current sandbox wins over a leftover one.
    for (const s of [...sandboxes].sort((a, b) => Number(BigInt(b.createdAt) - BigInt(a.createdAt)))) {
      const uid = s.metadata?.uid ?? s.labels[LABEL_POD_UID] ?? '';
      if (byUid.has(uid)) continue;
      byUid.set(uid, { name: s.metadata?.name ?? '', namespace: s.metadata?.namespace ?? '', uid, sandboxId: s.id, containers: [] });
    }
    for (const c of containers) byUid.get(c.labels[LABEL_POD_UID] ?? '')?.containers.push(c);
    return [...byUid.values()];
  }

  /** The running container `name` of the pod (findContainer), or undefined. */
  async runningContainer(namespace: string, podName: string, podUid: string, name: string): Promise<Container | undefined> {
    const pods = await this.runningPods();
    const pod = pods.find((p) => p.namespace === namespace && p.name === podName && (podUid === '' || p.uid === podUid));
    return pod?.containers.find((c) => c.metadata?.name === name);
  }

  async sandboxOf(podUid: string): Promise<string | undefined> {
    return (await this.runningPods()).find((p) => p.uid === podUid)?.sandboxId;
  }

  async logPath(containerId: string): Promise<string> {
    return (await this.cri.containerStatus(containerId)).logPath;
  }

  async isRunning(containerId: string): Promise<boolean> {
    try {
      return (await this.cri.containerStatus(containerId)).state === 'CONTAINER_RUNNING';
    } catch {
      return false;
    }
  }

  async stats(): Promise<StatsSnapshot> {
    const [containers, sandboxes, sandboxList, containerList] = await Promise.all([
      this.cri.listContainerStats(),
      this.cri.listPodSandboxStats().catch(() => null),
      this.cri.listPodSandbox(),
      this.cri.listContainers(),
    ]);
    return { containers, sandboxes, sandboxList, containerList };
  }
}

export const startedAt = (c: Container | { createdAt: string }) => nanosToDate(c.createdAt);
