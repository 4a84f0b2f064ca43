// What the workload controllers read from a pod's status (upstream's podutil.IsPodReady / IsPodAvailable and
// controller.IsPodActive).
import type { Condition, Pod } from './types';

/** Not finished and not being deleted: the pods a ReplicaSet counts (controller.IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

export function readyCondition(pod: Pod): Condition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: Pod): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** Milliseconds since the epoch of an RFC 3339 time; undefined for an absent or unreadable one (Go's zero time). */
export function timeOf(t: string | null | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * Ready for at least minReadySeconds (podutil.IsPodAvailable): with minReadySeconds 0 any ready pod; otherwise one
 * whose Ready condition turned True more than minReadySeconds before `now`.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = timeOf(readyCondition(pod)?.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < now;
}
