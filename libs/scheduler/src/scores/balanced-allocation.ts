// NodeResourcesBalancedAllocation: prefers the node whose cpu and memory would be used in the most similar
// proportions with the pod on it, score = (1 - standard deviation of the used fractions) * 100. It counts the
// requests as written (no defaults), and skips pods that request neither (1.33, kubernetes#129138): for them it
// gives every node the same score, 0, which is what a skipped plugin adds.
import type { NodeInfo } from '../node-info';
import { podResources } from '../resources';
import type { Pod } from '../types';
import { DEFAULT_SCORED_RESOURCES, MAX_NODE_SCORE, allocatableAndRequested } from './resource-scores';

/** Upstream's balancedResourceScorer, in the same floating-point steps so the truncated result matches. */
export function balancedResourceScore(amounts: ReadonlyArray<readonly [number, number]>): number {
  const fractions = amounts.filter(([alloc]) => alloc !== 0).map(([alloc, requested]) => Math.min(requested / alloc, 1));
  let std = 0;
  if (fractions.length === 2) {
    std = Math.abs((fractions[0] - fractions[1]) / 2);
  } else if (fractions.length > 2) {
    const mean = fractions.reduce((a, b) => a + b, 0) / fractions.length;
    std = Math.sqrt(fractions.reduce((sum, f) => sum + (f - mean) * (f - mean), 0) / fractions.length);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

export function balancedAllocationScore(pod: Pod, nodeInfo: NodeInfo, resources = DEFAULT_SCORED_RESOURCES): number {
  const want = podResources(pod);
  if (resources.every(({ name }) => (name === 'cpu' ? want.milliCPU : want.memory) === 0)) return 0;
  return balancedResourceScore(allocatableAndRequested(nodeInfo, nodeInfo.requested, want, resources));
}
