// The node library's PodLifecycle for containerd through CRI: PodRuntime brings one pod's sandbox and containers
// to its spec, podStatus() turns what CRI reports into a v1 PodStatus, and the probe workers follow the running
// containers. What the agent remembers between syncs of a pod (PodSyncState) lives here, by uid.
import type { CriClient } from '@cl/cri';
import { CONFIG_SEEN_ANNOTATION, PodSyncFailure, type AdmissionRefusal, type PodLifecycle, type PodSyncResult, type RuntimeListing } from '@cl/node';
import type { Pod, PodStatus } from './api-types';
import { PodRuntime, PodRuntimeState, PodSyncState, newSyncState } from './pod-runtime';
import { podStatus } from './pod-status';
import { ProbeManager, type RunningContainer } from './probe-manager';
import { LABEL_CONTAINER_NAME, LABEL_POD_UID } from './runtime-spec';

export interface CriPodLifecycleOptions {
  cri: Pick<CriClient, 'listPodSandbox' | 'listContainers'>;
  runtime: PodRuntime;
  probes: ProbeManager;
  /** The host IP in pod status, and the pod IP of host-network pods. */
  nodeIP: string;
  /** The runtime's name in container IDs (`containerd://...`). */
  runtimeName: string;
  /** Admission beyond the pod count (see admitAll); none admits every pod. */
  admit?: (pod: Pod) => AdmissionRefusal | null;
  /** The pod cgroups (--cgroups-per-qos): made before a pod's sandbox runs, removed once the pod is gone. */
  cgroups?: { ensure(pod: Pod): void; remove(uid: string): Promise<void> };
}

/** One admission check from several, asked in order: the first refusal wins. */
export function admitAll(admitters: ReadonlyArray<(pod: Pod) => AdmissionRefusal | null>): (pod: Pod) => AdmissionRefusal | null {
  return (pod) => {
    for (const admit of admitters) {
      const refusal = admit(pod);
      if (refusal) return refusal;
    }
    return null;
  };
}

export class CriPodLifecycle implements PodLifecycle<Pod, PodStatus> {
  /** Each pod's sync state, with the config.seen time of the pod it belongs to. */
  private readonly states = new Map<string, { seen: string | undefined; ss: PodSyncState }>();

  constructor(private readonly o: CriPodLifecycleOptions) {}

  admit(pod: Pod): AdmissionRefusal | null {
    return this.o.admit?.(pod) ?? null;
  }

  async sync(pod: Pod): Promise<PodSyncResult<PodStatus>> {
    const ss = this.syncState(pod);
    this.o.cgroups?.ensure(pod);
    let st: PodRuntimeState;
    try {
      st = await this.o.runtime.sync(pod, ss);
    } catch (e) {
      // The containers' waiting reasons the failed sync left (ContainerCreating for a refused sandbox) still show.
      const now = await this.o.runtime.state(pod.metadata.uid!, !pod.spec.hostNetwork).catch(() => undefined);
      if (!now) throw e;
      throw new PodSyncFailure((e as Error).message, this.statusOf(pod, now, ss));
    }
    const status = this.statusOf(pod, st, ss);
    // What the sync decided on, not what it left: whatever changed since (a container that exited while the sync
    // ran, and the sync's own starts) earns one more sync at the next relist, as upstream's PLEG events do.
    const decided = ss.decidedOn ?? st;
    return { status, retryAt: ss.retryAt, fingerprint: fingerprint(decided.sandboxes, decided.containers) };
  }

  async kill(uid: string, pod: Pod | null): Promise<PodStatus | undefined> {
    const runtime = this.o.runtime;
    this.o.probes.removePod(uid);
    if (!pod) {
      this.states.delete(uid);
      await runtime.kill(null, await runtime.state(uid, false));
      await this.o.cgroups?.remove(uid);
      return undefined;
    }
    await runtime.kill(pod, await runtime.state(uid, false));
    await this.o.cgroups?.remove(uid);
    return this.statusOf(pod, await runtime.state(uid, false), this.syncState(pod));
  }

  async relist(): Promise<RuntimeListing> {
    const [sandboxes, containers] = await Promise.all([this.o.cri.listPodSandbox(), this.o.cri.listContainers()]);
    const byUid = new Map<string, { sandboxes: typeof sandboxes; containers: typeof containers }>();
    const of = (uid: string) => {
      let held = byUid.get(uid);
      if (!held) byUid.set(uid, (held = { sandboxes: [], containers: [] }));
      return held;
    };
    const running = new Set<string>();
    for (const s of sandboxes) {
      const uid = s.labels[LABEL_POD_UID];
      if (!uid) continue;
      of(uid).sandboxes.push(s);
      if (s.state === 'SANDBOX_READY') running.add(uid);
    }
    for (const c of containers) {
      const uid = c.labels[LABEL_POD_UID];
      if (!uid) continue;
      of(uid).containers.push(c);
      if (c.state === 'CONTAINER_RUNNING') running.add(uid);
    }
    const fingerprints = new Map<string, string>();
    for (const [uid, held] of byUid) fingerprints.set(uid, fingerprint(held.sandboxes, held.containers));
    return { fingerprints, running };
  }

  /** A pod that left every source and came back (a new config.seen) starts afresh, as a new pod does. */
  private syncState(pod: Pod): PodSyncState {
    const uid = pod.metadata.uid!;
    const seen = pod.metadata.annotations?.[CONFIG_SEEN_ANNOTATION];
    let held = this.states.get(uid);
    if (!held || held.seen !== seen) {
      held = { seen, ss: newSyncState() };
      this.states.set(uid, held);
    }
    return held.ss;
  }

  private statusOf(pod: Pod, st: PodRuntimeState, ss: PodSyncState): PodStatus {
    // Probe workers follow the running containers; their results feed the containers' ready and started.
    const running: RunningContainer[] = [];
    for (const c of [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter((i) => i.restartPolicy === 'Always')]) {
      const latest = st.containers.find((x) => x.labels[LABEL_CONTAINER_NAME] === c.name);
      if (latest?.state === 'CONTAINER_RUNNING') running.push({ container: c, containerID: latest.id, startedAt: Number(BigInt(latest.startedAt || '0') / 1_000_000n) });
    }
    this.o.probes.sync(pod, running, pod.spec.hostNetwork ? this.o.nodeIP : ss.podIP ?? '');
    return podStatus(pod, st, ss, { nodeIP: this.o.nodeIP, runtimeName: this.o.runtimeName, probes: this.o.probes });
  }
}

/** The pod's sandboxes and containers with their states, in a stable order; '' when the runtime holds nothing. */
function fingerprint(sandboxes: { id: string; state: string }[], containers: { id: string; state: string }[]): string {
  if (sandboxes.length === 0 && containers.length === 0) return '';
  return [...sandboxes.map((s) => `${s.id}:${s.state}`).sort(), '|', ...containers.map((c) => `${c.id}:${c.state}`).sort()].join(',');
}
