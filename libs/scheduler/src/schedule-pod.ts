// One scheduling decision, as a pure function of the pod and a snapshot of the nodes (upstream's schedulePod):
// filter every node, score the feasible ones, take the highest total. Ties are broken at random, as upstream's
// selectHost does by reservoir sampling, so equal nodes share the load. With no feasible node the answer is the
// FailedScheduling message.
import { NO_NODES_AVAILABLE_MESSAGE, fitErrorMessage } from './failure-message';
import { DEFAULT_FILTERS, runFilters, type FilterPlugin, type NodeStatus } from './filters';
import type { NodeInfo } from './node-info';
import { preemptionDryRun } from './preemption';
import { DEFAULT_SCORES, scoreNode, type ScorePlugin } from './scores';
import type { Pod } from './types';

export type ScheduleResult =
  | { nodeName: string; feasibleNodes: number }
  /** `Unschedulable` when no node fits, `SchedulerError` when there is nothing to try (upstream's condition reasons). */
  | { nodeName?: undefined; reason: 'Unschedulable' | 'SchedulerError'; message: string; statuses: ReadonlyMap<string, NodeStatus> };

export interface ScheduleOptions {
  filters?: readonly FilterPlugin[];
  scores?: readonly ScorePlugin[];
  /** For the tie-break among nodes with the highest score; Math.random by default. */
  random?: () => number;
}

export function schedulePod(pod: Pod, nodeInfos: readonly NodeInfo[], opts: ScheduleOptions = {}): ScheduleResult {
  if (nodeInfos.length === 0) return { reason: 'SchedulerError', message: NO_NODES_AVAILABLE_MESSAGE, statuses: new Map() };
  const filters = opts.filters ?? DEFAULT_FILTERS;
  const statuses = new Map<string, NodeStatus>();
  const feasible: NodeInfo[] = [];
  for (const info of nodeInfos) {
    const status = runFilters(pod, info, filters);
    if (status) statuses.set(info.node.metadata.name ?? '', status);
    else feasible.push(info);
  }
  if (feasible.length === 0) {
    const message = fitErrorMessage(nodeInfos.length, [...statuses.values()].map((s) => s.reasons));
    const preemption = preemptionDryRun(pod, nodeInfos, statuses, filters);
    // Where upstream would preempt, its PostFilter succeeds and adds nothing to the message.
    return { reason: 'Unschedulable', message: 'message' in preemption ? `${message} ${preemption.message}` : message, statuses };
  }
  if (feasible.length === 1) return { nodeName: feasible[0].node.metadata.name ?? '', feasibleNodes: 1 };
  return { nodeName: highestScoring(pod, feasible, opts.scores ?? DEFAULT_SCORES, opts.random ?? Math.random), feasibleNodes: feasible.length };
}

function highestScoring(pod: Pod, feasible: readonly NodeInfo[], scores: readonly ScorePlugin[], random: () => number): string {
  let best = -Infinity;
  let ties: string[] = [];
  for (const info of feasible) {
    const score = scoreNode(pod, info, scores);
    const name = info.node.metadata.name ?? '';
    if (score > best) {
      best = score;
      ties = [name];
    } else if (score === best) {
      ties.push(name);
    }
  }
  return ties[Math.min(ties.length - 1, Math.floor(random() * ties.length))];
}
