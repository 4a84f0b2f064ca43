// The filter plugins in upstream's default order (pkg/scheduler/apis/config/v1/default_plugins.go), each with
// whether preemption could ever make the node fit: upstream's Unschedulable (resolvable) as opposed to
// UnschedulableAndUnresolvable. A node's status is the first failing plugin's reasons, as the framework stops at
// the first failure.
import type { NodeInfo } from '../node-info';
import type { Pod } from '../types';
import { nodeAffinity } from './node-affinity';
import { nodePorts } from './node-ports';
import { nodeResourcesFit } from './node-resources-fit';
import { nodeUnschedulable } from './node-unschedulable';
import { taintToleration } from './taint-toleration';

export interface FilterPlugin {
  name: string;
  /** True when removing pods from the node could make it pass (Unschedulable rather than ...AndUnresolvable). */
  resolvableByPreemption: boolean;
  /** null when the node passes; otherwise the reasons, worded as upstream words them. */
  filter(pod: Pod, nodeInfo: NodeInfo): readonly string[] | null;
}

export interface NodeStatus {
  plugin: string;
  reasons: readonly string[];
  resolvableByPreemption: boolean;
}

const single =
  (fn: (pod: Pod, nodeInfo: NodeInfo) => string | null) =>
  (pod: Pod, nodeInfo: NodeInfo): readonly string[] | null => {
    const reason = fn(pod, nodeInfo);
    return reason === null ? null : [reason];
  };

export const DEFAULT_FILTERS: readonly FilterPlugin[] = [
  { name: 'NodeUnschedulable', resolvableByPreemption: false, filter: single(nodeUnschedulable) },
  { name: 'TaintToleration', resolvableByPreemption: false, filter: single(taintToleration) },
  { name: 'NodeAffinity', resolvableByPreemption: false, filter: single(nodeAffinity) },
  { name: 'NodePorts', resolvableByPreemption: true, filter: single(nodePorts) },
  { name: 'NodeResourcesFit', resolvableByPreemption: true, filter: nodeResourcesFit },
];

/** null when the pod fits the node; otherwise why not. */
export function runFilters(pod: Pod, nodeInfo: NodeInfo, filters: readonly FilterPlugin[] = DEFAULT_FILTERS): NodeStatus | null {
  for (const f of filters) {
    const reasons = f.filter(pod, nodeInfo);
    if (reasons) return { plugin: f.name, reasons, resolvableByPreemption: f.resolvableByPreemption };
  }
  return null;
}
