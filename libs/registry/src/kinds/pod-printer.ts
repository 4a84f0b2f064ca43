// `kubectl get pods` as kubectl's printer computes it from a pod (pkg/printers/internalversion printPod):
// READY counts, the STATUS reason (Init:1/2, CrashLoopBackOff, Completed, Terminating, ...), RESTARTS with the
// age of the last restart, and the wide columns.
import type { KubeObject } from '@cl/apimachinery';
import type { TableConvertor } from '../strategy';
import { AGE, age, ageOf, column } from './columns';

interface ContainerState {
  waiting?: { reason?: string };
  running?: { startedAt?: string | null };
  terminated?: { exitCode?: number; signal?: number; reason?: string; finishedAt?: string | null };
}

interface ContainerStatus {
  name?: string;
  ready?: boolean;
  started?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface PodShape {
  spec?: {
    nodeName?: string;
    initContainers?: Array<{ name?: string; restartPolicy?: string }>;
    containers?: Array<{ name?: string }>;
    readinessGates?: Array<{ conditionType?: string }>;
  };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    podIPs?: Array<{ ip?: string }>;
    nominatedNodeName?: string;
    conditions?: Array<{ type?: string; status?: string; reason?: string }>;
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
}

const shape = (o: KubeObject) => o as KubeObject & PodShape;

function lastRestart(c: ContainerStatus): number {
  const t = c.lastState?.terminated?.finishedAt;
  return t ? Date.parse(t) : 0;
}

const conditionTrue = (p: PodShape, type: string) => (p.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');

/** READY, STATUS and RESTARTS of a pod, as kubectl prints them. */
export function podSummary(o: KubeObject, now: number): { ready: string; status: string; restarts: string } {
  const p = shape(o);
  const initSpecs = p.spec?.initContainers ?? [];
  const sidecars = new Set(initSpecs.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  let total = (p.spec?.containers ?? []).length + sidecars.size;
  let ready = 0;
  let restarts = 0;
  let last = 0;
  let reason = p.status?.reason || p.status?.phase || '';
  if ((p.status?.conditions ?? []).some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) reason = 'SchedulingGated';

  let initializing = false;
  let sidecarRestarts = 0;
  let sidecarLast = 0;
  const inits = p.status?.initContainerStatuses ?? [];
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    restarts += c.restartCount ?? 0;
    last = Math.max(last, lastRestart(c));
    const sidecar = sidecars.has(c.name);
    if (sidecar) {
      sidecarRestarts += c.restartCount ?? 0;
      sidecarLast = Math.max(sidecarLast, lastRestart(c));
      if (c.ready && c.state?.running) ready++;
    }
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) continue;
    if (sidecar && c.started) continue;
    initializing = true;
    if (t) reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode ?? 0}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    break;
  }
  if (!initializing || conditionTrue(p, 'Initialized')) {
    restarts = sidecarRestarts;
    last = sidecarLast;
    let running = false;
    const statuses = p.status?.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      restarts += c.restartCount ?? 0;
      last = Math.max(last, lastRestart(c));
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (c.state?.terminated?.reason) reason = c.state.terminated.reason;
      else if (c.state?.terminated) reason = c.state.terminated.signal ? `Signal:${c.state.terminated.signal}` : `ExitCode:${c.state.terminated.exitCode ?? 0}`;
      else if (c.ready && c.state?.running) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) reason = conditionTrue(p, 'Ready') ? 'Running' : 'NotReady';
  }
  const phase = p.status?.phase;
  if (o.metadata?.deletionTimestamp && p.status?.reason === 'NodeLost') reason = 'Unknown';
  else if (o.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';
  total = Math.max(total, 0);
  const restartText = restarts !== 0 && last ? `${restarts} (${age(new Date(last).toISOString(), now)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, status: reason, restarts: restartText };
}

export const podTable: TableConvertor = {
  columns: [
    column('Ready', 'string', 'The number of containers ready, of all containers'),
    column('Status', 'string', 'The aggregate state of the containers'),
    column('Restarts', 'string', 'The restarts of the containers, with the age of the last one'),
    AGE,
    column('IP', 'string', 'The pod address', 1),
    column('Node', 'string', 'The node the pod is bound to', 1),
    column('Nominated Node', 'string', 'The node the scheduler nominated during preemption', 1),
    column('Readiness Gates', 'string', 'Readiness gates that hold, of all of them', 1),
  ],
  cells(o, now) {
    const p = shape(o);
    const s = podSummary(o, now);
    const gates = p.spec?.readinessGates ?? [];
    const gatesText = gates.length ? `${gates.filter((g) => conditionTrue(p, g.conditionType ?? '')).length}/${gates.length}` : '<none>';
    const ip = p.status?.podIPs?.[0]?.ip || p.status?.podIP || '<none>';
    return [s.ready, s.status, s.restarts, ageOf(o, now), ip, p.spec?.nodeName || '<none>', p.status?.nominatedNodeName || '<none>', gatesText];
  },
};
