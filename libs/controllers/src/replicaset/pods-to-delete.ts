// Which pods a ReplicaSet deletes when it has too many: upstream's getPodsToDelete and ActivePodsWithRanks (1.33,
// with PodDeletionCost and LogarithmicScaleDown on, as they are by default). The pods least useful to keep go
// first, so a scale-down removes pods that are still starting before pods that serve.
import { isPodActive, isPodReady, readyCondition, timeOf } from '../workloads/pod-state';
import type { Pod } from '../workloads/types';

/** The annotation that lets a user say which pods to delete first (lower cost first). */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

// Unset and unknown phases sort with Pending, as a Go map lookup of a missing key gives 0.
const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** The deletion cost annotation as an int32; anything unreadable is 0 (helper.GetDeletionCostFromPodAnnotations). */
export function deletionCost(pod: Pod): number {
  const v = pod.metadata.annotations?.[POD_DELETION_COST_ANNOTATION];
  // No "+" sign and no leading zeros, as upstream's validFirstDigit.
  if (v === undefined || !/^(-[0-9]+|0|[1-9][0-9]*)$/.test(v)) return 0;
  const n = Number(v);
  return Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 ? n : 0;
}

/** The highest restart count of the regular containers, then of the sidecars (restartable init containers). */
function restarts(pod: Pod): [regular: number, sidecar: number] {
  const regular = Math.max(0, ...(pod.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const sidecar = Math.max(0, ...(pod.status?.initContainerStatuses ?? []).filter((c) => sidecars.has(c.name)).map((c) => c.restartCount ?? 0));
  return [regular, sidecar];
}

/** t1 after t2, where a missing time counts as after any time (afterOrZero). */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

/** floor(log2(nanoseconds since t)), -1 for a time not in the past: pods of a similar age rank alike. */
function logarithmicAge(t: number, now: number): number {
  const ns = (now - t) * 1e6;
  return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
}

/** Compares two times by age bucket (newer first), falling back to the uid when they share a bucket. */
function newerFirst(a: Pod, b: Pod, ta: number | undefined, tb: number | undefined, now: number): boolean {
  if (ta === undefined || tb === undefined) return afterOrZero(ta, tb);
  const diff = logarithmicAge(ta, now) - logarithmicAge(tb, now);
  if (diff === 0) return (a.metadata.uid ?? '') < (b.metadata.uid ?? '');
  return diff < 0;
}

export interface RankedPod {
  pod: Pod;
  /** Active related pods on the same node as this one (this one included): doubled-up pods go first. */
  rank: number;
}

/** ActivePodsWithRanks.Less: true when `a` should be deleted before `b`. */
export function deleteBefore(a: RankedPod, b: RankedPod, now: number): boolean {
  const [pa, pb] = [a.pod, b.pod];
  const [na, nb] = [pa.spec?.nodeName ?? '', pb.spec?.nodeName ?? ''];
  // 1. Unassigned before assigned.
  if (na !== nb && (na === '' || nb === '')) return na === '';
  // 2. Pending before Unknown before Running.
  const [oa, ob] = [PHASE_ORDER[pa.status?.phase ?? ''] ?? 0, PHASE_ORDER[pb.status?.phase ?? ''] ?? 0];
  if (oa !== ob) return oa < ob;
  // 3. Not ready before ready.
  const [ra, rb] = [isPodReady(pa), isPodReady(pb)];
  if (ra !== rb) return !ra;
  // 4. Lower deletion cost first.
  const [ca, cb] = [deletionCost(pa), deletionCost(pb)];
  if (ca !== cb) return ca < cb;
  // 5. Doubled up (more related pods on the node) first.
  if (a.rank !== b.rank) return a.rank > b.rank;
  // 6. Ready for less time first.
  if (ra && rb) {
    const [ta, tb] = [timeOf(readyCondition(pa)?.lastTransitionTime), timeOf(readyCondition(pb)?.lastTransitionTime)];
    if (ta !== tb) return newerFirst(pa, pb, ta, tb, now);
  }
  // 7. More restarts first, regular containers before sidecars.
  const [[ga, sa], [gb, sb]] = [restarts(pa), restarts(pb)];
  if (ga !== gb) return ga > gb;
  if (sa !== sb) return sa > sb;
  // 8. Newer first (a missing creation time counts as newest).
  const [ta, tb] = [timeOf(pa.metadata.creationTimestamp), timeOf(pb.metadata.creationTimestamp)];
  if (ta !== tb) return newerFirst(pa, pb, ta, tb, now);
  return false;
}

/** Ranks `pods` by how many active `related` pods share each one's node (getPodsRankedByRelatedPodsOnSameNode). */
export function rankByRelatedPodsOnSameNode(pods: readonly Pod[], related: readonly Pod[]): RankedPod[] {
  const onNode = new Map<string, number>();
  for (const p of related) {
    if (!isPodActive(p)) continue;
    const node = p.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  return pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
}

/** The `count` pods of `pods` to delete first; `related` are the pods of every ReplicaSet of the same owner. */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, now: number = Date.now()): Pod[] {
  // No need to rank when every pod goes.
  if (count >= pods.length) return pods.slice(0, count);
  const ranked = rankByRelatedPodsOnSameNode(pods, related);
  ranked.sort((a, b) => (deleteBefore(a, b, now) ? -1 : deleteBefore(b, a, now) ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}
