// v1 PodStatus from the runtime state and the last sync (upstream generateAPIPodStatus / getPhase).
import { nanosToDate } from '@cl/cri';
import type { ContainerStatus as CriContainerStatus } from '@cl/cri';
import type { ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from './api-types';
import { PodRuntimeState, PodSyncState, restartCountOf, shouldRestart } from './pod-runtime';
import { LABEL_CONTAINER_NAME, qosClass } from './runtime-spec';

function iso(ns: string): string | undefined {
  return nanosToDate(ns)?.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function terminated(c: CriContainerStatus, runtimeName: string): ContainerState {
  return {
    terminated: {
      exitCode: c.exitCode,
      reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
      ...(c.message ? { message: c.message } : {}),
      startedAt: iso(c.startedAt),
      finishedAt: iso(c.finishedAt),
      containerID: `${runtimeName}://${c.id}`,
    },
  };
}

interface Counts { running: number; waiting: number; stopped: number; succeeded: number; failed: number; unknown: number }

export interface StatusContext { nodeIP: string; runtimeName: string; now?: () => string }

/** Computes the status the node agent reports for a pod on /pods. */
export function podStatus(pod: Pod, st: PodRuntimeState, ss: PodSyncState, ctx: StatusContext): PodStatus {
  const rn = ctx.runtimeName || 'containerd';
  const counts: Counts = { running: 0, waiting: 0, stopped: 0, succeeded: 0, failed: 0, unknown: 0 };
  const statuses: ContainerStatus[] = pod.spec.containers.map((c) => {
    const instances = st.containers.filter((x) => x.labels[LABEL_CONTAINER_NAME] === c.name);
    const [latest, prev] = instances;
    const waiting = ss.waiting.get(c.name);
    const out: ContainerStatus = {
      name: c.name, state: {}, lastState: {}, ready: false, restartCount: latest ? restartCountOf(latest) : 0,
      image: c.image ?? '', imageID: latest?.imageRef ?? '', started: false,
    };
    if (latest) out.containerID = `${rn}://${latest.id}`;
    if (latest?.state === 'CONTAINER_RUNNING') {
      out.state = { running: { startedAt: iso(latest.startedAt) } };
      out.ready = true;
      out.started = true;
      if (prev && prev.state === 'CONTAINER_EXITED') out.lastState = terminated(prev, rn);
      counts.running++;
    } else if (latest?.state === 'CONTAINER_EXITED') {
      const restarting = !ss.terminal && shouldRestart(pod, latest.exitCode);
      if (restarting && waiting) {
        out.state = { waiting: { reason: waiting.reason, ...(waiting.message ? { message: waiting.message } : {}) } };
        out.lastState = terminated(latest, rn);
      } else {
        out.state = terminated(latest, rn);
        if (prev && prev.state === 'CONTAINER_EXITED') out.lastState = terminated(prev, rn);
      }
      counts.stopped++;
      if (latest.exitCode === 0) counts.succeeded++;
      else counts.failed++;
    } else {
      out.state = { waiting: { reason: waiting?.reason ?? 'ContainerCreating', ...(waiting?.message ? { message: waiting.message } : {}) } };
      counts.waiting++;
    }
    return out;
  });

  const phase = getPhase(pod, counts);
  const now = ctx.now?.() ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cond = (type: string, ok: boolean, reason?: string, message?: string): PodCondition => ({
    type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: now,
    ...(reason && !ok ? { reason } : {}), ...(message && !ok ? { message } : {}),
  });
  const sandboxReady = st.sandboxes[0]?.state === 'SANDBOX_READY';
  const notReady = statuses.filter((s) => !s.ready).map((s) => s.name);
  const done = phase === 'Succeeded' || phase === 'Failed';
  const containersReady = notReady.length === 0 && !done;
  const readyReason = done ? 'PodCompleted' : 'ContainersNotReady';
  const readyMsg = done ? undefined : `containers with unready status: [${notReady.join(' ')}]`;
  const conditions = [
    cond('PodReadyToStartContainers', sandboxReady),
    cond('Initialized', true),
    cond('Ready', containersReady, readyReason, readyMsg),
    cond('ContainersReady', containersReady, readyReason, readyMsg),
    cond('PodScheduled', true),
  ];
  const podIP = pod.spec.hostNetwork ? ctx.nodeIP : st.sandboxIP;
  return {
    phase,
    conditions,
    hostIP: ctx.nodeIP,
    hostIPs: [{ ip: ctx.nodeIP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: ss.startTime.replace(/\.\d{3}Z$/, 'Z'),
    containerStatuses: statuses,
    qosClass: qosClass(pod),
  };
}

/** Upstream getPhase for regular containers. */
function getPhase(pod: Pod, c: Counts): PodStatus['phase'] {
  if (c.waiting > 0) return 'Pending';
  if (c.running > 0 && c.unknown === 0) return 'Running';
  if (c.running === 0 && c.stopped > 0 && c.unknown === 0) {
    const policy = pod.spec.restartPolicy ?? 'Always';
    if (policy === 'Always') return 'Running';
    if (c.stopped === c.succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}
