// The preemption part of a FailedScheduling message, as upstream's DefaultPreemption PostFilter reports when it
// finds nothing to preempt (pkg/scheduler/framework/preemption). This scheduler does not preempt; it runs the same
// dry run to word the message the same way:
//
//   preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.
//
// A node failed by an unresolvable filter (taints, affinity, unschedulable) is "not helpful"; on one failed by
// ports or resources, the pods of lower priority are taken away and the filters run again: with no such pods it
// says "No preemption victims found for incoming pod", if the pod still does not fit it gives the filter's reasons.
import { fitErrorMessage } from './failure-message';
import { runFilters, type FilterPlugin, type NodeStatus } from './filters';
import { nodeInfoFor, type NodeInfo } from './node-info';
import { podPriority, type Pod } from './types';

export const PREEMPTION_NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_PREEMPTION_VICTIMS = 'No preemption victims found for incoming pod';
export const NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER = 'not eligible due to preemptionPolicy=Never.';

export type PreemptionOutcome =
  /** Nothing to preempt anywhere: the message part, starting with "preemption: ". */
  | { message: string }
  /** Evicting lower-priority pods from these nodes would make room: upstream would preempt there. */
  | { candidates: string[] };

export function preemptionDryRun(pod: Pod, nodeInfos: readonly NodeInfo[], statuses: ReadonlyMap<string, NodeStatus>, filters?: readonly FilterPlugin[]): PreemptionOutcome {
  if (pod.spec?.preemptionPolicy === 'Never') return { message: `preemption: ${NOT_ELIGIBLE_PREEMPTION_POLICY_NEVER}` };
  const priority = podPriority(pod);
  const reasonsByNode: Array<readonly string[]> = [];
  const candidates: string[] = [];
  for (const info of nodeInfos) {
    if (!statuses.get(info.node.metadata.name ?? '')?.resolvableByPreemption) continue;
    const kept = info.pods.filter((p) => podPriority(p) >= priority);
    if (kept.length === info.pods.length) {
      reasonsByNode.push([NO_PREEMPTION_VICTIMS]);
      continue;
    }
    const without = runFilters(pod, nodeInfoFor(info.node, kept), filters);
    if (without) reasonsByNode.push(without.reasons);
    else candidates.push(info.node.metadata.name ?? '');
  }
  if (candidates.length) return { candidates };
  return { message: `preemption: ${fitErrorMessage(nodeInfos.length, reasonsByNode, [PREEMPTION_NOT_HELPFUL])}` };
}
