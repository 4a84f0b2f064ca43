// Node readiness, as the taints upstream's node lifecycle controller keeps on a node from its conditions
// (pkg/controller/nodelifecycle, nodeConditionToTaintKeyStatusMap) and the TaintNodesByCondition admission plugin
// puts on a new node. Upstream's scheduler has no readiness filter: it sees these taints in spec.taints. This
// project has no node lifecycle controller, so a not-ready taint added on create would never go away; the
// scheduler therefore derives the condition taints from the conditions themselves and ignores stale copies of
// them in spec.taints (see taint-toleration.ts). A pod that tolerates them (a DaemonSet's) still schedules, and
// the reason reads as upstream's TaintToleration reason for the same taint.
import type { NodeInfo } from '../node-info';
import type { Node, Pod, Taint } from '../types';
import { firstUntoleratedTaint, untoleratedTaintReason } from './tolerations';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Condition type and status -> the NoSchedule taint the node lifecycle controller sets for it. */
const CONDITION_TAINTS: ReadonlyArray<{ type: string; status: string; taint: string }> = [
  { type: 'Ready', status: 'False', taint: TAINT_NOT_READY },
  { type: 'Ready', status: 'Unknown', taint: TAINT_UNREACHABLE },
  { type: 'MemoryPressure', status: 'True', taint: 'node.kubernetes.io/memory-pressure' },
  { type: 'DiskPressure', status: 'True', taint: 'node.kubernetes.io/disk-pressure' },
  { type: 'NetworkUnavailable', status: 'True', taint: 'node.kubernetes.io/network-unavailable' },
  { type: 'PIDPressure', status: 'True', taint: 'node.kubernetes.io/pid-pressure' },
];

/** Taint keys whose truth is the node's conditions (or spec.unschedulable), not spec.taints. */
export const CONDITION_TAINT_KEYS: ReadonlySet<string> = new Set([...CONDITION_TAINTS.map((c) => c.taint), 'node.kubernetes.io/unschedulable']);

/**
 * The NoSchedule taints a node's conditions imply, in the table's order. A node that has not reported Ready yet
 * is not ready: TaintNodesByCondition tainted it so on create.
 */
export function conditionTaints(node: Node): Taint[] {
  const conditions = node.status?.conditions ?? [];
  const taints: Taint[] = conditions.some((c) => c.type === 'Ready') ? [] : [{ key: TAINT_NOT_READY, effect: 'NoSchedule' }];
  for (const { type, status, taint } of CONDITION_TAINTS) {
    if (conditions.some((c) => c.type === type && c.status === status)) taints.push({ key: taint, effect: 'NoSchedule' });
  }
  return taints;
}

export function nodeReadiness(pod: Pod, nodeInfo: NodeInfo): string | null {
  const taint = firstUntoleratedTaint(conditionTaints(nodeInfo.node), pod.spec?.tolerations);
  return taint ? untoleratedTaintReason(taint) : null;
}
