// Read-only views of the pod manager's desired pods (the v1 Pod objects of /pods) that the debugging
// handlers need: find a pod by namespace and name, check a container is in its spec, and pick the
// container whose logs to read from its status, with the kubelet's messages for each state.

interface ContainerStateView {
  waiting?: { reason?: string };
  running?: { startedAt?: string };
  terminated?: { containerID?: string; exitCode?: number };
}
export interface ContainerStatusView {
  name: string;
  containerID?: string;
  image?: string;
  state?: ContainerStateView;
  lastState?: ContainerStateView;
}
export interface PodView {
  metadata: { name: string; namespace: string; uid: string };
  spec: { containers: { name: string; image?: string }[]; initContainers?: { name: string }[]; ephemeralContainers?: { name: string }[] };
  status?: { containerStatuses?: ContainerStatusView[]; initContainerStatuses?: ContainerStatusView[]; ephemeralContainerStatuses?: ContainerStatusView[] };
}

export function asPodView(p: object): PodView {
  const v = p as Partial<PodView>;
  return {
    metadata: { name: v.metadata?.name ?? '', namespace: v.metadata?.namespace ?? '', uid: v.metadata?.uid ?? '' },
    spec: { containers: [], ...(v.spec ?? {}) },
    ...(v.status ? { status: v.status } : {}),
  };
}

export function findPod(pods: object[], namespace: string, name: string): PodView | undefined {
  for (const p of pods) {
    const v = asPodView(p);
    if (v.metadata.namespace === namespace && v.metadata.name === name) return v;
  }
  return undefined;
}

/** Upstream's pod "full name", as the runtime labels and the log directory know it. */
export const podFullName = (p: PodView) => `${p.metadata.name}_${p.metadata.namespace}`;

export function hasContainerSpec(p: PodView, name: string): boolean {
  return [...p.spec.containers, ...(p.spec.initContainers ?? []), ...(p.spec.ephemeralContainers ?? [])].some((c) => c.name === name);
}

/** `containerd://abc` -> `abc`. */
export const runtimeId = (containerID: string) => containerID.replace(/^[a-z0-9.+-]+:\/\//, '');

/**
 * The runtime ID of the container whose logs a request means (validateContainerLogStatus): the running
 * one, else the terminated one, else the previous one; `previous` asks for the last terminated one.
 * Throws upstream's message when there is none.
 */
export function logContainerId(pod: PodView, container: string, previous: boolean): string {
  const podName = pod.metadata.name;
  const s = pod.status ?? {};
  const status = [...(s.containerStatuses ?? []), ...(s.initContainerStatuses ?? []), ...(s.ephemeralContainerStatuses ?? [])].find((c) => c.name === container);
  if (!status) throw new Error(`container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} is not available`);
  const last = status.lastState?.terminated;
  const { waiting, running, terminated } = status.state ?? {};
  const terminatedMsg = () => new Error(`container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} is terminated`);
  if (previous) {
    if (!last?.containerID) throw new Error(`previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} not found`);
    return runtimeId(last.containerID);
  }
  if (running) return runtimeId(status.containerID ?? '');
  if (terminated) {
    if (terminated.containerID) return runtimeId(terminated.containerID);
    if (last?.containerID) return runtimeId(last.containerID);
    throw terminatedMsg();
  }
  if (last) {
    if (!last.containerID) throw terminatedMsg();
    return runtimeId(last.containerID);
  }
  const prefix = `container ${JSON.stringify(container)} in pod ${JSON.stringify(podName)} is waiting to start`;
  if (waiting) {
    if (waiting.reason === 'ErrImagePull') throw new Error(`${prefix}: image can't be pulled`);
    if (waiting.reason === 'ImagePullBackOff') throw new Error(`${prefix}: trying and failing to pull image`);
    throw new Error(`${prefix}: ${waiting.reason ?? ''}`);
  }
  throw new Error(`${prefix} - no logs yet`);
}
