// The score plugins with upstream's default weights (NodeResourcesFit 1, NodeResourcesBalancedAllocation 1).
// Each gives 0..100 per node; a node's score is the weighted sum.
import type { NodeInfo } from '../node-info';
import type { Pod } from '../types';
import { balancedAllocationScore } from './balanced-allocation';
import { leastAllocatedScore } from './least-allocated';

export interface ScorePlugin {
  name: string;
  weight: number;
  score(pod: Pod, nodeInfo: NodeInfo): number;
}

export const DEFAULT_SCORES: readonly ScorePlugin[] = [
  { name: 'NodeResourcesFit', weight: 1, score: (pod, ni) => leastAllocatedScore(pod, ni) },
  { name: 'NodeResourcesBalancedAllocation', weight: 1, score: (pod, ni) => balancedAllocationScore(pod, ni) },
];

export function scoreNode(pod: Pod, nodeInfo: NodeInfo, scores: readonly ScorePlugin[] = DEFAULT_SCORES): number {
  return scores.reduce((total, s) => total + s.weight * s.score(pod, nodeInfo), 0);
}
