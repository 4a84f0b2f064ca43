// What the resource scores share (noderesources/resource_allocation.go): the resources they weigh, with
// upstream's default weights, and each resource's allocatable and requested amount on a node once the pod is on it.
import type { NodeInfo } from '../node-info';
import type { Resources } from '../resources';

/** Node scores run from 0 to MAX_NODE_SCORE (framework.MaxNodeScore). */
export const MAX_NODE_SCORE = 100;

export interface ScoredResource {
  name: 'cpu' | 'memory';
  weight: number;
}

/** NodeResourcesFitArgs' and NodeResourcesBalancedAllocationArgs' default resources. */
export const DEFAULT_SCORED_RESOURCES: readonly ScoredResource[] = [
  { name: 'cpu', weight: 1 },
  { name: 'memory', weight: 1 },
];

const pick = (r: Resources, name: ScoredResource['name']) => (name === 'cpu' ? r.milliCPU : r.memory);

/** Per resource: [allocatable, requested including the pod]; a resource the node has none of is [0, 0], "skip". */
export function allocatableAndRequested(nodeInfo: NodeInfo, onNode: Resources, pod: Resources, resources = DEFAULT_SCORED_RESOURCES): Array<[number, number]> {
  return resources.map(({ name }) => {
    const alloc = pick(nodeInfo.allocatable, name);
    return alloc === 0 ? [0, 0] : [alloc, pick(onNode, name) + pick(pod, name)];
  });
}
