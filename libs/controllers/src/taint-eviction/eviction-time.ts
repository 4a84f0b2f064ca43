// When a pod on a node with NoExecute taints must go (upstream's processPodOnNode with getMinTolerationTime): at
// once if some taint has no toleration; never if every taint is tolerated without tolerationSeconds; otherwise
// at the earliest deadline among the tolerations used, each counted from its taint's timeAdded.
//
// Upstream counts from the moment its controller noticed the taint. Counting from timeAdded (which the node
// lifecycle controller sets) gives the same time while the controller runs, and the right one after it restarts,
// where upstream would start every pod's tolerationSeconds again. A taint without timeAdded (added by hand)
// counts from when this controller noticed it, as upstream.
import { matchingTolerations } from '../core-v1/taints';
import { timeOf, type Taint, type Toleration } from '../core-v1/types';

export const noExecuteTaints = (taints: readonly Taint[] | undefined): Taint[] => (taints ?? []).filter((t) => t.effect === 'NoExecute');

/**
 * The time (ms since the epoch) at which the pod is to be deleted, or undefined when it may stay. `taints` are
 * the node's NoExecute taints; `noticedAt` stands in for a taint's missing timeAdded (and is "at once").
 */
export function evictionTime(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined, noticedAt: number): number | undefined {
  if (taints.length === 0) return undefined;
  const used = matchingTolerations(taints, tolerations);
  if (!used) return noticedAt;
  let at = Infinity;
  taints.forEach((taint, i) => {
    const seconds = used[i].tolerationSeconds;
    if (seconds === undefined || seconds === null) return;
    const start = timeOf(taint.timeAdded) ?? noticedAt;
    // Zero or negative tolerationSeconds mean "not at all" (upstream evicts at once).
    at = Math.min(at, seconds <= 0 ? Math.min(start, noticedAt) : start + seconds * 1000);
  });
  return at === Infinity ? undefined : at;
}
