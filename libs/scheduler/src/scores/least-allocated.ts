// NodeResourcesFit's default scoring strategy, LeastAllocated: the more of the node's cpu and memory would stay
// free with the pod on it, the higher the score (weighted average over the resources). It counts requests with
// the defaults for missing cpu and memory requests, so pods that ask for nothing still spread out.
import type { NodeInfo } from '../node-info';
import { podResources } from '../resources';
import type { Pod } from '../types';
import { DEFAULT_SCORED_RESOURCES, MAX_NODE_SCORE, allocatableAndRequested } from './resource-scores';

/** (capacity - requested) * 100 / capacity in integer arithmetic; BigInt because memory * 100 outgrows 2^53. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Number((BigInt(capacity - requested) * BigInt(MAX_NODE_SCORE)) / BigInt(capacity));
}

export function leastAllocatedScore(pod: Pod, nodeInfo: NodeInfo, resources = DEFAULT_SCORED_RESOURCES): number {
  const want = podResources(pod, { defaultMissing: true });
  const amounts = allocatableAndRequested(nodeInfo, nodeInfo.nonZeroRequested, want, resources);
  let score = 0;
  let weights = 0;
  amounts.forEach(([alloc, requested], i) => {
    if (alloc === 0) return;
    score += leastRequestedScore(requested, alloc) * resources[i].weight;
    weights += resources[i].weight;
  });
  return weights === 0 ? 0 : Math.trunc(score / weights);
}
