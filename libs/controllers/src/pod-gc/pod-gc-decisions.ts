// Which pods pod GC deletes (upstream's gc_controller.go), as plain functions of the pods and nodes it sees:
// terminated pods beyond the threshold (evicted ones first, then the oldest), terminating pods on nodes that are
// out of service and not ready, pods on nodes that no longer exist, and terminating pods never scheduled.
import { nodeCondition, timeOf, type Node, type Pod } from '../core-v1/types';
import { TAINT_OUT_OF_SERVICE } from '../core-v1/well-known';

/** Any phase but Pending, Running and Unknown (upstream's isPodTerminated: Succeeded, Failed, or none at all). */
export function isTerminated(pod: Pod): boolean {
  const phase = pod.status?.phase ?? '';
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
}

export const isTerminating = (pod: Pod): boolean => !!pod.metadata.deletionTimestamp;

/** Evicted by its node agent (eviction.PodIsEvicted). */
export const isEvicted = (pod: Pod): boolean => pod.status?.phase === 'Failed' && pod.status?.reason === 'Evicted';

export const isNodeReady = (node: Node): boolean => nodeCondition(node, 'Ready')?.status === 'True';

/**
 * byEvictionAndCreationTimestamp: evicted pods first (they are nobody's record of a finished job), then the
 * oldest, names breaking ties.
 */
export function byEvictionThenAge(a: Pod, b: Pod): number {
  const evicted = Number(isEvicted(b)) - Number(isEvicted(a));
  if (evicted) return evicted;
  const [ta, tb] = [timeOf(a.metadata.creationTimestamp) ?? 0, timeOf(b.metadata.creationTimestamp) ?? 0];
  if (ta !== tb) return ta - tb;
  const [na, nb] = [a.metadata.name ?? '', b.metadata.name ?? ''];
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The terminated pods beyond `threshold`, in the order they go; none for a threshold of 0 (disabled). */
export function terminatedPodsToDelete(pods: readonly Pod[], threshold: number): Pod[] {
  if (threshold <= 0) return [];
  const terminated = pods.filter(isTerminated);
  const excess = terminated.length - threshold;
  return excess > 0 ? terminated.sort(byEvictionThenAge).slice(0, excess) : [];
}

/**
 * Terminating pods on a node its administrator has tainted `node.kubernetes.io/out-of-service` and that is not
 * ready: nothing will ever confirm their end, so they are force-deleted (and their volumes can move).
 */
export function terminatingOnOutOfServiceNodes(pods: readonly Pod[], nodes: ReadonlyMap<string, Node>): Pod[] {
  return pods
    .filter((pod) => {
      if (!isTerminating(pod)) return false;
      const node = nodes.get(pod.spec?.nodeName ?? '');
      return !!node && !isNodeReady(node) && (node.spec?.taints ?? []).some((t) => t.key === TAINT_OUT_OF_SERVICE);
    })
    .sort(byEvictionThenAge);
}

/** Names of nodes that pods are bound to but that are not among `nodeNames`. */
export function missingNodes(pods: readonly Pod[], nodeNames: ReadonlySet<string>): Set<string> {
  const missing = new Set<string>();
  for (const pod of pods) {
    const on = pod.spec?.nodeName;
    if (on && !nodeNames.has(on)) missing.add(on);
  }
  return missing;
}

/** Terminating pods that were never bound to a node: no agent will finish them. */
export const unscheduledTerminating = (pods: readonly Pod[]): Pod[] => pods.filter((pod) => isTerminating(pod) && !pod.spec?.nodeName);
