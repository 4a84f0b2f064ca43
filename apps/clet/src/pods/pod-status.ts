// v1 PodStatus from the runtime state and the last sync (upstream generateAPIPodStatus / getPhase).
import { nanosToDate } from '@cl/cri';
import { readyFromGates } from '@cl/node';
import type { ContainerStatus as CriContainerStatus } from '@cl/cri';
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from './api-types';
import { PodRuntimeState, PodSyncState, restartCountOf, shouldRestart } from './pod-runtime';
import { LABEL_CONTAINER_NAME, qosClass } from './runtime-spec';
import { terminationMessage } from './termination-message';

function iso(ns: string): string | undefined {
  return nanosToDate(ns)?.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function terminated(c: CriContainerStatus, runtimeName: string): ContainerState {
  // The runtime's message, then what the container left (upstream joins them with ": ").
  const own = terminationMessage(c);
  const message = [c.message, own].filter(Boolean).join(': ');
  return {
    terminated: {
      exitCode: c.exitCode,
      reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
      ...(message ? { message } : {}),
      startedAt: iso(c.startedAt),
      finishedAt: iso(c.finishedAt),
      containerID: `${runtimeName}://${c.id}`,
    },
  };
}

/** Counts upstream's getPhase works from. */
interface Counts {
  running: number; waiting: number; stopped: number; succeeded: number; unknown: number;
  pendingInit: number; pendingSidecars: number; failedInit: number;
}

export interface StatusContext {
  nodeIP: string;
  runtimeName: string;
  now?: () => string;
  /** Probe results: a running container is ready and started only as its probes say. */
  probes?: { ready(containerID: string): boolean; started(containerID: string): boolean };
}

function statusOf(c: Container, st: PodRuntimeState, ss: PodSyncState, rn: string, defaultWaiting: string, probes?: StatusContext['probes']): ContainerStatus {
  const [latest, prev] = st.containers.filter((x) => x.labels[LABEL_CONTAINER_NAME] === c.name);
  const waiting = ss.waiting.get(c.name);
  const out: ContainerStatus = {
    name: c.name, state: {}, lastState: {}, ready: false, restartCount: latest ? restartCountOf(latest) : 0,
    image: c.image ?? '', imageID: latest?.imageRef ?? '', started: false,
  };
  if (latest) out.containerID = `${rn}://${latest.id}`;
  if (latest?.state === 'CONTAINER_RUNNING') {
    out.state = { running: { startedAt: iso(latest.startedAt) } };
    out.ready = probes ? probes.ready(latest.id) : true;
    out.started = probes ? probes.started(latest.id) : true;
    if (prev && prev.state === 'CONTAINER_EXITED') out.lastState = terminated(prev, rn);
  } else if (latest?.state === 'CONTAINER_EXITED') {
    if (waiting) {
      // About to be (or held from being) restarted: waiting now, the exit as the last state.
      out.state = { waiting: { reason: waiting.reason, ...(waiting.message ? { message: waiting.message } : {}) } };
      out.lastState = terminated(latest, rn);
    } else {
      out.state = terminated(latest, rn);
      if (prev && prev.state === 'CONTAINER_EXITED') out.lastState = terminated(prev, rn);
    }
  } else {
    out.state = { waiting: { reason: waiting?.reason ?? defaultWaiting, ...(waiting?.message ? { message: waiting.message } : {}) } };
  }
  return out;
}

/** Computes the status the node agent reports for a pod on /pods. */
export function podStatus(pod: Pod, st: PodRuntimeState, ss: PodSyncState, ctx: StatusContext): PodStatus {
  const rn = ctx.runtimeName || 'containerd';
  const counts: Counts = { running: 0, waiting: 0, stopped: 0, succeeded: 0, unknown: 0, pendingInit: 0, pendingSidecars: 0, failedInit: 0 };
  const inits = pod.spec.initContainers ?? [];
  const initStatuses = inits.map((c) => {
    const s = statusOf(c, st, ss, rn, 'PodInitializing', ctx.probes);
    const sidecar = c.restartPolicy === 'Always';
    const t = s.state.terminated;
    if (!sidecar) {
      if (t) s.ready = t.exitCode === 0; // a regular init container is "ready" once it succeeded
      if (s.state.running) counts.pendingInit++;
      else if (t) counts.failedInit += t.exitCode !== 0 ? 1 : 0;
      else if (s.lastState.terminated) counts.failedInit += s.lastState.terminated.exitCode !== 0 ? 1 : 0;
      else counts.pendingInit++;
    } else if (s.state.running) {
      counts.running++;
    } else if (s.state.waiting && !s.lastState.terminated) {
      counts.pendingSidecars++;
      counts.waiting++;
    }
    return s;
  });
  const statuses = pod.spec.containers.map((c) => {
    const s = statusOf(c, st, ss, rn, inits.length ? 'PodInitializing' : 'ContainerCreating', ctx.probes);
    // A container that exited and will not run again shows its exit even if a waiting reason was left.
    const latest = st.containers.find((x) => x.labels[LABEL_CONTAINER_NAME] === c.name);
    if (latest?.state === 'CONTAINER_EXITED' && (ss.terminal || !shouldRestart(pod, latest.exitCode)) && s.state.waiting) {
      s.state = terminated(latest, rn);
      s.lastState = {};
    }
    if (s.state.running) counts.running++;
    else if (s.state.terminated) {
      counts.stopped++;
      if (s.state.terminated.exitCode === 0) counts.succeeded++;
    } else if (s.lastState.terminated) counts.stopped++;
    else counts.waiting++;
    return s;
  });

  // Ephemeral containers count for nothing (phase, readiness); they are never ready, as upstream reports them.
  const ephemeralStatuses = (pod.spec.ephemeralContainers ?? []).map((c) => {
    const s = statusOf(c, st, ss, rn, 'ContainerCreating');
    s.ready = false;
    return s;
  });

  const phase = getPhase(pod, counts);
  const now = ctx.now?.() ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cond = (type: string, ok: boolean, reason?: string, message?: string): PodCondition => ({
    type, status: ok ? 'True' : 'False', lastProbeTime: null, lastTransitionTime: now,
    ...(reason && !ok ? { reason } : {}), ...(message && !ok ? { message } : {}),
  });
  const sandboxReady = st.sandboxes[0]?.state === 'SANDBOX_READY';
  const done = phase === 'Succeeded' || phase === 'Failed';
  // Upstream: an init container is complete once it exited 0 (a sidecar once it runs); a pod whose
  // regular containers have started is initialised whatever its init containers do now.
  const regularStarted = statuses.some((s) => s.state.running || s.state.terminated || s.lastState.terminated);
  const incomplete = regularStarted ? [] : inits.filter((c, i) => {
    const s = initStatuses[i];
    return c.restartPolicy === 'Always' ? !s.state.running : s.state.terminated?.exitCode !== 0;
  }).map((c) => c.name);
  const initialized = incomplete.length === 0;
  const initReason = done ? 'PodCompleted' : 'ContainersNotInitialized';
  const initMsg = done ? undefined : `containers with incomplete status: [${incomplete.join(' ')}]`;
  const notReady = [...initStatuses.filter((s, i) => inits[i].restartPolicy === 'Always' && !s.ready), ...statuses.filter((s) => !s.ready)].map((s) => s.name);
  const containersReady = notReady.length === 0 && !done;
  const readyReason = done ? 'PodCompleted' : 'ContainersNotReady';
  const readyMsg = done ? undefined : `containers with unready status: [${notReady.join(' ')}]`;
  // Readiness gates: Ready also waits for the conditions other controllers set (kept in the pod's status).
  const ready = readyFromGates(pod, { status: containersReady ? 'True' : 'False', reason: readyReason, message: readyMsg });
  const conditions = [
    cond('PodReadyToStartContainers', sandboxReady),
    cond('Initialized', initialized, initReason, initMsg),
    cond('Ready', ready.status === 'True', ready.reason, ready.message),
    cond('ContainersReady', containersReady, readyReason, readyMsg),
    cond('PodScheduled', true),
  ];
  if (st.sandboxIP) ss.podIP = st.sandboxIP;
  // A stopped sandbox reports no IP; upstream keeps the last known pod IPs in the status.
  const podIP = pod.spec.hostNetwork ? ctx.nodeIP : st.sandboxIP || ss.podIP || '';
  return {
    phase,
    conditions,
    hostIP: ctx.nodeIP,
    hostIPs: [{ ip: ctx.nodeIP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: ss.startTime.replace(/\.\d{3}Z$/, 'Z'),
    ...(inits.length ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    ...(ephemeralStatuses.length ? { ephemeralContainerStatuses: ephemeralStatuses } : {}),
    qosClass: qosClass(pod),
  };
}

/** Upstream getPhase (1.33, sidecars on): init containers first, then regular and restartable ones. */
function getPhase(pod: Pod, c: Counts): PodStatus['phase'] {
  const policy = pod.spec.restartPolicy ?? 'Always';
  if (c.failedInit > 0 && policy === 'Never') return 'Failed';
  if (c.pendingInit > 0 || (c.pendingSidecars > 0 && c.running === 0 && c.stopped === 0)) return 'Pending';
  if (c.waiting > 0) return 'Pending';
  if (c.running > 0 && c.unknown === 0) return 'Running';
  if (c.running === 0 && c.stopped > 0 && c.unknown === 0) {
    if (policy === 'Always') return 'Running';
    if (c.stopped === c.succeeded) return 'Succeeded';
    if (policy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}
